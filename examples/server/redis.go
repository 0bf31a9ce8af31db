package main

import (
	"errors"

	"github.com/ratewindow/ratewindow/core"
)

// newRedisStore connects the Redis store (placeholder until core/redisstore lands).
func newRedisStore(addrs []string) (core.Store, func(), error) {
	return nil, nil, errors.New("-store redis: not available yet")
}
