package memory_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// An in-memory store for one process, capped at 100,000 tracked keys so a
// flood of distinct clients cannot grow it without bound.
func ExampleNew() {
	clock := clocktest.New(time.UnixMilli(1_800_000_000_000))
	limiter, err := core.NewLimiter(
		memory.New(memory.WithMaxKeys(100_000)),
		[]core.Policy{core.PerMinute(2).Using(core.FixedWindow)},
		core.WithClock(clock),
	)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 3 {
		d, _ := limiter.Allow(ctx, "user-42")
		fmt.Println(d.Allowed, d.Remaining, d.RetryAfter)
	}
	clock.Advance(time.Minute) // the next window starts with a fresh count
	d, _ := limiter.Allow(ctx, "user-42")
	fmt.Println(d.Allowed, d.Remaining, d.RetryAfter)
	// Output:
	// true 1 0s
	// true 0 0s
	// false 0 1m0s
	// true 1 0s
}
