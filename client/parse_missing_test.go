package client

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A field missing what it must carry says nothing, and a reset just at
// the line between a legacy delta and a Unix time is still a delta.
func TestParseQuotaMissingAndEdges(t *testing.T) {
	tests := []struct {
		name string
		h    map[string]string
		want quota
		ok   bool
	}{
		{"draft-07 without remaining", map[string]string{"RateLimit": "limit=100, reset=5"}, quota{}, false},
		{"draft-08 item without r", map[string]string{"RateLimit": `"p";t=5`}, quota{}, false},
		{"draft-08 item without r beside a whole one", map[string]string{"RateLimit": `"a";t=5, "b";r=4;t=2`}, quota{4, 2 * time.Second}, true},
		{"legacy 10^9 s is still a delta", map[string]string{"X-RateLimit-Remaining": "7", "X-RateLimit-Reset": "1000000000"}, quota{7, 1e9 * time.Second}, true},
		{"legacy past 10^9 s is a Unix time", map[string]string{"X-RateLimit-Remaining": "7", "X-RateLimit-Reset": "1000000001"}, quota{7, 0}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var kv []string
			for k, v := range tt.h {
				kv = append(kv, k, v)
			}
			got, ok := parseQuota(header(kv...), now, false)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}
