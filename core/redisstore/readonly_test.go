package redisstore_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// demotable is a master and its replica, private to a test, and a client
// of ClientOptions that reaches the master through a name: its dialer
// dials whichever address target holds, as a DNS name that an operator
// (or a managed service) moves to the new master after a failover.
type demotable struct {
	master, replica *testredis.Instance
	target          atomic.Pointer[string]
	client          *redis.Client
}

func newDemotable(t *testing.T) *demotable {
	t.Helper()
	d := &demotable{master: testredis.Server(t)}
	host, port, _ := strings.Cut(d.master.Addr, ":")
	d.replica = testredis.ServerWith(t, "--replicaof", host, port)
	d.target.Store(&d.master.Addr)
	opts := redisstore.ClientOptions("redis.internal:6379").Simple()
	// The tests bound calls by their deadlines; a read of a busy machine's
	// Redis that outlasts ClientOptions' short read timeout would end one
	// with an i/o timeout instead.
	opts.ReadTimeout = 5 * time.Second
	dial := opts.Dialer
	opts.Dialer = func(ctx context.Context, network, _ string) (net.Conn, error) {
		return dial(ctx, network, *d.target.Load())
	}
	d.client = redis.NewClient(opts)
	t.Cleanup(func() { _ = d.client.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.Eventually(t, func() bool {
		info, err := d.replica.Client(t).Info(ctx, "replication").Result()
		return err == nil && strings.Contains(info, "master_link_status:up")
	}, 10*time.Second, 20*time.Millisecond)
	return d
}

// failOver promotes the replica and demotes the master to its replica, as
// a failover does, once the replica has every write of the master.
func (d *demotable) failOver(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	m, r := d.master.Client(t), d.replica.Client(t)
	require.Eventually(t, func() bool {
		a, err1 := m.Info(ctx, "replication").Result()
		b, err2 := r.Info(ctx, "replication").Result()
		return err1 == nil && err2 == nil && field(a, "master_repl_offset") == field(b, "master_repl_offset")
	}, 10*time.Second, 10*time.Millisecond, "the replica caught up")
	require.NoError(t, r.Do(ctx, "REPLICAOF", "NO", "ONE").Err())
	host, port, _ := strings.Cut(d.replica.Addr, ":")
	require.NoError(t, m.Do(ctx, "REPLICAOF", host, port).Err())
}

// field returns the value of name in an INFO answer.
func field(info, name string) string {
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, name+":"); ok {
			return v
		}
	}
	return ""
}

// connections returns how many connections srv has accepted.
func connections(t *testing.T, srv *testredis.Instance) int {
	t.Helper()
	info, err := srv.Client(t).Info(context.Background(), "stats").Result()
	require.NoError(t, err)
	n, err := strconv.Atoi(field(info, "total_connections_received"))
	require.NoError(t, err)
	return n
}

// A plain client whose master is demoted to a replica while the store runs
// gets READONLY, and go-redis drops the connection. The store retries it:
// each attempt dials again (a connection and its OnConnect per attempt).
// While the name still leads to the old master, a call ends at its
// deadline (or after the 500 ms budget, with none) with an error that
// says so and keeps the READONLY answer, uncharged; so do calls made
// together, whose round trips retry for them. Once the name leads to the
// new master, the next attempt is decided there, exactly. The test logs
// what each call cost (time, and connections the old master accepted).
func TestDemotedMasterIsRetried(t *testing.T) {
	d := newDemotable(t)
	s, err := redisstore.New(d.client)
	require.NoError(t, err)
	ps := policies(t, core.PerHour(100))
	ctx := context.Background()
	for range 3 {
		_, err := s.Take(ctx, "k", ps, 1, time.Now())
		require.NoError(t, err)
	}
	d.failOver(t)

	before := connections(t, d.master)
	start := time.Now()
	_, err = s.Take(ctx, "k", ps, 1, time.Now())
	took := time.Since(start)
	dials := connections(t, d.master) - before - 1 // less connections' own
	t.Logf("no deadline: returned after %v, %d connections: %v", took.Round(time.Millisecond), dials, err)
	require.Error(t, err)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded)
	assert.True(t, redis.HasErrorPrefix(err, "READONLY"), "Redis's answer is kept: %v", err)

	for _, deadline := range []time.Duration{100 * time.Millisecond, time.Second} {
		cctx, cancel := context.WithTimeout(ctx, deadline)
		before := connections(t, d.master)
		start := time.Now()
		_, err = s.Take(cctx, "k", ps, 1, time.Now())
		took := time.Since(start)
		cancel()
		dials := connections(t, d.master) - before - 1
		t.Logf("deadline %v: returned after %v, %d connections: %v", deadline, took.Round(time.Millisecond), dials, err)
		require.Error(t, err)
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	}

	// Calls made together share their round trips, and their retries.
	before = connections(t, d.master)
	cctx, cancel := context.WithTimeout(ctx, time.Second)
	start = time.Now()
	var wg sync.WaitGroup
	errs := make([]error, 200)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = s.Take(cctx, fmt.Sprint("c", i), ps, 1, time.Now())
		}()
	}
	wg.Wait()
	cancel()
	t.Logf("%d calls made together, deadline 1s: returned after %v, %d connections",
		len(errs), time.Since(start).Round(time.Millisecond), connections(t, d.master)-before-1)
	for i, err := range errs {
		assert.ErrorIs(t, err, context.DeadlineExceeded, "call %d", i)
	}

	// The name moves to the new master during a call: it is decided there.
	cctx, cancel = context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	time.AfterFunc(100*time.Millisecond, func() { d.target.Store(&d.replica.Addr) })
	start = time.Now()
	r, err := s.Take(cctx, "k", ps, 1, time.Now())
	t.Logf("name moved after 100 ms: decided after %v", time.Since(start).Round(time.Millisecond))
	require.NoError(t, err)
	assert.EqualValues(t, 96, r.States[0].Remaining, "the 3 charges before the failover and this one; none of the refused calls")
	for i := range errs {
		r, err := s.Peek(cctx, fmt.Sprint("c", i), ps, 1, time.Now())
		require.NoError(t, err)
		require.EqualValues(t, 100, r.States[0].Remaining, "call c%d, refused, was not charged", i)
	}
}
