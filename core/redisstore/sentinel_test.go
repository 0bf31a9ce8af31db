package redisstore_test

import (
	"context"
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
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// sentinelMistake returns the errors of Check and of a Take on a store
// whose Sentinel client (MasterName set) has its options changed by mod.
func sentinelMistake(t *testing.T, addrs []string, mod func(o *redis.UniversalOptions)) (check, take error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	o := redisstore.ClientOptions(addrs...)
	o.MasterName = testredis.SentinelMaster
	mod(o)
	c := redis.NewUniversalClient(o)
	t.Cleanup(func() { _ = c.Close() })
	s, err := redisstore.New(c)
	require.NoError(t, err)
	_, take = s.Take(ctx, "k", policies(t, core.PerMinute(10)), 1, time.Now())
	check = s.Check(ctx)
	for _, err := range []error{check, take} {
		if err != nil {
			assert.LessOrEqual(t, strings.Count(err.Error(), "not set up as the client expects"), 1, "the cause named once: %v", err)
		}
	}
	return check, take
}

// A MasterName no Sentinel monitors (a typo, another setup's name) is a
// setup mistake, not Redis being unreachable.
func TestSentinelUnknownMasterName(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	check, take := sentinelMistake(t, sn.Addrs(), func(o *redis.UniversalOptions) { o.MasterName = "ratewindwo" })
	for _, err := range []error{check, take} {
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "MasterName")
	}
	check, _ = sentinelMistake(t, sn.Addrs(), func(o *redis.UniversalOptions) {})
	require.NoError(t, check, "the right name")
}

// The Redis servers' addresses given where the Sentinels' belong: a setup
// mistake, named as such, not a command the server renamed.
func TestSentinelAddrsAreRedisServers(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	check, take := sentinelMistake(t, []string{sn.Master.Addr, sn.Replica.Addr}, func(o *redis.UniversalOptions) {})
	for _, err := range []error{check, take} {
		require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		assert.Contains(t, err.Error(), "not a Sentinel")
		assert.NotContains(t, err.Error(), "rename-command")
	}
}

// Sentinels that want a password, given the Sentinels' password as the
// master's (Password, not SentinelPassword), or a wrong one: the error
// names the Sentinel options, and never a password.
func TestSentinelCredentials(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	ctx := context.Background()
	const pass = "sentinel-s3cret"
	for _, s := range sn.Sentinels {
		require.NoError(t, s.Client(t).Do(ctx, "ACL", "SETUSER", "default", "resetpass", ">"+pass).Err())
	}
	for name, mod := range map[string]func(o *redis.UniversalOptions){
		"as Password":            func(o *redis.UniversalOptions) { o.Password = pass },
		"wrong SentinelPassword": func(o *redis.UniversalOptions) { o.SentinelPassword = "wr0ng-s3cret" },
	} {
		check, take := sentinelMistake(t, sn.Addrs(), mod)
		o := redisstore.ClientOptions(sn.Addrs()...)
		o.MasterName = testredis.SentinelMaster
		mod(o)
		sentinels := redisstore.CheckSentinels(ctx, o)
		for _, err := range []error{check, take, sentinels} {
			require.ErrorIs(t, err, redisstore.ErrMisconfigured, name)
			assert.Contains(t, err.Error(), "SentinelPassword", name)
			assert.NotContains(t, err.Error(), "s3cret", name)
			assert.NotContains(t, err.Error(), "Redis refused the client's credentials", name)
		}
	}
	check, _ := sentinelMistake(t, sn.Addrs(), func(o *redis.UniversalOptions) { o.SentinelPassword = pass })
	require.NoError(t, check, "the right options")
}

// RouteByLatency or RouteRandomly with MasterName make a cluster client
// whose slot map comes from the Sentinels: a working setup, which Check
// must not take for a cluster client on a server without cluster support.
func TestSentinelClusterClientChecks(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	for name, mod := range map[string]func(o *redis.UniversalOptions){
		"RouteByLatency": func(o *redis.UniversalOptions) { o.RouteByLatency = true },
		"RouteRandomly":  func(o *redis.UniversalOptions) { o.RouteRandomly = true },
	} {
		check, take := sentinelMistake(t, sn.Addrs(), mod)
		require.NoError(t, take, name)
		require.NoError(t, check, name)
	}
	// The Sentinel mistakes are still named.
	check, _ := sentinelMistake(t, sn.Addrs(), func(o *redis.UniversalOptions) {
		o.RouteRandomly = true
		o.MasterName = "ratewindwo"
	})
	require.ErrorIs(t, check, redisstore.ErrMisconfigured)
}

// Sentinels of two setups given as one client's, watching different
// masters under the same name: the client would take whichever answers
// first, and count on both masters. CheckSentinels names the mistake;
// the Sentinels of one setup, one of them down, pass.
func TestCheckSentinelsSplit(t *testing.T) {
	t.Parallel()
	a := testredis.StartSentinel(t, time.Second)
	b := testredis.StartSentinel(t, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	opts := func(addrs ...string) *redis.UniversalOptions {
		o := redisstore.ClientOptions(addrs...)
		o.MasterName = testredis.SentinelMaster
		return o
	}
	err := redisstore.CheckSentinels(ctx, opts(append(a.Addrs()[:2:2], b.Addrs()[0])...))
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), a.Master.Addr)
	assert.Contains(t, err.Error(), b.Master.Addr)

	require.NoError(t, redisstore.CheckSentinels(ctx, opts(a.Addrs()...)))
	a.Sentinels[0].Stop()
	require.NoError(t, redisstore.CheckSentinels(ctx, opts(a.Addrs()...)), "one Sentinel down")

	o := opts(a.Addrs()...)
	o.MasterName = "ratewindwo"
	err = redisstore.CheckSentinels(ctx, o)
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "knows no master")

	err = redisstore.CheckSentinels(ctx, opts(a.Sentinels[1].Addr, a.Master.Addr))
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "not a Sentinel")

	err = redisstore.CheckSentinels(ctx, opts(a.Sentinels[1].Addr+","+a.Sentinels[2].Addr))
	require.ErrorIs(t, err, redisstore.ErrMisconfigured, "comma-joined Sentinel addresses")
	require.ErrorIs(t, redisstore.CheckSentinels(ctx, opts()), redisstore.ErrMisconfigured, "no Sentinel address")

	for _, n := range a.Sentinels {
		n.Stop()
	}
	err = redisstore.CheckSentinels(ctx, opts(a.Addrs()...))
	require.Error(t, err)
	assert.NotErrorIs(t, err, redisstore.ErrMisconfigured, "all Sentinels down is an outage")
}

// Sentinels reached through the options' Dialer (a proxy, a tunnel, names
// only it resolves), as go-redis reaches them: CheckSentinels dials them
// the same way.
func TestCheckSentinelsDialer(t *testing.T) {
	t.Parallel()
	names, dial := sentinelNames(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	o := redisstore.ClientOptions(names...)
	o.MasterName = testredis.SentinelMaster
	o.Dialer = dial
	require.NoError(t, redisstore.CheckSentinels(ctx, o))
}

// CheckFailoverSentinels checks the options of redis.NewFailoverClient
// as CheckSentinels those of redis.NewUniversalClient.
func TestCheckFailoverSentinels(t *testing.T) {
	t.Parallel()
	names, dial := sentinelNames(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	f := &redis.FailoverOptions{MasterName: testredis.SentinelMaster, SentinelAddrs: names, Dialer: dial}
	require.NoError(t, redisstore.CheckFailoverSentinels(ctx, f))
	f.MasterName = "ratewindwo"
	err := redisstore.CheckFailoverSentinels(ctx, f)
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "knows no master")
	f.SentinelAddrs = nil
	require.ErrorIs(t, redisstore.CheckFailoverSentinels(ctx, f), redisstore.ErrMisconfigured, "no Sentinel address")
}

// sentinelNames starts Sentinels and returns names for them that only
// the returned dialer resolves.
func sentinelNames(t *testing.T) ([]string, func(ctx context.Context, network, addr string) (net.Conn, error)) {
	t.Helper()
	sn := testredis.StartSentinel(t, time.Second)
	real := map[string]string{}
	var names []string
	for i, a := range sn.Addrs() {
		name := fmt.Sprintf("sentinel-%d.invalid:26379", i)
		real[name] = a
		names = append(names, name)
	}
	return names, func(ctx context.Context, network, addr string) (net.Conn, error) {
		to, ok := real[addr]
		if !ok {
			return nil, fmt.Errorf("no route to %s", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, to)
	}
}

// Sentinels whose ACL user may run only what the client needs (SENTINEL
// GET-MASTER-ADDR-BY-NAME, not SENTINEL MASTER, nor PING): a working
// setup, which CheckSentinels must pass, not call refused credentials. A
// user that may not ask for the master's address at all is a mistake the
// client would meet too, named as a missing permission.
func TestCheckSentinelsLeastPrivilege(t *testing.T) {
	t.Parallel()
	sn := testredis.StartSentinel(t, time.Second)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	for _, s := range sn.Sentinels {
		c := s.Client(t)
		// Only what the client needs: no PING, no SCRIPT (which the
		// options' OnConnect sends to the Sentinels too), no CLIENT
		// SETINFO, no SENTINEL SENTINELS.
		require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "limiter", "on", ">limiter-s3cret", "-@all", "+sentinel|get-master-addr-by-name").Err())
		require.NoError(t, c.Do(ctx, "ACL", "SETUSER", "blind", "on", ">blind-s3cret", "+@all", "-sentinel|master", "-sentinel|get-master-addr-by-name").Err())
	}
	opts := func(user string) *redis.UniversalOptions {
		o := redisstore.ClientOptions(sn.Addrs()...)
		o.MasterName = testredis.SentinelMaster
		o.SentinelUsername, o.SentinelPassword = user, user+"-s3cret"
		return o
	}
	require.NoError(t, redisstore.CheckSentinels(ctx, opts("limiter")))
	check, take := sentinelMistake(t, sn.Addrs(), func(o *redis.UniversalOptions) {
		o.SentinelUsername, o.SentinelPassword = "limiter", "limiter-s3cret"
	})
	require.NoError(t, take, "the client works with that user")
	require.NoError(t, check)

	o := opts("limiter")
	o.MasterName = "ratewindwo"
	err := redisstore.CheckSentinels(ctx, o)
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "knows no master")

	err = redisstore.CheckSentinels(ctx, opts("blind"))
	require.ErrorIs(t, err, redisstore.ErrMisconfigured)
	assert.Contains(t, err.Error(), "NOPERM")
	assert.NotContains(t, err.Error(), "refused the client's credentials")
	assert.NotContains(t, err.Error(), "s3cret")
}
