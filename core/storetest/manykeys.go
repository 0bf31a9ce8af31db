package storetest

import (
	"context"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// runManyKeys: a store keeps the counts of every key while they count,
// however many keys it tracks; here 3000, each under a policy of every
// algorithm. (A store that bounds its memory by forgetting keys must be
// given room for them to run the suite.)
func runManyKeys(t *testing.T, s core.Store) {
	ctx := context.Background()
	const keys = 3000
	ps := validated(t,
		core.PerMinute(1).Named("f").Using(core.FixedWindow),
		core.PerMinute(1).Named("s").Using(core.SlidingWindow),
		core.PerMinute(1).Named("l").Using(core.SlidingLog),
	)
	for round, want := range []bool{true, false} {
		for i := 0; i < keys; i++ {
			r, err := s.Take(ctx, "many-"+strconv.Itoa(i), ps, 1, at(int64(round)*time.Second.Milliseconds()))
			require.NoError(t, err)
			for j := range ps {
				require.Equal(t, want, r.States[j].Allowed, "key %d of %d, request %d, policy %s", i, keys, round+1, ps[j].Name)
			}
		}
	}
}
