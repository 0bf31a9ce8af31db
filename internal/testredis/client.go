package testredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// pingTimeout bounds the reachability check of every new client.
const pingTimeout = 2 * time.Second

// Standalone returns a new client of the standalone server. Each call makes
// an independent client with its own connection pool.
func Standalone(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: Addr(t)})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("testredis: standalone redis at %s does not answer: %v", c.Options().Addr, err)
	}
	return c
}

// Cluster returns a new client of the three-master cluster, after checking
// that every master answers.
func Cluster(t testing.TB) *redis.ClusterClient {
	t.Helper()
	addrs := ClusterAddrs(t)
	c := redis.NewClusterClient(&redis.ClusterOptions{Addrs: addrs})
	t.Cleanup(func() { _ = c.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), pingTimeout)
	defer cancel()
	err := c.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
		return n.Ping(ctx).Err()
	})
	if err != nil {
		t.Fatalf("testredis: redis cluster at %s does not answer: %v", strings.Join(addrs, ","), err)
	}
	return c
}

// Universal returns every kind of client there is to test against, by name:
// "standalone" and "cluster". Use it to run one test body on both:
//
//	for name, rdb := range testredis.Universal(t) { t.Run(name, ...) }
func Universal(t testing.TB) map[string]redis.UniversalClient {
	t.Helper()
	return map[string]redis.UniversalClient{
		"standalone": Standalone(t),
		"cluster":    Cluster(t),
	}
}

// Prefix returns a key prefix no other test (or run) uses, so tests sharing
// one server never see each other's keys.
func Prefix(t testing.TB) string {
	t.Helper()
	var b [6]byte
	_, _ = rand.Read(b[:])
	name := strings.NewReplacer("/", "_", " ", "_", "{", "_", "}", "_").Replace(t.Name())
	if len(name) > 40 {
		name = name[:40]
	}
	return "test:" + name + ":" + hex.EncodeToString(b[:])
}

// DeadAddr returns a loopback host:port where nothing listens: the kernel
// hands out a free port, which is closed again at once.
func DeadAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("testredis: listen on loopback: %v", err)
	}
	addr := ln.Addr().String()
	if err := ln.Close(); err != nil {
		t.Fatalf("testredis: close listener: %v", err)
	}
	return addr
}
