package memory_test

import (
	"context"
	"fmt"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// An in-memory store for one process, capped at 100,000 tracked keys so a
// flood of distinct clients cannot grow it without bound.
func ExampleNew() {
	limiter, err := core.NewLimiter(
		memory.New(memory.WithMaxKeys(100_000)),
		[]core.Policy{core.PerMinute(2)},
	)
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 3 {
		d, _ := limiter.Allow(ctx, "user-42")
		fmt.Println(d.Allowed, d.Remaining, d.RetryAfter > 0)
	}
	// Output:
	// true 1 false
	// true 0 false
	// false 0 true
}
