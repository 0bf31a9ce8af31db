package client

import (
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

var now = time.Date(2019, 8, 5, 9, 27, 0, 0, time.UTC)

func header(kv ...string) http.Header {
	h := http.Header{}
	for i := 0; i < len(kv); i += 2 {
		h.Set(kv[i], kv[i+1])
	}
	return h
}

func TestParseQuotaDialects(t *testing.T) {
	tests := []struct {
		name string
		h    http.Header
		want quota
		ok   bool
	}{
		{"draft-08", header("RateLimit-Policy", `"basic";q=100;w=60`, "RateLimit", `"basic";r=60;t=58`), quota{60, 58 * time.Second}, true},
		{"draft-08 token name", header("RateLimit", `default;r=50;t=30`), quota{50, 30 * time.Second}, true},
		{"draft-08 with pk", header("RateLimit", `"default";r=300000000;t=60;pk=:QXBwLTk5OQ==:`), quota{300000000, time.Minute}, true},
		{"draft-08 most restrictive of several", header("RateLimit", `"burst";r=3;t=1, "day";r=0;t=36000, "hour";r=0;t=600`), quota{0, 36000 * time.Second}, true},
		{"draft-08 name with comma and semicolon", header("RateLimit", `"a,b;r=9";r=2;t=4`), quota{2, 4 * time.Second}, true},
		{"draft-08 name with an escaped quote", header("RateLimit", `"a\",b";r=2;t=4, "c";r=5;t=1`), quota{2, 4 * time.Second}, true},
		// t is optional from draft-08 on: a policy without it says what
		// is left, and no reset (read as none to wait for).
		{"draft-08 without t", header("RateLimit", `"default";r=999;pk=:dHJpYWwxMjEzMjM=:`), quota{999, 0}, true},
		{"draft-08 used up without t is the most restrictive", header("RateLimit", `"a";r=0, "b";r=5;t=10`), quota{0, 0}, true},
		{"draft-08 equally little, the one with a t waits longer", header("RateLimit", `"a";r=0, "b";r=0;t=10`), quota{0, 10 * time.Second}, true},
		{"draft-08 without r says nothing", header("RateLimit", `"a";t=10`), quota{}, false},
		// The fields of a response from a cache are stale: the drafts
		// say to ignore them when its current age is positive.
		{"from a cache", header("Age", "30", "RateLimit", `"p";r=0;t=30`), quota{}, false},
		{"from a cache, legacy", header("Age", " 5 ", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "9"), quota{}, false},
		{"fresh from a cache", header("Age", "0", "RateLimit", `"p";r=0;t=30`), quota{0, 30 * time.Second}, true},
		{"unreadable Age", header("Age", "soon", "RateLimit", `"p";r=0;t=30`), quota{0, 30 * time.Second}, true},
		{"draft-07", header("RateLimit", "limit=100, remaining=25, reset=5", "RateLimit-Policy", "100;w=60"), quota{25, 5 * time.Second}, true},
		{"draft-07 any order", header("RateLimit", "reset=50,limit=100,remaining=99"), quota{99, 50 * time.Second}, true},
		{"draft-07 without reset", header("RateLimit", "limit=100, remaining=25"), quota{}, false},
		{"draft-06", header("RateLimit-Limit", "100", "RateLimit-Remaining", "0", "RateLimit-Reset", "48"), quota{0, 48 * time.Second}, true},
		{"legacy delta", header("X-RateLimit-Limit", "600", "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "13"), quota{0, 13 * time.Second}, true},
		{"legacy epoch, against Date", header("X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "1565000000", "Date", "Mon, 05 Aug 2019 10:13:00 GMT"), quota{7, 20 * time.Second}, true},
		{"legacy epoch, against now", header("X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "1565000000"), quota{7, time.Unix(1565000000, 0).Sub(now)}, true},
		{"legacy epoch in the past", header("X-RateLimit-Remaining", "7", "X-RateLimit-Reset", "1500000000"), quota{7, 0}, true},
		// Several dialects are several limits (a gateway's and the
		// application's): the most restrictive wins, whichever it is.
		{"draft-08 stricter than legacy", header("RateLimit", `"p";r=1;t=2`, "X-RateLimit-Remaining", "9", "X-RateLimit-Reset", "9"), quota{1, 2 * time.Second}, true},
		{"legacy stricter than draft-08", header("RateLimit", `"app";r=100;t=60`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "30"), quota{0, 30 * time.Second}, true},
		{"draft-06 stricter than draft-07", header("RateLimit", "limit=100, remaining=25, reset=5", "RateLimit-Remaining", "0", "RateLimit-Reset", "7"), quota{0, 7 * time.Second}, true},
		{"equally little, the longer reset", header("RateLimit", `"app";r=0;t=5`, "X-RateLimit-Remaining", "0", "X-RateLimit-Reset", "1565000000", "Date", "Mon, 05 Aug 2019 10:13:00 GMT"), quota{0, 20 * time.Second}, true},
		{"garbage falls back", header("RateLimit", "nonsense", "RateLimit-Remaining", "3", "RateLimit-Reset", "4"), quota{3, 4 * time.Second}, true},
		{"negative", header("RateLimit-Remaining", "-1", "RateLimit-Reset", "4"), quota{}, false},
		{"none", header(), quota{}, false},
		{"huge t does not overflow", header("RateLimit", `"p";r=0;t=999999999999999`), quota{0, seconds(999999999999999)}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseQuota(tt.h, now, false)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// A Structured Field may be split over several field lines (RFC 9651,
// section 4.2): a server that writes one RateLimit line per policy still
// has its most restrictive policy honoured.
func TestParseQuotaSeveralFieldLines(t *testing.T) {
	h := http.Header{}
	h.Add("RateLimit", `"minute";r=50;t=30`)
	h.Add("RateLimit", `"second";r=0;t=1`)
	q, ok := parseQuota(h, now, false)
	assert.True(t, ok)
	assert.Equal(t, quota{0, time.Second}, q)

	h = http.Header{}
	h.Add("RateLimit", "limit=100, remaining=25")
	h.Add("RateLimit", "reset=5")
	q, ok = parseQuota(h, now, false)
	assert.True(t, ok)
	assert.Equal(t, quota{25, 5 * time.Second}, q)
}

func TestParseRetryAfter(t *testing.T) {
	tests := []struct {
		name string
		h    http.Header
		want time.Duration
		ok   bool
	}{
		{"delta", header("Retry-After", "120"), 2 * time.Minute, true},
		{"zero", header("Retry-After", "0"), 0, true},
		// The draft-06 example: Date 09:27:00, Retry-After 09:27:05.
		{"HTTP-date against Date", header("Date", "Mon, 05 Aug 2019 09:27:00 GMT", "Retry-After", "Mon, 05 Aug 2019 09:27:05 GMT"), 5 * time.Second, true},
		{"HTTP-date against now", header("Retry-After", "Mon, 05 Aug 2019 09:27:07 GMT"), 7 * time.Second, true},
		{"HTTP-date in the past", header("Retry-After", "Mon, 05 Aug 2019 09:00:00 GMT"), 0, true},
		{"RFC 850 date", header("Retry-After", "Monday, 05-Aug-19 09:27:03 GMT"), 3 * time.Second, true},
		{"negative", header("Retry-After", "-5"), 0, false},
		{"garbage", header("Retry-After", "soon"), 0, false},
		{"absent", header(), 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := parseRetryAfter(tt.h, now)
			assert.Equal(t, tt.ok, ok)
			assert.Equal(t, tt.want, got)
		})
	}
}

// update records a response, as one request's sent and done would.
func (s *state) update(q quota, now time.Time) { s.done(q, true, now, s.sent(), nil, false) }

// use is a request that takes key's state at now and is done with it.
func (ss *states) use(key string, now time.Time) *state {
	s := ss.get(key, now)
	s.release(now)
	return s
}

// wait is how long reserve tells a request to wait.
func (s *state) wait(now time.Time) time.Duration { return s.reserve(now, defaultProbeWait).wait }

func TestStateReserve(t *testing.T) {
	var s state
	assert.Zero(t, s.wait(now), "unknown quota: go")
	s.update(quota{remaining: 2, reset: 10 * time.Second}, now)
	assert.Zero(t, s.wait(now))
	assert.Zero(t, s.wait(now))
	assert.Equal(t, 7*time.Second+resetMargin, s.wait(now.Add(3*time.Second)), "used up: wait for the reset, and the margin")
	assert.Equal(t, resetMargin, s.wait(now.Add(10*time.Second)), "the reset is not passed before the margin")
	tk := s.reserve(now.Add(10*time.Second+resetMargin), defaultProbeWait)
	assert.NotNil(t, tk.probe, "reset passed: one request goes first")
	s.done(quota{remaining: 4, reset: 10 * time.Second}, true, now.Add(11*time.Second), s.sent(), tk.probe, false)
	s.block(now, time.Minute)
	assert.Equal(t, 30*time.Second, s.wait(now.Add(30*time.Second)))
	s.block(now, time.Second)
	assert.Equal(t, 30*time.Second, s.wait(now.Add(30*time.Second)), "a shorter block never shortens a longer one")
}

// Whatever a server sends, reading it never panics and never yields a
// negative count or wait.
func FuzzParse(f *testing.F) {
	for _, s := range []string{`"p";r=1;t=2`, "limit=1, remaining=0, reset=9", `"a\",b";r=2;t=4, c;r=0`, "", `"`, `\`, "9999999999999999999", "Mon, 05 Aug 2019 09:27:05 GMT"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		h := header("RateLimit", a, "RateLimit-Remaining", b, "RateLimit-Reset", a,
			"X-RateLimit-Remaining", a, "X-RateLimit-Reset", b, "Retry-After", a, "Date", b)
		if q, ok := parseQuota(h, now, false); ok && (q.remaining < 0 || q.reset < 0) {
			t.Fatalf("negative quota %+v", q)
		}
		if d, ok := parseRetryAfter(h, now); ok && d < 0 {
			t.Fatalf("negative wait %v", d)
		}
	})
}

func countStates(ss *states) int {
	n := 0
	ss.m.Range(func(_, _ any) bool { n++; return true })
	return n
}

// A transport that talks to ever new hosts (a crawler, a webhook sender)
// keeps the states of the recent ones only: its memory does not grow with
// the number of hosts it has ever seen.
func TestStatesForgetIdleKeys(t *testing.T) {
	var ss states
	at := now
	for i := range 200_000 {
		at = at.Add(5 * time.Millisecond) // 200 new hosts a second
		s := ss.use("host-"+strconv.Itoa(i), at)
		switch i % 3 {
		case 0:
			s.update(quota{remaining: 5, reset: 10 * time.Second}, at)
		case 1:
			s.block(at, 30*time.Second)
		}
	}
	// About 12,000 hosts were seen in the last minute; the rest hold
	// nothing any more.
	assert.Less(t, countStates(&ss), 40_000)
	assert.Equal(t, int64(countStates(&ss)), ss.size.Load())

	// A state that still holds a wait is kept while it matters, and a
	// used one is the same state on the next request.
	s := ss.use("busy", at)
	s.block(at, 10*time.Minute)
	for i := range 10_000 {
		at = at.Add(time.Millisecond)
		ss.use("later-"+strconv.Itoa(i), at)
	}
	at = at.Add(2 * time.Minute)
	for i := range 200_000 {
		ss.use("again-"+strconv.Itoa(i), at)
	}
	assert.Same(t, s, ss.use("busy", at))
	assert.Positive(t, s.wait(at))
}

// Sweeps run while other goroutines take and update states: no race, and
// the count of entries stays exact.
func TestStatesSweepConcurrently(t *testing.T) {
	var ss states
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			at := now
			for i := range 5000 {
				at = at.Add(50 * time.Millisecond)
				s := ss.get(strconv.Itoa(g)+"-"+strconv.Itoa(i%2500), at)
				s.wait(at)
				s.update(quota{remaining: 1, reset: time.Second}, at)
				s.release(at)
			}
		}()
	}
	wg.Wait()
	assert.Equal(t, int64(countStates(&ss)), ss.size.Load())
}
