package resilient_test

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/resilient"
)

// down is a primary store that always fails, like an unreachable Redis.
type down struct{}

var errUnreachable = errors.New("dial tcp 127.0.0.1:6379: connection refused")

func (down) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errUnreachable
}

func (down) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errUnreachable
}

func (down) Reset(context.Context, string, []core.Policy) error { return errUnreachable }

// While the primary store is down, decisions come from the local fallback:
// 10 per minute shared by 5 instances is 2 per minute for this one.
func Example() {
	store, err := resilient.New(down{},
		resilient.WithFailureThreshold(3),
		resilient.WithFallback(5),
		resilient.WithOnStateChange(func(from, to resilient.State) { fmt.Println("breaker:", from, "->", to) }),
	)
	if err != nil {
		panic(err)
	}
	limiter, err := core.NewLimiter(store, []core.Policy{core.PerMinute(10)})
	if err != nil {
		panic(err)
	}
	for range 4 {
		d, err := limiter.Allow(context.Background(), "client-1")
		fmt.Println(d.Allowed, err)
	}
	// Output:
	// true <nil>
	// true <nil>
	// breaker: closed -> open
	// false <nil>
	// false <nil>
}
