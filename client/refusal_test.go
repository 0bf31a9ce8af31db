package client

import (
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A reset sent without the remaining count (draft-07 makes remaining
// optional, drafts 00 to 06 RateLimit-Remaining) says how much is left only
// on a refusal: none, until the reset. On any other response it is not
// read; a remaining count that is there and unreadable spoils the field
// either way.
func TestResetWithoutRemaining(t *testing.T) {
	tests := []struct {
		name    string
		h       http.Header
		refused bool
		want    quota
		ok      bool
	}{
		{"draft-07 refused", header("RateLimit", "limit=100, reset=30"), true, quota{0, 30 * time.Second}, true},
		{"draft-07 allowed", header("RateLimit", "limit=100, reset=30"), false, quota{}, false},
		{"draft-07 unreadable remaining", header("RateLimit", "limit=100, remaining=x, reset=30"), true, quota{}, false},
		{"draft-07 without reset", header("RateLimit", "limit=100"), true, quota{}, false},
		{"draft-06 refused", header("RateLimit-Limit", "100", "RateLimit-Reset", "48"), true, quota{0, 48 * time.Second}, true},
		{"draft-06 allowed", header("RateLimit-Limit", "100", "RateLimit-Reset", "48"), false, quota{}, false},
		{"draft-06 unreadable remaining", header("RateLimit-Remaining", "-1", "RateLimit-Reset", "48"), true, quota{}, false},
		{"legacy refused", header("X-RateLimit-Reset", "13"), true, quota{0, 13 * time.Second}, true},
		{"legacy Unix time refused", header("X-RateLimit-Reset", "1565000000", "Date", "Mon, 05 Aug 2019 10:13:00 GMT"), true, quota{0, 20 * time.Second}, true},
		{"legacy allowed", header("X-RateLimit-Reset", "13"), false, quota{}, false},
		// r is required from draft-08 on: an item without it is
		// malformed, refusal or not.
		{"draft-08 without r refused", header("RateLimit", `"p";t=10`), true, quota{}, false},
		{"refused, a stated remaining is kept", header("RateLimit", "limit=100, remaining=3, reset=30"), true, quota{3, 30 * time.Second}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseQuota(tt.h, now, tt.refused)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A 429 whose only word on when to come back is a draft-07 reset without
// remaining is retried after that reset, not after a half-second backoff
// into another 429, and the key's next request waits for it too.
func TestRefusalWithResetButNoRemaining(t *testing.T) {
	var calls atomic.Int64
	tr, err := New(rtFunc(func(req *http.Request) (*http.Response, error) {
		h := http.Header{}
		status := http.StatusOK
		if calls.Add(1) == 1 {
			status = http.StatusTooManyRequests
			h.Set("RateLimit", "limit=100, reset=3")
		} else {
			h.Set("RateLimit", "limit=100, remaining=0, reset=4")
		}
		return &http.Response{StatusCode: status, Header: h, Body: http.NoBody, Request: req}, nil
	}), WithJitter(0))
	require.NoError(t, err)
	waits := fakeTime(tr)
	for range 2 {
		req, err := http.NewRequest("GET", "http://api.example/", nil)
		require.NoError(t, err)
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode)
	}
	require.Equal(t, int64(3), calls.Load())
	assert.Equal(t, []time.Duration{3 * time.Second, resetMargin, 4*time.Second + resetMargin}, *waits,
		"the retry waits the reset (and the margin paced), the next request the new reset")
}
