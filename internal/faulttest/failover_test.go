package faulttest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// failoverLimit is high enough that no call of the failover tests is
// denied: every acknowledged charge is one allowed call.
const failoverLimit = 10_000_000

// settle is how long after a promotion the client may still fail while it
// learns the new topology; after that every decision must succeed, but
// for a call during which this process was itself stalled (see
// afterSettle).
const settle = time.Second

// follow is how long after the Sentinels name a new master every charge
// must go to it. A go-redis Sentinel client was measured writing there
// 0.07 to 0.35 s after the Sentinel that ran the failover named it (the
// others hear of it at once, or within their 2 s gossip period at worst).
const follow = 2 * time.Second

// TestClusterFailoverUnderLoad kills a master of a cluster of three
// masters with a replica each, under load on keys of every master. Its
// replica is promoted (cluster-node-timeout 1 s) and limiting resumes on the
// same client, without a restart. The test logs how many decisions failed
// in the window and how many acknowledged charges the promoted replica
// lacks (replication is asynchronous).
func TestClusterFailoverUnderLoad(t *testing.T) {
	t.Parallel()
	cl := testredis.StartCluster(t, 3, 1, time.Second)
	client := redis.NewUniversalClient(redisstore.ClientOptions(cl.Addrs()...))
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.WithClientTime()) // the calls and Peeks at one instant
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, soon(func() error { return s.Check(ctx) }))

	ps, err := policytest.Validate([]core.Policy{core.Per(failoverLimit, time.Hour).Using(core.FixedWindow)})
	require.NoError(t, err)
	// Two keys on every master; victim is on the master that dies.
	victimMaster := cl.Masters[0]
	var keys []string
	var victim string
	perMaster := map[string]int{}
	for i := 0; len(keys) < 6; i++ {
		k := fmt.Sprint("user-", i)
		slot, err := client.ClusterKeySlot(ctx, k).Result()
		require.NoError(t, err)
		m := masterOf(t, cl, int(slot))
		if perMaster[m.ID] == 2 {
			continue
		}
		perMaster[m.ID]++
		keys = append(keys, k)
		if m == victimMaster && victim == "" {
			victim = k
		}
	}
	now := time.Now()
	stalls := watchStalls()
	stalls.watchServers(cl.Addrs()...)
	load := startStoreLoad(s, keys, ps, now, 8, time.Second)
	time.Sleep(500 * time.Millisecond)

	killed := time.Now()
	victimMaster.Stop()
	replica := cl.Replicas[0][0].Client(t)
	waitUntil(t, 20*time.Second, "the replica's promotion", func() bool {
		info, err := replica.Info(ctx, "replication").Result()
		return err == nil && strings.Contains(info, "role:master")
	})
	promoted := time.Now()
	time.Sleep(settle + time.Second)
	load.stop()
	stalls.stop()

	all := load.failuresSince(killed)
	logFailures(t, all)
	t.Logf("master killed; replica promoted after %v; %d of %d decisions failed", promoted.Sub(killed).Round(time.Millisecond), len(all), load.calls.Load())
	if len(all) > 0 {
		t.Logf("failures from %v to %v after the kill", all[0].at.Sub(killed).Round(time.Millisecond), all[len(all)-1].at.Sub(killed).Round(time.Millisecond))
	}
	failLate(t, afterSettle(t, load, stalls, promoted), promoted)

	var r core.Result
	require.NoError(t, soon(func() (err error) { r, err = s.Peek(ctx, victim, ps, 1, now); return err }))
	kept := failoverLimit - r.States[0].Remaining
	t.Logf("key on the killed master: %d charges acknowledged, %d kept by the promoted replica (%d lost)", load.allowed[victim], kept, load.allowed[victim]-kept)
	assert.LessOrEqual(t, kept, load.allowed[victim]+int64(len(all)), "a charge is kept only if acknowledged, or its call failed")
}

// TestSentinelFailoverUnderLoad runs SENTINEL FAILOVER on a master with one
// replica and three Sentinels, under load. The store's client (MasterName
// set) follows the new master without a restart; the test logs how many
// decisions failed during the switch and how many charges were lost.
//
// The demoted master goes on accepting writes for seconds after the
// switch (the Sentinels reconfigure it later), so a store that never
// followed would see no error at all. Hence the second phase: follow
// after the Sentinels name the new master, the load moves to fresh keys,
// and every charge acknowledged on them must be on the new master, read
// there directly. Meanwhile Check runs every 100 ms, as a service starting
// during the failover would: it must never report ErrMisconfigured.
func TestSentinelFailoverUnderLoad(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	opts := redisstore.ClientOptions(sn.Addrs()...)
	opts.MasterName = testredis.SentinelMaster
	client := redis.NewUniversalClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client, redisstore.WithClientTime()) // the calls and Peeks at one instant
	require.NoError(t, err)
	ctx := context.Background()
	require.NoError(t, soon(func() error { return s.Check(ctx) }))

	ps, err := policytest.Validate([]core.Policy{core.Per(failoverLimit, time.Hour).Using(core.FixedWindow)})
	require.NoError(t, err)
	keys := []string{"a", "b", "c", "d"}
	now := time.Now()
	stalls := watchStalls()
	stalls.watchServers(sn.Master.Addr, sn.Replica.Addr)
	load := startStoreLoad(s, keys, ps, now, 8, time.Second)
	time.Sleep(500 * time.Millisecond)

	// A service starting during the failover runs Check: it may meet an
	// outage, never a misconfiguration (which tells the service not to
	// start).
	type checked struct {
		misconfigured error
		failed, runs  int
	}
	checks := make(chan checked, 1)
	stopChecks := make(chan struct{})
	go func() {
		var c checked
		var errs []error
		for {
			select {
			case <-stopChecks:
				c.misconfigured = errors.Join(errs...)
				checks <- c
				return
			case <-time.After(100 * time.Millisecond):
			}
			cctx, cancel := context.WithTimeout(ctx, time.Second)
			err := s.Check(cctx)
			cancel()
			c.runs++
			if err != nil {
				c.failed++
			}
			if errors.Is(err, redisstore.ErrMisconfigured) {
				errs = append(errs, err)
			}
		}
	}()

	sentinel := redis.NewSentinelClient(&redis.Options{Addr: sn.Sentinels[0].Addr})
	t.Cleanup(func() { _ = sentinel.Close() })
	started := time.Now()
	require.NoError(t, sentinel.Failover(ctx, testredis.SentinelMaster).Err())
	waitUntil(t, 20*time.Second, "the sentinels to name the replica master", func() bool {
		addr, err := sentinel.GetMasterAddrByName(ctx, testredis.SentinelMaster).Result()
		return err == nil && strings.Join(addr, ":") == sn.Replica.Addr
	})
	switched := time.Now()
	time.Sleep(follow)
	load.stop()
	lateKeys := []string{"e", "f", "g", "h"}
	late := startStoreLoad(s, lateKeys, ps, now, 8, time.Second)
	time.Sleep(time.Second)
	late.stop()
	stalls.stop()
	close(stopChecks)
	c := <-checks
	t.Logf("%d of %d Checks failed", c.failed, c.runs)
	assert.NoError(t, c.misconfigured, "Check during the failover")

	all := load.failuresSince(started)
	logFailures(t, all)
	t.Logf("failover switched after %v; %d of %d decisions failed, then %d of %d on fresh keys",
		switched.Sub(started).Round(time.Millisecond), len(all), load.calls.Load(), len(late.failures), late.calls.Load())
	failLate(t, append(afterSettle(t, load, stalls, switched), afterSettle(t, late, stalls, switched)...), switched)

	var acked, kept int64
	for _, k := range keys {
		var r core.Result
		require.NoError(t, soon(func() (err error) { r, err = s.Peek(ctx, k, ps, 1, now); return err }))
		acked += load.allowed[k]
		kept += failoverLimit - r.States[0].Remaining
	}
	t.Logf("%d charges acknowledged, %d kept by the new master (%d lost)", acked, kept, acked-kept)
	assert.LessOrEqual(t, kept, acked+int64(len(all)))

	// The fresh keys, read on the new master itself: a store still
	// writing to the demoted master has them there, not here.
	direct, err := redisstore.New(sn.Replica.Client(t), redisstore.WithClientTime())
	require.NoError(t, err)
	for _, k := range lateKeys {
		var r core.Result
		require.NoError(t, soon(func() (err error) { r, err = direct.Peek(ctx, k, ps, 1, now); return err }))
		onNew := failoverLimit - r.States[0].Remaining
		assert.GreaterOrEqual(t, onNew, late.allowed[k],
			"%s: every charge acknowledged %v after the switch must be on the new master", k, follow)
		assert.LessOrEqual(t, onNew, late.allowed[k]+int64(len(late.failures)), "%s: a charge is kept only if acknowledged, or its call failed", k)
	}
	t.Logf("fresh keys: %d charges acknowledged", sum(late.allowed))
}

// sum returns the sum of m's values.
func sum(m map[string]int64) int64 {
	var n int64
	for _, v := range m {
		n += v
	}
	return n
}

// afterSettle returns the load's failures from settle after the switch
// to a new master on, but for timeouts of calls that would have ended in
// time but for a stall of this process or of a server (a loaded machine):
// their time less the stall is under two read timeouts, the most a call
// waits on a silent Redis. Those are only logged. A client that does not
// follow the new master fails every call to it, stalled or not, with an
// error reply, a refused connection, or a deadline spent retrying.
func afterSettle(t *testing.T, load *storeLoad, stalls *stallWatch, switched time.Time) []failure {
	t.Helper()
	limit := 2 * redisstore.ClientOptions().ReadTimeout
	var out []failure
	for _, f := range load.failuresSince(switched.Add(settle)) {
		var ne net.Error
		timeout := errors.Is(f.err, context.DeadlineExceeded) || errors.As(f.err, &ne) && ne.Timeout()
		stalled := stalls.stalled(f.sent, f.at)
		if timeout && stalled > 0 && f.at.Sub(f.sent)-stalled < limit {
			t.Logf("%v after the switch, %s failed after %v, %v of which this process or a server stalled: %v",
				f.at.Sub(switched).Round(time.Millisecond), f.key, f.at.Sub(f.sent).Round(time.Millisecond), stalled.Round(time.Millisecond), f.err)
			continue
		}
		out = append(out, f)
	}
	return out
}

// failLate fails the test with the first ten of late, the failures after
// the settle time, and the number of the others.
func failLate(t *testing.T, late []failure, switched time.Time) {
	t.Helper()
	for _, f := range late[:min(len(late), 10)] {
		t.Errorf("%v after the switch (limiting must follow the new master within %v), %s failed: %v",
			f.at.Sub(switched).Round(time.Millisecond), settle, f.key, f.err)
	}
	if len(late) > 10 {
		t.Errorf("and %d more failures after the settle time", len(late)-10)
	}
}

// soon runs f (a store's Check, a Peek: nothing that charges) until it
// succeeds, for at most 5 s: on a loaded machine a dial or a read can
// outlive its 250 ms timeout. It returns the last error.
func soon(f func() error) error {
	end := time.Now().Add(5 * time.Second)
	for {
		err := f()
		if err == nil || time.Now().After(end) {
			return err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// waitUntil polls cond every 50 ms, failing the test after limit.
func waitUntil(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	end := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(end) {
			t.Fatalf("timed out after %v waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
