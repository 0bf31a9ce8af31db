package storetest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runIsolation: keys that differ (in a byte, in case, by a trailing
// space) never share counts, nor does one key under another policy.
func runIsolation(t *testing.T, s core.Store) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := policy(alg, 2, time.Minute)
		keys := []string{"a-" + alg.String(), "b-" + alg.String(), "a-" + alg.String() + " ", "A-" + alg.String()}
		for _, k := range keys {
			for i, want := range []bool{true, true, false} {
				r, err := s.Take(ctx, k, ps, 1, at(0))
				require.NoError(t, err)
				require.Equal(t, want, r.States[0].Allowed, "key %q request %d", k, i)
			}
		}
		// Same key, another policy: separate counts.
		other := policy(alg, 2, 2*time.Minute)
		r, err := s.Take(ctx, keys[0], other, 2, at(0))
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed)
	}
}

// runIsolationTricky: keys that are prefixes of one another, or hold
// characters a store might treat specially (separators, glob and hash-tag
// characters, NUL, non-ASCII, bytes that are not UTF-8, a long key), or
// long keys that differ only in their last byte (past where a store might
// cut them), never share counts, and Reset of one leaves the others alone.
func runIsolationTricky(t *testing.T, s core.Store) {
	ctx := context.Background()
	keys := []string{"a", "ab", "a:", "a:b", "a*", "a?", "a[b]", "{a}", "a{", "a}", "{a}b", "a\x00", "a\x00b", "a\n", "é", "e\u0301", " a", string(make([]byte, 5000)),
		// Not UTF-8: a header can carry any byte.
		"\xff", "\xfe", "a\xff", "a\xc3", "\xed\xa0\x80"}
	for _, n := range []int{200, 1000, 1 << 16} {
		long := strings.Repeat("k", n)
		keys = append(keys, long+"a", long+"b")
	}
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		ps := validated(t, core.Per(2, time.Minute).Using(alg), core.Per(5, time.Hour).Named("h").Using(core.Algorithm((int(alg)+1)%3)))
		for _, k := range keys {
			r, err := s.Take(ctx, k, ps, 2, at(0))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed && r.States[1].Allowed, "%v: key %q shares counts with another", alg, k)
		}
		for i, k := range keys {
			if i%2 == 0 {
				require.NoError(t, s.Reset(ctx, k, ps))
			}
		}
		for i, k := range keys {
			r, err := s.Peek(ctx, k, ps, 1, at(1))
			require.NoError(t, err)
			require.Equal(t, i%2 == 0, r.States[0].Allowed, "%v: key %q after resetting every other key", alg, k)
		}
		for _, k := range keys {
			require.NoError(t, s.Reset(ctx, k, ps))
		}
	}
}
