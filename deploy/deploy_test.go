package deploy_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/metrics"
)

const (
	dashboardFile = "grafana/ratewindow.json"
	rulesFile     = "prometheus/ratewindow.rules.yml"
	rulesTestFile = "prometheus/ratewindow.rules.test.yml"
)

// promtool returns the path of promtool: $RATEWINDOW_PROMTOOL (set by
// scripts/test), else the one on PATH. Without it the test is skipped,
// except under CI=true where it fails.
func promtool(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("RATEWINDOW_PROMTOOL"); p != "" {
		return p
	}
	p, err := exec.LookPath("promtool")
	if err == nil {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("promtool not found (install the Debian package prometheus, or run ./scripts/test): %v", err)
	}
	t.Skip("promtool not found; ./scripts/test installs it")
	return ""
}

// run runs promtool with args in dir and fails the test on a non-zero
// exit, showing its output.
func run(t *testing.T, dir string, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, promtool(t), args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoErrorf(t, err, "promtool %s:\n%s", strings.Join(args, " "), out)
}

func TestRulesPassPromtool(t *testing.T) {
	run(t, ".", "check", "rules", rulesFile)
	// The unit tests make each alert fire on a scenario, and stay quiet on
	// another: the expressions do what they say.
	run(t, ".", "test", "rules", rulesTestFile)
}

// dashboard is the part of a Grafana dashboard the tests read.
type dashboard struct {
	UID        string `json:"uid"`
	Title      string `json:"title"`
	Templating struct {
		List []struct {
			Name  string          `json:"name"`
			Type  string          `json:"type"`
			Query json.RawMessage `json:"query"`
		} `json:"list"`
	} `json:"templating"`
	Panels []struct {
		ID         int    `json:"id"`
		Type       string `json:"type"`
		Title      string `json:"title"`
		Datasource *struct {
			UID string `json:"uid"`
		} `json:"datasource"`
		Targets []struct {
			RefID string `json:"refId"`
			Expr  string `json:"expr"`
		} `json:"targets"`
	} `json:"panels"`
}

func loadDashboard(t *testing.T) *dashboard {
	t.Helper()
	data, err := os.ReadFile(dashboardFile)
	require.NoError(t, err)
	var d dashboard
	require.NoError(t, json.Unmarshal(data, &d))
	return &d
}

// queries returns every PromQL query of the dashboard's panels.
func (d *dashboard) queries() []string {
	var qs []string
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			qs = append(qs, tg.Expr)
		}
	}
	return qs
}

func TestDashboardIsWellFormed(t *testing.T) {
	d := loadDashboard(t)
	assert.NotEmpty(t, d.UID)
	assert.NotEmpty(t, d.Title)
	vars := map[string]bool{"__rate_interval": true}
	for _, v := range d.Templating.List {
		vars[v.Name] = true
	}
	ids := map[int]bool{}
	used := regexp.MustCompile(`\$\{?([A-Za-z_]+)`)
	for _, p := range d.Panels {
		assert.Falsef(t, ids[p.ID], "panel id %d used twice", p.ID)
		ids[p.ID] = true
		assert.NotEmpty(t, p.Title, "panel %d", p.ID)
		if p.Type == "text" {
			continue
		}
		require.NotNilf(t, p.Datasource, "panel %q has no datasource", p.Title)
		assert.Equal(t, "${datasource}", p.Datasource.UID, "panel %q", p.Title)
		require.NotEmptyf(t, p.Targets, "panel %q has no query", p.Title)
		for _, tg := range p.Targets {
			assert.NotEmpty(t, tg.RefID, "panel %q", p.Title)
			for _, m := range used.FindAllStringSubmatch(tg.Expr, -1) {
				assert.Truef(t, vars[m[1]], "panel %q uses undefined variable $%s", p.Title, m[1])
			}
		}
	}
}

// TestDashboardQueriesParse has promtool parse every query of the
// dashboard, by checking them as recording rules, with Grafana's variables
// replaced by values.
func TestDashboardQueriesParse(t *testing.T) {
	d := loadDashboard(t)
	vars := strings.NewReplacer("$__rate_interval", "5m", "$job", ".*", "$route", ".*")
	var b strings.Builder
	b.WriteString("groups:\n  - name: dashboard\n    rules:\n")
	for i, q := range d.queries() {
		expr, err := json.Marshal(vars.Replace(q)) // a JSON string is a YAML string
		require.NoError(t, err)
		fmt.Fprintf(&b, "      - record: dashboard_query_%d\n        expr: %s\n", i, expr)
	}
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "dashboard.rules.yml"), []byte(b.String()), 0o600))
	run(t, dir, "check", "rules", "dashboard.rules.yml")
}

// metricName finds metric names: ratewindow_ not preceded by a name
// character or a colon (recording rules are named level:metric:ops).
var metricName = regexp.MustCompile(`(?:^|[^A-Za-z0-9_:])(ratewindow_[A-Za-z0-9_:]*)`)

// usedNames returns the metric names the files mention.
func usedNames(t *testing.T, files ...string) map[string][]string {
	t.Helper()
	used := map[string][]string{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range metricName.FindAllStringSubmatch(string(data), -1) {
			if !slices.Contains(used[m[1]], f) {
				used[m[1]] = append(used[m[1]], f)
			}
		}
	}
	return used
}

// exportedNames feeds a Collector one decision of every kind and returns
// the names of the series it exports, with the _bucket, _sum and _count
// series of histograms.
func exportedNames(t *testing.T) map[string]bool {
	t.Helper()
	c, err := metrics.New()
	require.NoError(t, err)
	policy := core.PerMinute(100).Named("per-minute")
	decision := func(allowed bool, remaining int64, fallback bool) core.Decision {
		d := core.Decision{Allowed: allowed, Limit: 100, Remaining: remaining, Policies: []core.Policy{policy}, Fallback: fallback}
		d.States()[0] = core.PolicyState{Allowed: allowed, Remaining: remaining}
		return d
	}
	for _, ev := range []ratewindow.Event{
		{Outcome: ratewindow.Allowed, Decision: decision(true, 50, false)},
		{Outcome: ratewindow.Allowed, Decision: decision(true, 1, false)}, // near the limit
		{Outcome: ratewindow.Denied, WouldDeny: true, Decision: decision(false, 0, true)},
		{Outcome: ratewindow.WouldDeny, WouldDeny: true, ObserveOnly: true, Decision: decision(false, 0, false)},
		{Outcome: ratewindow.StoreErrorPassed, Err: errors.New("down"), FailedOpen: true},
		{Outcome: ratewindow.StoreErrorRejected, Err: errors.New("down")},
		{Outcome: ratewindow.Skipped},
	} {
		ev.Route, ev.Key, ev.Cost, ev.Latency = "/items/{id}", "k", 1, time.Millisecond
		c.Observe(ev)
	}
	c.BreakerStateChanged(resilient.Closed, resilient.Open)
	reg := prometheus.NewPedanticRegistry()
	require.NoError(t, reg.Register(c))
	families, err := reg.Gather()
	require.NoError(t, err)
	names := map[string]bool{}
	for _, f := range families {
		switch f.GetType() {
		case dto.MetricType_HISTOGRAM:
			for _, s := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+s] = true
			}
		case dto.MetricType_SUMMARY:
			names[f.GetName()+"_sum"], names[f.GetName()+"_count"] = true, true
			names[f.GetName()] = true
		default:
			names[f.GetName()] = true
		}
	}
	return names
}

func TestMetricNamesAreExported(t *testing.T) {
	exported := exportedNames(t)
	used := usedNames(t, dashboardFile, rulesFile, rulesTestFile)
	require.NotEmpty(t, used)
	for name, files := range used {
		assert.Truef(t, exported[name], "%s (in %s) is not exported by metrics.Collector; it exports %v",
			name, strings.Join(files, ", "), sorted(exported))
	}
	// And the dashboard shows every family the Collector exports.
	shown := usedNames(t, dashboardFile)
	families := map[string]bool{}
	for name := range exported {
		base := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSuffix(name, "_bucket"), "_sum"), "_count")
		families[base] = families[base] || shown[name] != nil
	}
	for base, ok := range families {
		assert.Truef(t, ok, "the dashboard shows nothing of %s", base)
	}
}

// TestOutcomeValuesAreReal checks every outcome label value the files
// match against the outcomes the middleware reports.
func TestOutcomeValuesAreReal(t *testing.T) {
	known := map[string]bool{}
	for o := ratewindow.Allowed; o <= ratewindow.UnclassifiedPassed; o++ {
		known[o.String()] = true
	}
	matcher := regexp.MustCompile(`outcome\s*(?:=|!=|=~|!~)\s*\\?"([^"\\]*)\\?"`)
	n := 0
	for _, f := range []string{dashboardFile, rulesFile, rulesTestFile} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, m := range matcher.FindAllStringSubmatch(string(data), -1) {
			for _, v := range strings.Split(m[1], "|") {
				n++
				assert.Truef(t, known[v], "%s: outcome %q is not one the middleware reports", f, v)
			}
		}
	}
	assert.Greater(t, n, 10, "the matcher found the outcome matchers")
}

func sorted(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
