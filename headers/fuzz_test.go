package headers_test

import (
	"net/http"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/internal/policyname"
)

// FuzzHeaders writes arbitrary two-policy decisions in every mode and
// parses the result: IETF fields must be valid Structured Field Lists that
// round-trip to the decision's (sanitised) names and numbers; the other
// modes must be plain non-negative integers; Retry-After must be at least 1
// and not earlier than the binding policy's t.
func FuzzHeaders(f *testing.F) {
	f.Add("burst", "steady", int64(10), int64(1000), int64(3), int64(700), int64(0), true, uint8(0), false)
	f.Add(`q"uo\te`, "日本", int64(1), int64(1), int64(-4), int64(-1), int64(-9), false, uint8(0), true)
	f.Add("", "\x00\r\n", int64(1<<62), int64(1<<40), int64(1<<62), int64(1<<62), int64(1<<62), false, uint8(1), true)
	f.Add("a", "b", int64(0), int64(0), int64(0), int64(0), int64(1), false, uint8(2), false)

	f.Fuzz(func(t *testing.T, name1, name2 string, limit, windowMs, remaining, resetMs, retryMs int64, allowed bool, mode uint8, all bool) {
		ms := func(n int64) time.Duration {
			if n > int64(time.Duration(1<<62)/time.Millisecond) || n < -int64(time.Duration(1<<62)/time.Millisecond) {
				n %= 1 << 40
			}
			return time.Duration(n) * time.Millisecond
		}
		p1 := core.Policy{Name: name1, Limit: limit, Window: ms(windowMs)}
		p2 := core.Policy{Name: name2, Limit: limit/2 + 1, Window: ms(windowMs) * 3}
		d := &core.Decision{Allowed: allowed, Policies: []core.Policy{p1, p2}, Index: int(uint64(remaining) % 2)}
		d.States()[0] = core.PolicyState{Allowed: allowed || remaining%3 == 0, Remaining: remaining, ResetAfter: ms(resetMs), RetryAfter: ms(retryMs)}
		d.States()[1] = core.PolicyState{Allowed: allowed, Remaining: remaining / 2, ResetAfter: ms(resetMs) * 2, RetryAfter: ms(retryMs) / 2}
		d.RetryAfter = d.States()[d.Index].RetryAfter

		h := http.Header{}
		set := func(name, value string) { h[name] = append(h[name], value) }
		w := headers.Writer{Mode: headers.Mode(mode % 5), AllPolicies: all, LegacyEpoch: mode&4 != 0, PartitionKey: mode&8 != 0}
		writeKey(w, set, d, name1, time.Unix(1_700_000_000, int64(retryMs)%1e9))
		headerfmt.WriteRetryAfter(set, d)

		for name, vals := range h {
			require.Len(t, vals, 1, "%s set twice", name)
		}
		switch w.Mode {
		case headers.Draft8:
			checkIETF(t, h, d, all, w.PartitionKey && name1 != "") // pk needs a key
		case headers.Draft7:
			checkDraftPolicy(t, h, d)
			checkDraft7(t, h, d)
		case headers.Draft6:
			checkDraftPolicy(t, h, d)
			checkTriple(t, h, "RateLimit-Policy", "RateLimit-Limit", "RateLimit-Remaining", "RateLimit-Reset")
		case headers.Legacy:
			checkTriple(t, h, "X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset")
		case headers.None:
			for name := range h {
				require.Equal(t, "Retry-After", name)
			}
		}
		ra, hasRA := h["Retry-After"]
		require.Equal(t, !allowed, hasRA)
		if hasRA {
			n := parseNonNegative(t, ra[0])
			require.GreaterOrEqual(t, n, int64(1))
			require.GreaterOrEqual(t, n, ceilSec(d.States()[d.Index].RetryAfter), "Retry-After earlier than the binding policy's t")
		}
	})
}

func checkIETF(t *testing.T, h http.Header, d *core.Decision, all, pk bool) {
	pol, err := parseSFList(get(h, "RateLimit-Policy"))
	require.NoError(t, err, "RateLimit-Policy %q", get(h, "RateLimit-Policy"))
	require.Len(t, pol, 2)
	for i, it := range pol {
		require.Equal(t, sanitise(nameOf(d.Policies[i])), it.Value)
		q := intParam(t, it, "q")
		require.Equal(t, clamp(d.Policies[i].Limit), q)
		require.GreaterOrEqual(t, intParam(t, it, "w"), int64(1))
		_, hasPK := it.Param("pk")
		require.Equal(t, pk, hasPK)
	}
	lim, err := parseSFList(get(h, "RateLimit"))
	require.NoError(t, err, "RateLimit %q", get(h, "RateLimit"))
	idx := []int{d.Index}
	if all {
		idx = []int{0, 1}
	}
	require.Len(t, lim, len(idx))
	for k, i := range idx {
		it := lim[k]
		require.Equal(t, sanitise(nameOf(d.Policies[i])), it.Value)
		r := intParam(t, it, "r")
		if !d.States()[i].Allowed {
			require.Equal(t, int64(0), r)
		} else {
			require.Equal(t, clamp(d.States()[i].Remaining), r)
		}
		// An allowed t forgives the stores' millisecond; a denial's never
		// rounds down.
		want := d.States()[i].ResetAfter - time.Millisecond
		if !d.States()[i].Allowed {
			want = d.States()[i].RetryAfter
		}
		require.Equal(t, ceilSec(want), intParam(t, it, "t"))
	}
}

func checkTriple(t *testing.T, h http.Header, names ...string) {
	require.Len(t, h, len(names)+len(h["Retry-After"]))
	for _, n := range names {
		if n != "RateLimit-Policy" {
			parseNonNegative(t, get(h, n))
		}
	}
}

// checkDraftPolicy checks the RateLimit-Policy of drafts 06 and 07: a List
// of quota Integers, each with w.
func checkDraftPolicy(t *testing.T, h http.Header, d *core.Decision) {
	pol, err := parseSFList(get(h, "RateLimit-Policy"))
	require.NoError(t, err, "RateLimit-Policy %q", get(h, "RateLimit-Policy"))
	require.Len(t, pol, 2)
	for i, it := range pol {
		require.Equal(t, clamp(d.Policies[i].Limit), it.Value)
		require.GreaterOrEqual(t, intParam(t, it, "w"), int64(1))
	}
}

// checkDraft7 checks the combined RateLimit of draft-07: a Dictionary of
// limit, remaining and reset for the binding policy.
func checkDraft7(t *testing.T, h http.Header, d *core.Decision) {
	require.Len(t, h, 2+len(h["Retry-After"]))
	keys, dict, err := parseSFDict(get(h, "RateLimit"))
	require.NoError(t, err, "RateLimit %q", get(h, "RateLimit"))
	require.Equal(t, []string{"limit", "remaining", "reset"}, keys)
	s := d.States()[d.Index]
	want := map[string]any{"limit": clamp(d.Policies[d.Index].Limit), "remaining": int64(0), "reset": ceilSec(s.RetryAfter)}
	if s.Allowed {
		want["remaining"], want["reset"] = clamp(s.Remaining), ceilSec(s.ResetAfter-time.Millisecond)
	}
	require.Equal(t, want, dict)
}

func nameOf(p core.Policy) string {
	if p.Name == "" {
		return policyname.Default(p.Window)
	}
	return p.Name
}

// sanitise is what a name must read back as: printable ASCII kept, every
// other character (a rune, or an invalid byte) one '_'.
func sanitise(s string) string {
	var out []byte
	for _, r := range s {
		if r >= 0x20 && r <= 0x7e {
			out = append(out, byte(r))
		} else {
			out = append(out, '_')
		}
	}
	return string(out)
}

func intParam(t *testing.T, it sfItem, key string) int64 {
	v, ok := it.Param(key)
	require.True(t, ok, "missing %s", key)
	n, ok := v.(int64)
	require.True(t, ok, "%s is %T, not an Integer", key, v)
	require.GreaterOrEqual(t, n, int64(0))
	return n
}

func parseNonNegative(t *testing.T, s string) int64 {
	require.NotEmpty(t, s)
	for i := 0; i < len(s); i++ {
		require.True(t, s[i] >= '0' && s[i] <= '9', "%q is not a plain non-negative integer", s)
	}
	n, err := strconv.ParseInt(s, 10, 64)
	require.NoError(t, err)
	return n
}

func clamp(n int64) int64 { return min(max(n, 0), 999_999_999_999_999) }

func ceilSec(d time.Duration) int64 {
	if d <= 0 {
		return 0
	}
	s := int64(d / time.Second)
	if d%time.Second != 0 {
		s++
	}
	return clamp(s)
}
