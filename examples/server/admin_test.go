package main

import (
	"encoding/json"
	"net"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAdminListener: on every framework, the operator endpoints answer on
// the admin listener only (404 on the public one), the app only on the
// public one, the limit holds (200s, then 429 with Retry-After), and
// SIGINT or SIGTERM stops both listeners with status 0.
func TestAdminListener(t *testing.T) {
	signals := []syscall.Signal{syscall.SIGINT, syscall.SIGTERM}
	for i, fw := range frameworks {
		sig := signals[i%len(signals)]
		t.Run(fw+"/"+sig.String(), func(t *testing.T) {
			p := start(t, "-framework", fw, "-limits", "2/1m")
			require.NotEmpty(t, p.admin, "no admin line")

			assert.Equal(t, []int{ok, ok}, statuses(t, p.url+"/", 2, nil))
			r := get(t, p.url+"/", nil)
			assert.Equal(t, deny, r.status)
			assert.NotEmpty(t, r.header.Get("Retry-After"))
			assert.Contains(t, r.body, `"error":"rate_limited"`)

			for _, path := range []string{"/metrics", topPath, topPath + "?n=all"} {
				assert.Equal(t, 404, get(t, p.url+path, nil).status, "public %s", path)
			}
			m := get(t, p.admin+"/metrics", nil)
			require.Equal(t, ok, m.status)
			assert.Regexp(t, `ratewindow_requests_total\{outcome="denied",policy="1m",route="[^"]*"\} 1\n`, m.body)
			top := get(t, p.admin+topPath, nil)
			require.Equal(t, ok, top.status)
			var rep struct {
				Top []struct {
					KeyHash string `json:"key_hash"`
					Count   uint64 `json:"count"`
				} `json:"top"`
			}
			require.NoError(t, json.Unmarshal([]byte(top.body), &rep), top.body)
			require.Len(t, rep.Top, 1, top.body)
			assert.Equal(t, uint64(1), rep.Top[0].Count)
			assert.NotContains(t, top.body, "127.0.0.1", "keys are hashed")
			for _, path := range []string{"/", "/healthz"} {
				assert.Equal(t, 404, get(t, p.admin+path, nil).status, "admin %s", path)
			}

			code, rest := p.stop(t, sig)
			assert.Equal(t, 0, code, "stderr %q", p.stderr.String())
			assert.Empty(t, rest, "stdout after the \"listening on\" line")
			assert.Empty(t, p.stderr.String())
		})
	}
}

// TestAdminOff: -admin-addr "" turns the operator endpoints off: no admin
// line, and nothing but the app on the public listener.
func TestAdminOff(t *testing.T) {
	p := start(t, "-admin-addr", "", "-limits", "1/1m")
	assert.Empty(t, p.admin)
	assert.Equal(t, []int{ok, deny}, statuses(t, p.url+"/", 2, nil))
	assert.Equal(t, 404, get(t, p.url+"/metrics", nil).status)
	assert.Equal(t, 404, get(t, p.url+topPath, nil).status)
	code, rest := p.stop(t, syscall.SIGTERM)
	assert.Equal(t, 0, code, "stderr %q", p.stderr.String())
	assert.Empty(t, rest)
}

// TestListenErrors: two listeners on one address is a flag error (status
// 2, before binding); an address already in use, public or admin, fails
// the start with status 1, one line naming the flag, and nothing on stdout.
func TestListenErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	addr := taken.Addr().String()
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-addr", addr, "-admin-addr", addr}, 2, "-admin-addr: " + `"` + addr + `" would share -addr`},
		{[]string{"-addr", ":" + port, "-admin-addr", addr}, 2, "would share -addr"},
		{[]string{"-addr", addr, "-admin-addr", "[::]:" + port}, 2, "would share -addr"},
		{[]string{"-admin-addr", "8081"}, 2, "-admin-addr"},
		{[]string{"-admin-addr", "127.0.0.1:65536"}, 2, "-admin-addr"},
		{[]string{"-addr", "127.0.0.1:0", "-admin-addr", addr}, 1, "-admin-addr: listen tcp " + addr},
		{[]string{"-addr", addr, "-admin-addr", "127.0.0.1:0"}, 1, "-addr: listen tcp " + addr},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			code, stdout, stderr := runExit(t, c.args...)
			assert.Equal(t, c.code, code)
			assert.Empty(t, stdout)
			oneLine(t, stderr)
			assert.Contains(t, stderr, c.want)
		})
	}
}

// TestKeyHashesMatch: a key hashed on /debug/ratewindow/top is the key
// hashed in the log records, so an operator can find its records.
func TestKeyHashesMatch(t *testing.T) {
	p := start(t, "-observe", "-key", "header:X-Api-Key", "-limits", "1/1m")
	assert.Equal(t, []int{ok, ok}, statuses(t, p.url+"/", 2, map[string]string{"X-Api-Key": "k"}))
	top := get(t, p.admin+topPath, nil)
	require.Equal(t, ok, top.status)
	var rep struct {
		Top []struct {
			KeyHash string `json:"key_hash"`
		} `json:"top"`
	}
	require.NoError(t, json.Unmarshal([]byte(top.body), &rep), top.body)
	require.Len(t, rep.Top, 1, top.body)
	code, _ := p.stop(t, syscall.SIGTERM)
	assert.Equal(t, 0, code)
	var logged []string
	for _, line := range strings.Split(strings.TrimSpace(p.stderr.String()), "\n") {
		var rec struct {
			KeyHash string `json:"key_hash"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		logged = append(logged, rec.KeyHash)
	}
	assert.Equal(t, []string{rep.Top[0].KeyHash}, logged, "stderr %s", p.stderr.String())
}
