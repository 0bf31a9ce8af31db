package oracle

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

// Base is an instant aligned to every window core/storetest and
// CheckSequence use.
var Base = time.UnixMilli(1_800_000_000_000)

// At is the instant ms milliseconds after Base.
func At(ms int64) time.Time { return Base.Add(time.Duration(ms) * time.Millisecond) }

// AddSeeds adds to f a seed corpus for CheckSequence: sequences that reach
// every algorithm, several policies at once and window boundaries. Every
// store's fuzz target starts from the same seeds, which also run as
// ordinary tests.
func AddSeeds(f *testing.F) {
	f.Add([]byte{0})
	f.Add([]byte{0, 0, 3, 9, 10, 0, 1, 10, 0, 2, 10, 0, 3, 200, 1, 1, 250, 2, 0, 0, 0})
	f.Add([]byte{2, 1, 7, 20, 2, 2, 5, 0, 7, 39, 5, 64, 1, 5, 128, 2, 5, 192, 0, 63, 1, 1})
	f.Add([]byte("the sliding log, the fixed window and the sliding counter all agree with the oracle"))
}

// CheckSequence decodes data into a set of policies and a sequence of
// calls, replays them against s and against an oracle written from the
// algorithm definitions, and fails t at the first result that differs or
// that breaks an invariant (RetryAfter positive exactly when a policy
// denies, and never more than two windows; Remaining within 0..Limit). Any
// byte string is a valid input, which makes it a fuzz target's body:
//
//	func FuzzStore(f *testing.F) {
//		oracle.AddSeeds(f)
//		f.Fuzz(func(t *testing.T, data []byte) {
//			oracle.CheckSequence(t, memory.New(), data)
//		})
//	}
//
// Windows are kept to tens of milliseconds so the oracle stays fast.
func CheckSequence(t testing.TB, s core.Store, data []byte) {
	t.Helper()
	if err := Replay(s, data); err != nil {
		t.Fatal(err)
	}
}

// Replay is CheckSequence's body: it returns the first difference or
// broken invariant as an error instead of failing a test, for a caller
// that judges the run before it fails (a run on a stalled machine may be
// run again).
func Replay(s core.Store, data []byte) error {
	next := func() byte {
		if len(data) == 0 {
			return 0
		}
		b := data[0]
		data = data[1:]
		return b
	}
	n := 1 + int(next()%3)
	raw := make([]core.Policy, n)
	minLimit := int64(core.MaxLimit)
	for i := range raw {
		alg := core.Algorithm(next() % 3)
		limit := 1 + int64(next()%8)
		window := time.Duration(1+next()%40) * time.Millisecond
		raw[i] = core.Per(limit, window).Using(alg).Named("p" + strconv.Itoa(i))
		minLimit = min(minLimit, limit)
	}
	policies, err := policytest.Validate(raw)
	if err != nil {
		return fmt.Errorf("decoded policies are invalid: %w", err)
	}
	ctx := context.Background()
	// The oracle sees absolute Unix milliseconds, as the stores do: Base is
	// aligned only to the suite's own windows, not to the ones decoded here.
	o := New()
	now := int64(0)
	for step := 0; len(data) >= 3 && step < 400; step++ {
		a, b, c := next(), next(), next()
		now += int64(a % 64)
		key := "k" + strconv.Itoa(int(b%3))
		cost := 1 + int64(c)%min(3, minLimit)
		var got core.Result
		var want core.Result
		switch b >> 6 {
		case 3:
			got, err = s.Peek(ctx, key, policies, cost, At(now))
			want = o.Take(key, policies, cost, Base.UnixMilli()+now, false)
		case 2:
			if c&1 == 1 {
				if err = s.Reset(ctx, key, policies); err != nil {
					return fmt.Errorf("step %d: Reset: %w", step, err)
				}
				o.Reset(key, policies)
				continue
			}
			fallthrough
		default:
			got, err = s.Take(ctx, key, policies, cost, At(now))
			want = o.Take(key, policies, cost, Base.UnixMilli()+now, true)
		}
		if err != nil {
			return fmt.Errorf("step %d: %w", step, err)
		}
		if got != want {
			return fmt.Errorf("step %d (%s, cost %d, t=%dms, policies %v):\n got  %+v\n want %+v", step, key, cost, now, policies, got.States[:n], want.States[:n])
		}
		for i, st := range got.States[:n] {
			p := policies[i]
			if st.Allowed == (st.RetryAfter > 0) || st.RetryAfter > 2*p.Window || st.Remaining < 0 || st.Remaining > p.Limit {
				return fmt.Errorf("step %d: policy %s: state %+v breaks an invariant", step, p.Name, st)
			}
		}
	}
	return nil
}
