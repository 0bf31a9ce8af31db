package main

import (
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// redisTimeout bounds dialing and each read and write, so a Redis that
// is down or silent fails fast and the fail policy applies.
const redisTimeout = time.Second

// newRedisStore returns the Redis store on addrs: one address is a
// standalone server, several are the seeds of a Redis Cluster. Nothing is
// dialled here: the server starts even while Redis is down, and then
// answers by its fail policy.
func newRedisStore(addrs []string) (core.Store, func(), error) {
	client := redis.NewUniversalClient(&redis.UniversalOptions{
		Addrs:                 addrs,
		DialTimeout:           redisTimeout,
		ReadTimeout:           redisTimeout,
		WriteTimeout:          redisTimeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            1,
	})
	s, err := redisstore.New(client)
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	return s, func() { _ = client.Close() }, nil
}
