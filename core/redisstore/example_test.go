package redisstore_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

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

// With Sentinel, Check sees only the master the client reached; at
// startup CheckSentinels asks every Sentinel which master the name means,
// so that two setups monitoring different masters under one name (each
// would admit the whole limit) stop the service before it counts. The
// example needs running Sentinels, so it has no Output comment.
func ExampleCheckSentinels() {
	opts := redisstore.ClientOptions("10.0.0.1:26379", "10.0.0.2:26379", "10.0.0.3:26379")
	opts.MasterName = "ratelimit"
	client := redis.NewUniversalClient(opts)
	defer client.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := redisstore.CheckSentinels(ctx, opts); errors.Is(err, redisstore.ErrMisconfigured) {
		panic(err)
	} else if err != nil {
		log.Print(err) // no Sentinel answered, or a failover in progress
	}
	store, err := redisstore.New(client, redisstore.WithPrefix("myapp"))
	if err != nil {
		panic(err)
	}
	_ = store
}
