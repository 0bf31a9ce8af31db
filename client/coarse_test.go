package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// One limit sent in two dialects, once as a delta and once as a Unix time
// read against a Date cut to whole seconds, reads up to a second apart
// for no reason but that cut: it is one limit, and its exact reading, the
// delta, is kept. Resets further apart are two limits, and the longer
// wins as before.
func TestUnixResetWithinTheDatesSecondIsTheSameLimit(t *testing.T) {
	const date = "Mon, 05 Aug 2019 10:13:00 GMT" // X-RateLimit-Reset 1565000000 is 20 s later
	tests := []struct {
		name  string
		delta string
		want  quota
	}{
		{"a second apart", `"app";r=0;t=19`, quota{0, 19 * time.Second}},
		{"equal", `"app";r=0;t=20`, quota{0, 20 * time.Second}},
		{"two seconds apart", `"app";r=0;t=18`, quota{0, 20 * time.Second}},
		{"more left in the delta", `"app";r=1;t=19`, quota{0, 20 * time.Second}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := header("RateLimit", tt.delta, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1565000000", "Date", date)
			got, ok := parseQuota(h, now, false)
			assert.True(t, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}
