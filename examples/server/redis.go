package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// checkTimeout bounds the startup check of Redis.
const checkTimeout = 2 * time.Second

// newRedisStore returns the Redis store on addrs: one address is a
// standalone server, several are the seeds of a Redis Cluster. The client
// has redisstore.ClientOptions, so a Redis that is down or silent costs a
// request milliseconds before the fail policy applies.
//
// It runs the store's startup check: a client that does not match its
// Redis (one node of a cluster given alone, a replica) is an error, and
// the server does not start. A Redis that is merely unreachable is not:
// warn is told, the server starts, and each request meets the fail policy
// until Redis is back.
func newRedisStore(addrs []string, warn func(msg string, err error)) (core.Store, func(), error) {
	client := redis.NewUniversalClient(redisstore.ClientOptions(addrs...))
	s, err := redisstore.New(client)
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	if err := s.Check(ctx); errors.Is(err, redisstore.ErrMisconfigured) {
		_ = client.Close()
		return nil, nil, fmt.Errorf("redis: %w", err)
	} else if err != nil {
		warn("redis is unreachable at startup; the fail policy applies until it is back", err)
	}
	return s, func() { _ = client.Close() }, nil
}
