package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// Every process that shares this Redis shares each key's quota. The example
// needs a running Redis server, so it has no Output comment: go test
// compiles it but does not run it.
func ExampleNew() {
	client := redis.NewUniversalClient(redisstore.ClientOptions("127.0.0.1:6379"))
	defer client.Close()

	store, err := redisstore.New(client, redisstore.WithPrefix("myapp"))
	if err != nil {
		panic(err)
	}
	// At startup: refuse a client that does not match its Redis; a Redis
	// that is merely down is not fatal (the fail policy applies per request).
	if err := store.Check(context.Background()); errors.Is(err, redisstore.ErrMisconfigured) {
		panic(err)
	} else if err != nil {
		// Down, or a mistyped address: say so, since requests pass
		// unlimited (fail-open) until it answers.
		log.Print(err)
	}
	limiter, err := core.NewLimiter(store, []core.Policy{core.PerMinute(100)})
	if err != nil {
		panic(err)
	}
	d, err := limiter.Allow(context.Background(), "user-42")
	if err != nil {
		panic(err) // Redis unreachable: a middleware would fail open or closed
	}
	fmt.Println(d.Allowed, d.Remaining)
}
