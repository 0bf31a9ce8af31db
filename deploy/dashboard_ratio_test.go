package deploy_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// dashboardQuery returns the query of the dashboard panel titled title,
// with Grafana's variables replaced as a query over every job and route
// would have them.
func dashboardQuery(t *testing.T, title string) string {
	t.Helper()
	vars := strings.NewReplacer("$__rate_interval", "5m", "$job", ".*", "$route", ".*")
	for _, p := range loadDashboard(t).Panels {
		if p.Title == title {
			require.Lenf(t, p.Targets, 1, "panel %q", title)
			return vars.Replace(p.Targets[0].Expr)
		}
	}
	t.Fatalf("no panel titled %q", title)
	return ""
}

// The would-deny ratio panel shows what the recording rule records: the
// store's would-denies over the store's decisions. When 40% of the calls
// fall back and a policy first binds on the fallback's decisions, its
// requests_total series starts at its first scrape, whose value rate()
// leaves out while the fallback's series counts it: the difference would
// be negative, and so the ratio, as no count of decisions can be.
func TestDashboardWouldDenyRatioIsTheRules(t *testing.T) {
	expr, err := json.Marshal(dashboardQuery(t, "Would-deny ratio")) // a JSON string is a YAML string
	require.NoError(t, err)
	rules, err := filepath.Abs(rulesFile)
	require.NoError(t, err)
	dir := t.TempDir()
	panel := fmt.Sprintf("groups:\n  - name: dashboard\n    rules:\n      - record: dashboard_would_deny_ratio\n        expr: %s\n", expr)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "panel.rules.yml"), []byte(panel), 0o600))

	// The panel's value, and its difference from the rule's (per route,
	// job summed away: there is one), at minute 50, before the fallback,
	// and at 64, when the policy q first bound two minutes before.
	same := `sum by (route) (route:ratewindow_would_deny_ratio:rate5m) - on (route) dashboard_would_deny_ratio`
	test := fmt.Sprintf(`rule_files:
  - %s
  - panel.rules.yml
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'ratewindow_requests_total{job="api", route="/s", policy="p", outcome="allowed"}'
        values: '0+100x90'
      - series: 'ratewindow_requests_total{job="api", route="/s", policy="p", outcome="would_deny"}'
        values: '0+1x90'
      - series: 'ratewindow_requests_total{job="api", route="/s", policy="q", outcome="would_deny"}'
        values: '_x61 40+10x28'
      - series: 'ratewindow_fallback_decisions_total{job="api", route="/s", outcome="allowed"}'
        values: '0x60 40+40x29'
      - series: 'ratewindow_fallback_decisions_total{job="api", route="/s", outcome="would_deny"}'
        values: '0x61 40+10x28'
    promql_expr_test:
      - expr: dashboard_would_deny_ratio >= bool 0
        eval_time: 64m
        exp_samples:
          - labels: '{route="/s"}'
            value: 1
      - expr: dashboard_would_deny_ratio > bool 0.009
        eval_time: 50m
        exp_samples:
          - labels: '{route="/s"}'
            value: 1
      - expr: %[2]s
        eval_time: 50m
        exp_samples:
          - labels: '{route="/s"}'
            value: 0
      - expr: %[2]s
        eval_time: 64m
        exp_samples:
          - labels: '{route="/s"}'
            value: 0
`, rules, same)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "panel.test.yml"), []byte(test), 0o600))
	run(t, dir, "test", "rules", "panel.test.yml")
}
