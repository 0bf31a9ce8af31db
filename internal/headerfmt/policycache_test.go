package headerfmt

import (
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

// TestPolicySetNeverStale changes a policy set in place (same slice, same
// first fingerprint) and from several goroutines: every field written must
// describe the policies as they are.
func TestPolicySetNeverStale(t *testing.T) {
	ps, err := policytest.Validate([]core.Policy{core.PerSecond(10).Named("burst"), core.PerMinute(600).Named(`st"eady`)})
	require.NoError(t, err)
	d := core.Decision{Allowed: true, Policies: ps}
	for limit := int64(1); limit <= 300; limit++ {
		ps[0].Limit = limit
		got := map[string]string{}
		new(Writer).Write(func(n, v string) { got[n] = v }, nil, &d, "", time.Time{})
		require.Equal(t, `"burst";q=`+strconv.FormatInt(limit, 10)+`;w=1, "st\"eady";q=600;w=60`, got[FieldPolicy])
	}

	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 2000; i++ {
				name := "p" + strconv.Itoa(i%200)
				own, err := policytest.Validate([]core.Policy{core.PerMinute(int64(i%7 + 1)).Named(name)})
				if err != nil {
					t.Error(err)
					return
				}
				var field string
				new(Writer).Write(func(n, v string) {
					if n == FieldPolicy {
						field = v
					}
				}, nil, &core.Decision{Allowed: true, Policies: own}, "", time.Time{})
				if want := `"` + name + `";q=` + strconv.Itoa(i%7+1) + `;w=60`; field != want {
					t.Errorf("got %q, want %q", field, want)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestPolicySetReused(t *testing.T) {
	ps, err := policytest.Validate([]core.Policy{core.PerSecond(10).Named("burst"), core.PerMinute(600).Named("steady")})
	require.NoError(t, err)
	d := core.Decision{Allowed: true, Policies: ps}
	var one onePolicy
	v := view(&d, &one)
	first := policySetFor(&v)
	allocs := testing.AllocsPerRun(100, func() {
		if policySetFor(&v) != first {
			panic("rebuilt")
		}
	})
	require.Zero(t, allocs)
}
