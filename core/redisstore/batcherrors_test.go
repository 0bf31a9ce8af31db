package redisstore_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A user whose ACL refuses a command the scripts run fails every call
// with ErrMisconfigured, also the calls decided together in a batch
// script on a standalone Redis: a request's error inside a batch is
// classified as the same request's error sent alone.
func TestBatchedScriptErrorsAreClassified(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	srv := testredis.Server(t)
	aclUser(t, srv.Client(t), "noexpiretime", "~*", "+@all", "-pexpiretime")
	o := redisstore.ClientOptions(srv.Addr)
	o.Username, o.Password = "noexpiretime", "pw"
	c := redis.NewUniversalClient(o)
	t.Cleanup(func() { _ = c.Close() })
	hook := &batchCounter{perCall: 3}
	hook.watch(t, c)
	s, err := redisstore.New(c, redisstore.WithPrefix(testredis.Prefix(t)))
	require.NoError(t, err)
	all := policies(t, core.PerMinute(10).Named("fw").Using(core.FixedWindow),
		core.PerMinute(10).Named("sw").Using(core.SlidingWindow),
		core.PerMinute(10).Named("log").Using(core.SlidingLog))

	var wg sync.WaitGroup
	for g := range 32 {
		wg.Go(func() {
			for i := range 10 {
				_, err := s.Take(ctx, fmt.Sprint("k", g, ":", i), all, 1, time.Now())
				if assert.ErrorIs(t, err, redisstore.ErrMisconfigured) {
					assert.Contains(t, err.Error(), "can't run this command")
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d batched calls", hook.count())
	require.Positive(t, hook.count(), "some calls went in batches")
}
