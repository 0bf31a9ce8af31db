package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// canaryLimits is a limits file: 2 per hour per API key, in mode, with
// tenant modes.
func canaryLimits(mode, tenants string) string {
	return fmt.Sprintf(`{"tenant_header": "X-Tenant", "routes": [
  {"name": "home", "match": ["*"], "key": "header:X-Api-Key",
   "policies": [{"name": "hourly", "limit": 2, "window": "1h", "algorithm": "sliding-log"}],
   "mode": %q, "tenants": {%s}}]}`, mode, tenants)
}

// edit replaces the file at path with content in one rename.
func edit(t *testing.T, path, content string) {
	t.Helper()
	require.NoError(t, os.WriteFile(path+".tmp", []byte(content), 0o600))
	require.NoError(t, os.Rename(path+".tmp", path))
}

// eventually polls cond every 50 ms for up to 15 s (the server checks the
// file every second).
func eventually(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 15s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestConfigFileCanary does a canary rollout on every framework by editing
// the -config file: observe for all, enforce for one tenant, then for all.
// The denied keys show up, hashed, on /debug/ratewindow/top.
func TestConfigFileCanary(t *testing.T) {
	for _, fw := range frameworks {
		t.Run(fw, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "limits.json")
			edit(t, path, canaryLimits("observe", ""))
			p := start(t, "-framework", fw, "-config", path)
			acme := map[string]string{"X-Api-Key": "key-acme", "X-Tenant": "acme"}
			beta := map[string]string{"X-Api-Key": "key-beta", "X-Tenant": "beta"}

			assert.Equal(t, []int{ok, ok, ok}, statuses(t, p.url+"/", 3, acme), "observe: never blocks")
			edit(t, path, canaryLimits("observe", `"acme": "enforce"`))
			eventually(t, "acme enforced", func() bool { return get(t, p.url+"/", acme).status == deny })
			assert.Equal(t, []int{ok, ok, ok}, statuses(t, p.url+"/", 3, beta), "beta still observed")

			edit(t, path, canaryLimits("enforce", ""))
			eventually(t, "enforced for all", func() bool { return get(t, p.url+"/", beta).status == deny })
			assert.Equal(t, []int{ok, ok, ok}, statuses(t, p.url+"/healthz", 3, beta))

			// A broken edit keeps the running configuration.
			edit(t, path, canaryLimits("enforce", `"beta": "maybe"`))
			eventually(t, "rejection logged", func() bool { return strings.Contains(p.stderr.String(), "reload rejected") })
			assert.Contains(t, p.stderr.String(), `routes[0].tenants[\"beta\"]: \"maybe\" is not`)
			assert.Equal(t, deny, get(t, p.url+"/", beta).status)
			m := get(t, p.admin+"/metrics", nil)
			assert.Contains(t, m.body, `ratewindow_config_reloads_total{result="applied"} 2`)
			assert.Contains(t, m.body, `ratewindow_config_reloads_total{result="rejected"} 1`)

			top := get(t, p.admin+"/debug/ratewindow/top", nil)
			require.Equal(t, ok, top.status, top.body)
			var rep struct {
				Events uint64 `json:"events"`
				Top    []struct {
					Policy  string `json:"policy"`
					KeyHash string `json:"key_hash"`
					Count   uint64 `json:"count"`
				} `json:"top"`
			}
			require.NoError(t, json.Unmarshal([]byte(top.body), &rep), top.body)
			require.Len(t, rep.Top, 2, top.body)
			for _, e := range rep.Top {
				assert.Equal(t, "hourly", e.Policy)
				assert.Len(t, e.KeyHash, 16)
				assert.GreaterOrEqual(t, e.Count, uint64(2))
			}
			assert.NotContains(t, top.body, "key-acme", "keys are hashed")

			code, rest := p.stop(t, syscall.SIGTERM)
			assert.Equal(t, 0, code, "stderr %q", p.stderr.String())
			assert.Empty(t, rest)
		})
	}
}

// TestConfigFileErrors: a bad limits file, or -config beside a flag it
// replaces (even one given its default, such as -observe=false: the file's
// mode is never overridden), exits 2 with one line naming the problem.
func TestConfigFileErrors(t *testing.T) {
	path := filepath.Join(t.TempDir(), "limits.json")
	edit(t, path, `{"routes": [{"name": "home", "match": ["*"], "policies": [{"limit": 10, "window": "0s"}]}]}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-config", path}, "routes[0].policies[0].window: must be > 0"},
		{[]string{"-config", path + ".missing"}, "no such file"},
		{[]string{"-config", path, "-limits", "1/1s", "-observe"}, "-config: the file sets what -limits, -observe would set"},
		{[]string{"-config", "limits.json", "-observe"}, "-config: the file sets what -observe would set"},
		{[]string{"-config", "limits.json", "-observe=false"}, "-config: the file sets what -observe would set"},
	} {
		code, stdout, stderr := runExit(t, c.args...)
		assert.Equal(t, 2, code, "%v", c.args)
		assert.Empty(t, stdout)
		oneLine(t, stderr)
		assert.Contains(t, stderr, c.want)
	}
}

// TestExampleLimitsFileLoads keeps the example file next to the server
// valid.
func TestExampleLimitsFileLoads(t *testing.T) {
	p := start(t, "-config", "limits.json")
	acme := map[string]string{"X-Api-Key": "k", "X-Tenant": "acme"}
	got := statuses(t, p.url+"/", 11, acme)
	assert.Contains(t, got, deny, "acme is enforced at 10 per second")
}
