package client

import (
	"math"
	"net/http"
	"testing"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

// pairDecision builds a valid decision from fuzz input: n policies (1 to
// 4) of the given names, limits and windows, each with a state, completed
// the way a Limiter completes one (the binding policy is, on a denial, the
// denying one with the longest wait, else the one with least remaining).
func pairDecision(n int, names [4]string, limits [4]uint32, windows [4]uint64, allowed [4]bool, remaining [4]uint32, resets, retries [4]uint64) *core.Decision {
	const maxWindow = time.Duration(math.MaxInt64/3) / time.Millisecond * time.Millisecond
	d := &core.Decision{Policies: make([]core.Policy, n)}
	for i := range n {
		limit := max(int64(limits[i]), 1)
		window := time.Duration(windows[i]%uint64(maxWindow/time.Millisecond)+1) * time.Millisecond
		d.Policies[i] = core.Policy{Name: names[i], Limit: limit, Window: window}
	}
	states := d.States()
	for i := range n {
		s := &states[i]
		s.Allowed = allowed[i]
		s.Remaining = int64(remaining[i]) % (d.Policies[i].Limit + 1)
		// Waits of up to three windows, as a store reports them.
		s.ResetAfter = time.Duration(resets[i] % uint64(3*d.Policies[i].Window+1))
		if !s.Allowed {
			s.RetryAfter = time.Duration(retries[i]%uint64(3*d.Policies[i].Window)) + 1
		}
	}
	d.Allowed, d.Index = true, 0
	for i := range n {
		s, b := &states[i], &states[d.Index]
		if !s.Allowed {
			if d.Allowed || s.RetryAfter > b.RetryAfter {
				d.Index = i
			}
			d.Allowed = false
			continue
		}
		if d.Allowed && s.Remaining < b.Remaining {
			d.Index = i
		}
	}
	b := states[d.Index]
	d.Remaining, d.ResetAfter, d.RetryAfter, d.Limit = b.Remaining, b.ResetAfter, b.RetryAfter, d.Policies[d.Index].Limit
	return d
}

// FuzzWriterToParser sends arbitrary valid decisions through the header
// writer, in every layout, and its output through the transport's parser:
// the numbers read are the numbers written (the binding policy's r and t,
// rounded up as package headers documents), Retry-After is read as
// written and is never earlier than the decision's wait, and nothing
// panics.
func FuzzWriterToParser(f *testing.F) {
	f.Add(uint8(0), false, uint8(1), "burst", "", "", "", uint32(10), uint32(0), uint32(0), uint32(0), uint64(999), uint64(0), uint64(0), uint64(0),
		true, false, false, false, uint32(3), uint32(0), uint32(0), uint32(0), uint64(500_000_000), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), int64(1_772_366_400_333_700_000))
	f.Add(uint8(2), true, uint8(4), `a"b\c`, "é,x;r=0", "", "t=9", uint32(math.MaxUint32), uint32(1), uint32(5), uint32(7), uint64(math.MaxUint64), uint64(1), uint64(59_999), uint64(3_599_999),
		false, true, false, true, uint32(0), uint32(1), uint32(5), uint32(math.MaxUint32), uint64(math.MaxUint64), uint64(1), uint64(2), uint64(3), uint64(math.MaxUint64), uint64(1), uint64(1_000_000_001), uint64(999_999_999), int64(1_772_366_400_999_999_999))
	f.Add(uint8(4), false, uint8(2), "", "", "", "", uint32(1), uint32(1), uint32(0), uint32(0), uint64(0), uint64(0), uint64(0), uint64(0),
		true, true, false, false, uint32(0), uint32(0), uint32(0), uint32(0), uint64(1_000_000), uint64(1_000_001), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), uint64(0), int64(1_000_000_001_000_000_000))
	f.Fuzz(func(t *testing.T, mode uint8, all bool, n uint8, n0, n1, n2, n3 string, l0, l1, l2, l3 uint32, w0, w1, w2, w3 uint64,
		a0, a1, a2, a3 bool, r0, r1, r2, r3 uint32, z0, z1, z2, z3, y0, y1, y2, y3 uint64, nowNanos int64) {
		d := pairDecision(int(n%4)+1, [4]string{n0, n1, n2, n3}, [4]uint32{l0, l1, l2, l3}, [4]uint64{w0, w1, w2, w3},
			[4]bool{a0, a1, a2, a3}, [4]uint32{r0, r1, r2, r3}, [4]uint64{z0, z1, z2, z3}, [4]uint64{y0, y1, y2, y3})
		// A time the transport could receive a response at: from 2002
		// (a Unix time above 1e9, which is how X-RateLimit-Reset is told
		// from a delta) to 2200.
		now := time.Unix(0, 0).Add(time.Duration(uint64(nowNanos)%uint64(198*365*24*time.Hour)) + 32*365*24*time.Hour)
		w := headers.Writer{Mode: headers.Mode(mode % 5), AllPolicies: all}
		if w.Mode == headers.Legacy {
			w.LegacyEpoch = all
		}
		h := http.Header{"Date": {now.UTC().Format(http.TimeFormat)}}
		set := func(name, value string) { h.Set(name, value) }
		w.Write(set, d, now)
		headerfmt.WriteRetryAfter(set, d)

		q, ok := parseQuota(h, now, !d.Allowed)
		if w.Mode == headers.None {
			if ok {
				t.Fatalf("quota read from no fields: %v", h)
			}
		} else {
			want := reading(w, d, now)
			if w.Mode == headers.Legacy && !w.LegacyEpoch && want.reset > 1e9*time.Second {
				// A delta of over 31 years reads as a Unix time: the
				// two are told apart by size alone.
				t.Skip()
			}
			if !ok || q != want {
				t.Fatalf("read %+v (%v), wrote %+v in %v for %+v, index %d", q, ok, want, h, d.States(), d.Index)
			}
		}
		ra, told := parseRetryAfter(h, now)
		if told != !d.Allowed {
			t.Fatalf("Retry-After read %v, denied %v: %v", told, !d.Allowed, h)
		}
		if told {
			if ra != time.Duration(headerfmt.RetryAfterSeconds(d))*time.Second || ra < d.RetryAfter || ra-d.RetryAfter >= time.Second && ra > time.Second {
				t.Fatalf("Retry-After read %v for a wait of %v: %v", ra, d.RetryAfter, h)
			}
		}
	})
}
