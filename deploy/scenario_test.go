package deploy_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// alertNames returns the names of the alerts of the rules file.
func alertNames(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(rulesFile)
	require.NoError(t, err)
	var names []string
	for _, m := range regexp.MustCompile(`(?m)^\s*-\s*alert:\s*(\S+)\s*$`).FindAllStringSubmatch(string(data), -1) {
		names = append(names, m[1])
	}
	return names
}

// expectations returns, per alert name, how many alert_rule_test entries
// of the rules' unit tests expect it to fire and how many expect it quiet
// (exp_alerts: []).
func expectations(t *testing.T) (fires, quiet map[string]int) {
	t.Helper()
	data, err := os.ReadFile(rulesTestFile)
	require.NoError(t, err)
	fires, quiet = map[string]int{}, map[string]int{}
	alertname := regexp.MustCompile(`^\s*alertname:\s*(\S+)\s*$`)
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		m := alertname.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		// The entry's exp_alerts follows its alertname.
		for _, next := range lines[i+1:] {
			next = strings.TrimSpace(next)
			if next == "exp_alerts: []" {
				quiet[m[1]]++
				break
			}
			if next == "exp_alerts:" {
				fires[m[1]]++
				break
			}
			if strings.HasPrefix(next, "- eval_time:") || strings.HasPrefix(next, "alertname:") {
				break
			}
		}
	}
	return fires, quiet
}

// Every alert has a scenario of the rules' unit tests that makes it fire,
// and one that keeps it quiet: one that fired on a healthy service would
// otherwise go unnoticed, as docs/operations.md promises it does not.
func TestEveryAlertFiresAndStaysQuiet(t *testing.T) {
	names := alertNames(t)
	require.GreaterOrEqual(t, len(names), 5, "the alerts of %s", rulesFile)
	fires, quiet := expectations(t)
	for _, name := range names {
		assert.Positivef(t, fires[name], "%s: no scenario of %s makes it fire", name, rulesTestFile)
		assert.Positivef(t, quiet[name], "%s: no scenario of %s keeps it quiet", name, rulesTestFile)
	}
	for name := range fires {
		assert.Containsf(t, names, name, "%s tests an alert %s does not define", rulesTestFile, rulesFile)
	}
}
