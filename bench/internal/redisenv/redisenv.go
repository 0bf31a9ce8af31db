// Package redisenv connects the bench module's tests and benchmarks to the
// Redis servers that ./scripts/test (and so ./scripts/bench) starts, through
// the environment variables it exports:
//
//	RATEWINDOW_REDIS_ADDR           host:port of the standalone server
//	RATEWINDOW_REDIS_CLUSTER_ADDRS  comma-separated host:port of the cluster masters
//	RATEWINDOW_REDIS_SERVER         path of the redis-server binary
//
// When a variable is unset the caller is skipped with a message that says to
// run the scripts; under CI=true it fails instead, so a CI run never passes by
// skipping every Redis test. A server that is named but does not answer a
// PING within two seconds fails the caller.
package redisenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Names of the environment variables that ./scripts/test exports.
const (
	EnvAddr         = "RATEWINDOW_REDIS_ADDR"
	EnvClusterAddrs = "RATEWINDOW_REDIS_CLUSTER_ADDRS"
	EnvServer       = "RATEWINDOW_REDIS_SERVER"
)

// pingTimeout bounds the reachability check of every new client.
const pingTimeout = 2 * time.Second

// Addr returns the standalone server's host:port.
func Addr(tb testing.TB) string {
	tb.Helper()
	return lookup(tb, EnvAddr)
}

// ClusterAddrs returns the host:port of every cluster master.
func ClusterAddrs(tb testing.TB) []string {
	tb.Helper()
	var addrs []string
	for _, a := range strings.Split(lookup(tb, EnvClusterAddrs), ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		tb.Fatalf("redisenv: %s holds no address", EnvClusterAddrs)
	}
	return addrs
}

// ServerPath returns the path of the redis-server binary.
func ServerPath(tb testing.TB) string {
	tb.Helper()
	return lookup(tb, EnvServer)
}

// lookup returns the variable's value, or skips (fails under CI=true) when
// it is unset.
func lookup(tb testing.TB, name string) string {
	tb.Helper()
	if v := os.Getenv(name); v != "" {
		return v
	}
	msg := "redisenv: " + name + " is not set; run through ./scripts/test or ./scripts/bench, which start Redis and set it"
	if os.Getenv("CI") == "true" {
		tb.Fatal(msg)
	}
	tb.Skip(msg)
	return ""
}

// Standalone returns a client of the standalone server with poolSize
// connections (0: go-redis's default), closed by tb.Cleanup.
func Standalone(tb testing.TB, poolSize int) *redis.Client {
	tb.Helper()
	c := redis.NewClient(&redis.Options{Addr: Addr(tb), PoolSize: poolSize})
	tb.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		tb.Fatalf("redisenv: standalone redis at %s does not answer: %v", c.Options().Addr, err)
	}
	return c
}

// Cluster returns a client of the three-master cluster with poolSize
// connections per node (0: go-redis's default), closed by tb.Cleanup, after
// checking that every master answers.
func Cluster(tb testing.TB, poolSize int) *redis.ClusterClient {
	tb.Helper()
	addrs := ClusterAddrs(tb)
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs, PoolSize: poolSize})
	tb.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		return n.Ping(ctx).Err()
	})
	if err != nil {
		tb.Fatalf("redisenv: redis cluster at %s does not answer: %v", strings.Join(addrs, ","), err)
	}
	return c
}

// Prefix returns a key prefix no other test or run uses, so runs sharing
// one server never see each other's keys.
func Prefix(tb testing.TB) string {
	tb.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("/", "_", " ", "_", "{", "_", "}", "_").Replace(tb.Name())
	if len(name) > 40 {
		name = name[:40]
	}
	return "bench:" + name + ":" + hex.EncodeToString(b[:])
}
