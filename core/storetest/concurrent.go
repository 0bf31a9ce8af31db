package storetest

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

// runConcurrent: goroutines racing for one key are admitted exactly the
// limit, at one instant and again at each later window, where the first
// call finds the previous window's counts to move on from, while another
// peeks at the key all along; the denied ones are charged to no policy.
// With one policy and with two: a store may serve one policy on a path of
// its own. In the last round the calls move on a millisecond at a time.
func runConcurrent(t *testing.T, newStore func(t *testing.T) core.Store) {
	for _, alg := range []core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog} {
		for _, several := range []bool{false, true} {
			name := alg.String() + "/one-policy"
			raw := []core.Policy{core.PerMinute(50).Using(alg)}
			if several {
				name = alg.String() + "/two-policies"
				raw = append(raw, core.PerHour(1000).Named("hourly").Using(core.FixedWindow))
			}
			t.Run(name, func(t *testing.T) {
				ps, err := policytest.Validate(raw)
				require.NoError(t, err)
				runConcurrentRounds(t, newStore(t), ps)
			})
		}
	}
}

// runConcurrentRounds races goroutines for one key under ps (a policy of
// 50 a minute, perhaps an hourly one of 1000) in rounds two minutes apart.
func runConcurrentRounds(t *testing.T, s core.Store, ps []core.Policy) {
	const goroutines, each, rounds = 8, 25, 5
	var now int64
	for round := int64(0); round < rounds; round++ {
		// Two windows on: the sliding counter's previous bucket is out
		// of its window too.
		now = 1000 + round*2*time.Minute.Milliseconds()
		// The last round's calls move on a millisecond each, all within
		// the window.
		spread := int64(0)
		if round == rounds-1 {
			spread = 1
		}
		var allowed atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, goroutines)
		for g := 0; g < goroutines; g++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < each; i++ {
					r, err := s.Take(context.Background(), "hot", ps, 1, at(now+spread*int64(i)))
					if err != nil {
						errs <- err
						return
					}
					all := true
					for j := range ps {
						all = all && r.States[j].Allowed
					}
					if all {
						allowed.Add(1)
					}
				}
			}()
		}
		// A caller peeking all along changes nothing.
		done, peeked := make(chan struct{}), make(chan error, 1)
		go func() {
			for {
				select {
				case <-done:
					peeked <- nil
					return
				default:
				}
				if _, err := s.Peek(context.Background(), "hot", ps, 1, at(now)); err != nil {
					peeked <- err
					return
				}
			}
		}()
		wg.Wait()
		close(done)
		require.NoError(t, <-peeked)
		close(errs)
		for err := range errs {
			require.NoError(t, err)
		}
		require.Equal(t, int64(50), allowed.Load(), "round %d", round)
	}
	if len(ps) > 1 {
		r, err := s.Peek(context.Background(), "hot", ps, 1, at(now))
		require.NoError(t, err)
		require.Equal(t, int64(1000-50*rounds), r.States[1].Remaining, "hourly charged for denied requests")
	}
}
