package core_test

import (
	"context"
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

// A burst limit and a steady one: a request is admitted only if every
// policy allows it, and the decision reports the binding policy.
func ExampleLimiter() {
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{
		core.Per(2, 10*time.Second).Named("burst"),
		core.PerMinute(100).Named("steady").Using(core.SlidingLog),
	})
	if err != nil {
		panic(err)
	}
	for range 3 {
		d, _ := limiter.Allow(context.Background(), "user-42")
		fmt.Println(d.Allowed, d.Policy().Name, d.Remaining, d.RetryAfter > 0)
	}
	// Output:
	// true burst 1 false
	// true burst 0 false
	// false burst 0 true
}

// manualClock is a core.Clock that moves only when told, to show in a few
// lines what happens over time. It is not safe for concurrent use. Limiters
// in production keep the default, the system clock.
type manualClock struct{ now time.Time }

func (c *manualClock) Now() time.Time { return c.now }

// RetryAfter is honest: a client that waits exactly that long is let in,
// and one that comes back sooner is not. Under the default sliding window
// counter it is often shorter than the rest of the window: two requests at
// the start of one window weigh half as much halfway through the next.
func ExampleDecision_retryAfter() {
	clock := &manualClock{now: time.Date(2030, 1, 1, 12, 0, 0, 0, time.UTC)}
	limiter, err := core.NewLimiter(memory.New(), []core.Policy{core.PerSecond(2)}, core.WithClock(clock))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 3 {
		d, _ := limiter.Allow(ctx, "user-42")
		fmt.Println(d.Allowed, d.Remaining, d.RetryAfter)
	}
	clock.now = clock.now.Add(1499 * time.Millisecond) // a millisecond too soon
	d, _ := limiter.Allow(ctx, "user-42")
	fmt.Println(d.Allowed, d.Remaining, d.RetryAfter)

	clock.now = clock.now.Add(time.Millisecond)
	d, _ = limiter.Allow(ctx, "user-42")
	fmt.Println(d.Allowed, d.Remaining, d.RetryAfter)
	// Output:
	// true 1 0s
	// true 0 0s
	// false 0 1.5s
	// false 0 1ms
	// true 0 0s
}

// Two routes' limiters on one store. Their policies have the same Window,
// so unnamed they would both be "1m" and a client's searches would spend
// its uploads; named, each route counts on its own.
func ExampleNewLimiter_sharedStore() {
	store := memory.New()
	search, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2).Named("search")})
	if err != nil {
		panic(err)
	}
	upload, err := core.NewLimiter(store, []core.Policy{core.PerMinute(2).Named("upload")})
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	for range 3 {
		d, _ := search.Allow(ctx, "ip:192.0.2.1")
		fmt.Print(d.Allowed, " ")
	}
	d, _ := upload.Allow(ctx, "ip:192.0.2.1")
	fmt.Println(d.Allowed)
	// Output: true true false true
}
