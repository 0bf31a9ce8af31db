package redisstore_test

import (
	"context"
	"fmt"
	"strings"
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

// migrating is a slot of a private two-master cluster set MIGRATING on
// its master (from) and IMPORTING on the other (to), as a reshard starts.
type migrating struct {
	slot     int64
	from, to *testredis.ClusterNode
	src, dst *redis.Client
}

// startMigrating sets the slot of the user key key MIGRATING from its
// master to the other master of cl.
func startMigrating(t *testing.T, cl *testredis.PrivateCluster, key string) *migrating {
	t.Helper()
	ctx := context.Background()
	m := &migrating{from: cl.Masters[0], to: cl.Masters[1]}
	src := m.from.Client(t)
	slot, err := src.ClusterKeySlot(ctx, "{"+key+"}").Result()
	require.NoError(t, err)
	if slot >= 16384/2 { // StartCluster gives the first master the lower half
		m.from, m.to = m.to, m.from
	}
	m.slot, m.src, m.dst = slot, m.from.Client(t), m.to.Client(t)
	require.NoError(t, m.dst.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", m.from.ID).Err())
	require.NoError(t, m.src.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", m.to.ID).Err())
	return m
}

// move migrates the one Redis key of the slot that contains part.
func (m *migrating) move(part string) error {
	ctx := context.Background()
	keys, err := m.src.ClusterGetKeysInSlot(ctx, int(m.slot), 100).Result()
	if err != nil {
		return err
	}
	host, port, _ := strings.Cut(m.to.Addr, ":")
	var found []string
	for _, k := range keys {
		if strings.Contains(k, part) {
			found = append(found, k)
		}
	}
	if len(found) != 1 {
		return fmt.Errorf("%d keys of %q among %q", len(found), part, keys)
	}
	return m.src.Migrate(ctx, host, port, found[0], 0, 5*time.Second).Err()
}

// finish hands the slot to the target on both masters.
func (m *migrating) finish(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	for _, c := range []*redis.Client{m.dst, m.src} {
		require.NoError(t, c.Do(ctx, "CLUSTER", "SETSLOT", m.slot, "NODE", m.to.ID).Err())
	}
}

// A non-cluster client on a node whose slot is MIGRATING, for a key the
// node does not hold, is answered ASK, which it cannot follow: the call
// ends at once with ErrMisconfigured, after one ASK, not retried to its
// deadline; so do calls that go out together in a batch.
func TestAskIsMisconfigured(t *testing.T) {
	cl := testredis.StartCluster(t, 2, 0, 5*time.Second)
	m := startMigrating(t, cl, "u")
	client := redis.NewUniversalClient(redisstore.ClientOptions(m.from.Addr))
	t.Cleanup(func() { _ = client.Close() })
	log := &answerLog{}
	client.AddHook(log)
	s, err := redisstore.New(client)
	require.NoError(t, err)
	ps := policies(t, core.PerMinute(10))

	// A deadline far longer than a call takes on a busy machine: a call
	// retried to it takes 20 s, and meets ASK at every attempt.
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_, err = s.Take(ctx, "u", ps, 1, time.Now())
	took := time.Since(start)
	t.Logf("returned after %v: %v", took.Round(time.Millisecond), err)
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "ASK")
	assert.Equal(t, 1, log.count("ASK"), "ASK ends the call at its first attempt")
	assert.Less(t, took, 10*time.Second, "not retried to the deadline")

	// Calls made together share round trips: each ends alike.
	var wg sync.WaitGroup
	errs := make([]error, 20)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Take(ctx, "u", ps, 1, time.Now())
		}()
	}
	wg.Wait()
	for i, err := range errs {
		assert.ErrorIs(t, err, redisstore.ErrMisconfigured, "call %d", i)
	}
	assert.LessOrEqual(t, log.count("ASK"), 1+len(errs), "each round trip ended at its first ASK")
	assert.NoError(t, ctx.Err(), "every call ended long before its deadline")
}

// A cluster client while a slot moves, its keys half moved, follows ASK:
// a key already on the target (ASK), one still on the source, one that
// is new (ASK, created on the target), calls made together (a pipeline to
// the source, whose ASK answers are run again through the cluster
// client), and a call whose keys are split between the two (TRYAGAIN,
// retried until the rest has moved) are all decided, and every count is
// exact once the slot has moved.
func TestAskFollowedWhileSlotMoves(t *testing.T) {
	cl := testredis.StartCluster(t, 2, 0, 5*time.Second)
	client := redis.NewClusterClient(redisstore.ClientOptions(cl.Addrs()...).Cluster())
	t.Cleanup(func() { _ = client.Close() })
	log := &answerLog{}
	client.OnNewNode(func(n *redis.Client) { n.AddHook(log) }) // the answers of each node
	s, err := redisstore.New(client)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, s.Check(ctx))
	a := core.PerHour(100).Named("a").Using(core.FixedWindow)
	b := core.PerHour(100).Named("b").Using(core.SlidingLog)
	c := core.PerHour(100).Named("c")
	both := policies(t, a, b)
	take := func(ps []core.Policy) core.Result {
		t.Helper()
		r, err := s.Take(ctx, "u", ps, 1, time.Now())
		require.NoError(t, err)
		for i := range ps {
			require.True(t, r.States[i].Allowed)
		}
		return r
	}
	for range 3 {
		take(both)
	}

	m := startMigrating(t, cl, "u")
	require.NoError(t, m.move(":{u}:f")) // the fixed window, a; the sliding log, b, stays
	asks := log.count("ASK")
	assert.EqualValues(t, 96, take(policies(t, a)).States[0].Remaining, "a, on the target: ASK followed")
	assert.Greater(t, log.count("ASK"), asks, "the source answered ASK")
	assert.EqualValues(t, 96, take(policies(t, b)).States[0].Remaining, "b, still on the source")
	assert.EqualValues(t, 99, take(policies(t, c)).States[0].Remaining, "c, new: made on the target")

	var wg sync.WaitGroup
	asks = log.count("ASK")
	for range 20 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Take(ctx, "u", policies(t, a), 1, time.Now())
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	t.Logf("20 calls made together met ASK %d times", log.count("ASK")-asks)

	// a on the target, b on the source: TRYAGAIN until b moves too.
	moved := make(chan error, 1)
	log.mu.Lock()
	log.prefix, log.onFirst = "TRYAGAIN", func() {
		time.AfterFunc(100*time.Millisecond, func() { moved <- m.move(":{u}:l") })
	}
	log.mu.Unlock()
	r := take(both)
	require.NoError(t, <-moved)
	assert.Positive(t, log.count("TRYAGAIN"), "the split keys met TRYAGAIN")
	t.Logf("the split call met TRYAGAIN %d times", log.count("TRYAGAIN"))
	assert.EqualValues(t, []int64{75, 95}, []int64{r.States[0].Remaining, r.States[1].Remaining},
		"a: 3 + 1 + 20 + 1 charges; b: 3 + 1 + 1")
	m.finish(t)

	r, err = s.Peek(ctx, "u", policies(t, a, b, c), 1, time.Now())
	require.NoError(t, err)
	assert.Equal(t, []int64{75, 95, 99}, []int64{r.States[0].Remaining, r.States[1].Remaining, r.States[2].Remaining},
		"every charge counted once, on the target")
	n, err := m.src.ClusterCountKeysInSlot(ctx, int(m.slot)).Result()
	require.NoError(t, err)
	assert.Zero(t, n, "no key left on the source")
}
