package redisstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// Every error names the package once, then the operation, then the cause
// (the exported errors' texts, which start with "redisstore: " too, lose
// that start), and still matches the exported error it wraps.
func TestErrorTextsNameThePackageOnce(t *testing.T) {
	ctx := context.Background()
	ps := policies(t, core.PerMinute(10))
	misconf := strings.TrimPrefix(redisstore.ErrMisconfigured.Error(), "redisstore: ")
	oom := strings.TrimPrefix(redisstore.ErrOutOfMemory.Error(), "redisstore: ")

	t.Run("out of memory", func(t *testing.T) {
		srv := testredis.ServerWith(t, "--maxmemory-policy", "noeviction")
		s, _ := optionsStore(t, srv.Addr)
		testredis.FillUp(t, srv.Client(t))
		_, err := s.Take(ctx, "k", ps, 1, time.Now())
		require.ErrorIs(t, err, redisstore.ErrOutOfMemory)
		assert.Equal(t, "redisstore: take: "+oom+": OOM command not allowed when used memory > 'maxmemory'.", err.Error())
		_, err = s.Peek(ctx, "k", ps, 1, time.Now())
		require.ErrorIs(t, err, redisstore.ErrOutOfMemory)
		assert.Equal(t, "redisstore: peek: "+oom+": OOM command not allowed when used memory > 'maxmemory'.", err.Error())
	})
	t.Run("replica", func(t *testing.T) {
		m := testredis.Server(t)
		host, port, _ := strings.Cut(m.Addr, ":")
		r := testredis.ServerWith(t, "--replicaof", host, port)
		s, err := redisstore.New(r.Client(t))
		require.NoError(t, err)
		err = s.Check(ctx)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Equal(t, "redisstore: check: "+misconf+": the server is a replica; the store writes, so it needs the master", err.Error())
	})
	t.Run("cluster node behind a standalone client", func(t *testing.T) {
		c := redis.NewUniversalClient(redisstore.ClientOptions(testredis.ClusterAddrs(t)[0]))
		defer c.Close()
		s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
		require.NoError(t, err)
		err = s.Check(ctx)
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.True(t, strings.HasPrefix(err.Error(), "redisstore: check: "+misconf+": the server is a Redis Cluster node"), err.Error())
		moved := 0
		for i := range 30 {
			for op, call := range map[string]func(key string) error{
				"take":  func(key string) error { _, err := s.Take(ctx, key, ps, 1, time.Now()); return err },
				"reset": func(key string) error { return s.Reset(ctx, key, ps) },
			} {
				if err := call(fmt.Sprint("k", i)); err != nil {
					require.ErrorIs(t, err, redisstore.ErrMisconfigured)
					assert.True(t, strings.HasPrefix(err.Error(), "redisstore: "+op+": "+misconf+": a node of a Redis Cluster"), err.Error())
					moved++
				}
			}
		}
		assert.Positive(t, moved)
	})
}
