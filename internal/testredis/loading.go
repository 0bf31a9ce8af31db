package testredis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Loading is a private Redis still loading its dataset after a restart
// (see StartLoading and RestartLoading): it answers LOADING to every command but the few
// Redis serves while it loads (CONFIG, INFO, HELLO), until Finish.
type Loading struct {
	*Instance
	admin *redis.Client
}

// StartLoading starts a private redis-server, lets fill write to it
// (through a plain client), and restarts it loading (see RestartLoading).
func StartLoading(t testing.TB, fill func(context.Context, *redis.Client) error) *Loading {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first := Server(t)
	if err := fill(ctx, first.Client(t)); err != nil {
		t.Fatalf("testredis: fill the dataset to load: %v", err)
	}
	return first.RestartLoading(t)
}

// RestartLoading adds 2,000 keys of 1.1 kB under "fill:" to the server's
// dataset (keys of one slot it serves, when it is a node of a cluster of
// several masters) and restarts it on that dataset (see Restart), with the
// extra redis-server arguments args (a cluster node's, say), a delay of
// 5 ms for each key it loads, about 10 s in all, and an answer to its
// clients after every 1 kB it reads, so after every key. It returns once
// the restarted server answers LOADING. It stops in t.Cleanup.
func (s *Instance) RestartLoading(t testing.TB, args ...string) *Loading {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := s.Client(t)
	tag := servedTag(t, ctx, c)
	_, err := c.Pipelined(ctx, func(p redis.Pipeliner) error {
		v := make([]byte, 550)
		for i := range 2000 {
			_, _ = rand.Read(v) // incompressible: 1.1 kB on disk too
			p.Set(ctx, fmt.Sprintf("fill:{%s}:%d", tag, i), hex.EncodeToString(v), 0)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("testredis: write the keys to load: %v", err)
	}
	args = append(args, "--key-load-delay", "5000", "--loading-process-events-interval-bytes", "1024")
	l := &Loading{Instance: s.Restart(t, args...)}
	l.admin = redis.NewClient(&redis.Options{Addr: l.Addr, MaxRetries: -1})
	t.Cleanup(func() { _ = l.admin.Close() })
	if err := l.admin.Ping(ctx).Err(); !redis.HasErrorPrefix(err, "LOADING") {
		t.Fatalf("testredis: the restarted server answers PING with %v, not LOADING", err)
	}
	return l
}

// servedTag returns a hash tag whose keys the server of c stores: a node
// of a cluster of several masters answers MOVED for the others. It writes
// the first key the fill uses, "fill:{<tag>}:0", to find one.
func servedTag(t testing.TB, ctx context.Context, c *redis.Client) string {
	t.Helper()
	for i := range 1000 {
		tag := fmt.Sprint(i)
		err := c.Set(ctx, "fill:{"+tag+"}:0", "", 0).Err()
		if err == nil {
			return tag
		}
		if !redis.HasErrorPrefix(err, "MOVED") {
			t.Fatalf("testredis: write a key to load: %v", err)
		}
	}
	t.Fatalf("testredis: the server stores no key of the first 1000 hash tags tried")
	return ""
}

// Finish makes the server load the rest of its dataset at once (CONFIG
// SET key-load-delay 0): it answers commands again within milliseconds.
// It may be called from any goroutine.
func (l *Loading) Finish(ctx context.Context) error {
	return l.admin.ConfigSet(ctx, "key-load-delay", "0").Err()
}

// End calls Finish and waits (at most 10 s) until the server has loaded
// its dataset.
func (l *Loading) End(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := l.Finish(ctx); err != nil {
		t.Fatalf("testredis: end loading: %v", err)
	}
	waitFor(t, ctx, "the server to load its dataset", func() bool {
		return l.admin.Ping(ctx).Err() == nil // PING is answered LOADING until then
	})
}
