package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runPolicyIdentity: a key's counts under a policy belong to the policy's
// Name, Window and Algorithm. Policies that share a Window and an
// Algorithm but not a Name (a burst and a steady policy over one minute,
// or two limiters over one store) never share counts, whether they come
// in separate calls or in one; nor do policies of one Name with another
// Window or Algorithm (a policy reconfigured, or two limiters that reuse
// a name, or a copy of a policy changed through its fields), nor a key
// and a name that join into another's. And a policy's
// counts do not depend on the policies it comes with: a limiter that
// gains or loses a policy keeps the others' counts.
func runPolicyIdentity(t *testing.T, s core.Store) {
	ctx := context.Background()
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		p := validated(t, core.Per(2, time.Minute).Named("a").Using(alg))
		key := fmt.Sprintf("identity-%v", alg)
		for i, want := range []bool{true, true, false} {
			r, err := s.Take(ctx, key, p, 1, at(0))
			require.NoError(t, err)
			require.Equal(t, want, r.States[0].Allowed, "%v: request %d under %s", alg, i, p[0].Name)
		}
		others := map[string][]core.Policy{
			"another name":      validated(t, core.Per(2, time.Minute).Named("b").Using(alg)),
			"another window":    validated(t, core.Per(2, 2*time.Minute).Named("a").Using(alg)),
			"another algorithm": validated(t, core.Per(2, time.Minute).Named("a").Using(core.Algorithm((int(alg)+1)%3))),
		}
		// A Limiter's policy changed through its fields, as a store
		// decorator may rename one, is the policy its fields say.
		renamed := append([]core.Policy(nil), p...)
		renamed[0].Name = "c"
		others["a copy renamed through its field"] = renamed
		rewindowed := append([]core.Policy(nil), p...)
		rewindowed[0].Window = 3 * time.Minute
		others["a copy given another Window through its field"] = rewindowed
		for what, q := range others {
			r, err := s.Take(ctx, key, q, 2, at(0))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed, "%v: a policy of %s (%v) shares the counts of %v", alg, what, q[0], p[0])
		}

		// In one call, each policy counts each request once.
		both := validated(t, core.Per(3, time.Minute).Named("burst").Using(alg), core.Per(5, time.Minute).Named("steady").Using(alg))
		key += "-both"
		for i := 0; i < 3; i++ {
			r, err := s.Take(ctx, key, both, 1, at(0))
			require.NoError(t, err)
			require.True(t, r.States[0].Allowed && r.States[1].Allowed, "%v: request %d", alg, i)
			require.Equal(t, int64(2-i), r.States[0].Remaining, "%v: request %d", alg, i)
			require.Equal(t, int64(4-i), r.States[1].Remaining, "%v: request %d: steady shares burst's counts", alg, i)
		}
		r, err := s.Take(ctx, key, both, 1, at(0))
		require.NoError(t, err)
		require.False(t, r.States[0].Allowed)
		require.True(t, r.States[1].Allowed, "%v: steady shares burst's counts", alg)
		require.Equal(t, int64(2), r.States[1].Remaining, alg)

		// A key and a name that join into another's key and name.
		joined := validated(t, core.Per(2, time.Minute).Named("a:b").Using(alg))
		r, err = s.Take(ctx, "u:a", validated(t, core.Per(2, time.Minute).Named("b").Using(alg)), 2, at(0))
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed)
		r, err = s.Take(ctx, "u", joined, 2, at(0))
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed, "%v: key %q under %q shares the counts of key %q under %q", alg, "u", "a:b", "u:a", "b")

		// One policy, alone and with others, in any order: one count.
		a := validated(t, core.Per(3, time.Minute).Named("a").Using(alg))[0]
		h := validated(t, core.PerHour(100).Named("h"))[0]
		d := validated(t, core.Per(1000, 24*time.Hour).Named("d").Using(core.FixedWindow))[0]
		key += "-sets"
		for i, ps := range [][]core.Policy{{a}, {a, h}, {h, d, a}} {
			r, err := s.Take(ctx, key, ps, 1, at(0))
			require.NoError(t, err)
			j := len(ps) - 1
			if i == 1 {
				j = 0
			}
			require.True(t, r.States[j].Allowed, "%v: call %d", alg, i)
			require.Equal(t, int64(2-i), r.States[j].Remaining, "%v: call %d: the counts of %s depend on the policies it comes with", alg, i, a.Name)
		}
		r, err = s.Peek(ctx, key, []core.Policy{d, h}, 1, at(0))
		require.NoError(t, err)
		require.Equal(t, int64(999), r.States[0].Remaining, "%v: %s", alg, d.Name)
		require.Equal(t, int64(98), r.States[1].Remaining, "%v: %s", alg, h.Name)
	}
}
