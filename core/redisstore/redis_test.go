package redisstore_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// store returns a store on c under a prefix of its own that decides on the
// now passed in (WithClientTime): most tests here call at instants of their
// choosing, far from Redis's clock. An option in opts comes after, so
// WithServerTime undoes it.
func store(t *testing.T, c redis.UniversalClient, opts ...redisstore.Option) (*redisstore.Store, string) {
	t.Helper()
	prefix := testredis.Prefix(t)
	s, err := redisstore.New(c, append([]redisstore.Option{redisstore.WithPrefix(prefix), redisstore.WithClientTime()}, opts...)...)
	require.NoError(t, err)
	return s, prefix
}

// prefixKeys lists the keys under prefix on every node.
func prefixKeys(t *testing.T, c redis.UniversalClient, prefix string) []string {
	t.Helper()
	ctx := context.Background()
	if cc, ok := c.(*redis.ClusterClient); ok {
		var keys []string
		ch := make(chan []string, 3)
		require.NoError(t, cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			k, err := n.Keys(ctx, prefix+":*").Result()
			ch <- k
			return err
		}))
		close(ch)
		for k := range ch {
			keys = append(keys, k...)
		}
		return keys
	}
	keys, err := c.Keys(ctx, prefix+":*").Result()
	require.NoError(t, err)
	return keys
}

// Both scripts (one policy, several) heal after a SCRIPT FLUSH: the next
// call loads the script again and decides as if nothing happened.
func TestScriptFlushHeals(t *testing.T) {
	sets := map[string][]core.Policy{
		"one": policies(t, core.PerMinute(5).Named("sw")),
		"many": policies(t, core.PerMinute(5).Using(core.FixedWindow), core.PerMinute(5).Named("log").Using(core.SlidingLog),
			core.PerMinute(5).Named("sw")),
	}
	for name, c := range testredis.Universal(t) {
		for set, ps := range sets {
			t.Run(name+"/"+set, func(t *testing.T) {
				s, _ := store(t, c)
				ctx := context.Background()
				for i := range 5 {
					flush(t, c)
					r, err := s.Take(ctx, "k", ps, 1, base)
					require.NoError(t, err, "take %d after SCRIPT FLUSH", i)
					for j := range ps {
						require.Equal(t, int64(4-i), r.States[j].Remaining, "policy %s after take %d", ps[j].Name, i)
					}
				}
			})
		}
	}
}

func flush(t *testing.T, c redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	if cc, ok := c.(*redis.ClusterClient); ok {
		require.NoError(t, cc.ForEachMaster(ctx, func(ctx context.Context, n *redis.Client) error {
			return n.ScriptFlush(ctx).Err()
		}))
		return
	}
	require.NoError(t, c.ScriptFlush(ctx).Err())
}

// Keys with braces, spaces and 3 KB lengths never fail with CROSSSLOT on a
// cluster, stay apart from each other and can be reset.
func TestOddKeysOnCluster(t *testing.T) {
	c := testredis.Cluster(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t,
		core.PerMinute(2).Named("a").Using(core.FixedWindow),
		core.PerMinute(2).Named("b"),
		core.PerMinute(2).Named("c").Using(core.SlidingLog),
	)
	big := strings.Repeat("k", 3*1024)
	keys := []string{
		"{", "}", "{}", "}{", "{user}", "a{b}c", "{a}{b}", "with space", " ", "  two  spaces {x}",
		big, big + "{", "{" + big, big[:3*1024-1] + "x", "#hash", "ключ{ü}",
	}
	for _, k := range keys {
		for i, want := range []bool{true, true, false} {
			r, err := s.Take(ctx, k, ps, 1, base)
			require.NoError(t, err, "key %.40q", k)
			for j := range ps {
				require.Equal(t, want, r.States[j].Allowed, "key %.40q request %d policy %s", k, i, ps[j].Name)
			}
		}
	}
	stored := prefixKeys(t, c, prefix)
	require.Len(t, stored, len(keys)*len(ps))
	for _, k := range stored {
		assert.LessOrEqual(t, len(k), len(prefix)+100, "long user keys are hashed to a fixed length")
	}
	for _, k := range keys {
		require.NoError(t, s.Reset(ctx, k, ps), "key %.40q", k)
		r, err := s.Take(ctx, k, ps, 1, base)
		require.NoError(t, err)
		require.True(t, r.States[0].Allowed && r.States[1].Allowed && r.States[2].Allowed, "key %.40q after reset", k)
	}
}

// Every key a call writes expires a little after its state stops
// mattering: a second after the window's end (the fixed window), the
// current bucket's end plus a window (the sliding counter) or the newest
// request's instant plus a window (the log). A caller whose clock agrees
// with Redis's writes the compact forms, whose expiry is that instant on
// Redis's clock; one whose clock is behind, the full forms, with the TTL the
// state needs from the write on.
func TestKeysExpire(t *testing.T) {
	c := testredis.Standalone(t)
	ctx := context.Background()
	ps := policies(t,
		core.PerMinute(5).Named("fixed").Using(core.FixedWindow),
		core.PerMinute(5).Named("sliding"),
		core.PerMinute(5).Named("log").Using(core.SlidingLog),
	)
	type bounds struct{ min, max time.Duration } // min < TTL ≤ max
	for _, tt := range []struct {
		name  string
		clock time.Duration // the caller's clock minus Redis's
		want  map[string]bounds
	}{
		{"in step", 0, map[string]bounds{
			"f1m": {time.Second, time.Minute + time.Second},
			"s1m": {time.Minute + time.Second, 2*time.Minute + time.Second},
			"l1m": {time.Minute, time.Minute + time.Second + time.Millisecond}, // the instant rounded up
		}},
		{"behind", -time.Hour, map[string]bounds{
			"f1m": {time.Minute, time.Minute + time.Second},
			"s1m": {2 * time.Minute, 2*time.Minute + time.Second},
			"l1m": {time.Minute, time.Minute + time.Second + time.Millisecond}, // the instant rounded up
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, prefix := store(t, c)
			_, err := s.Take(ctx, "ttl", ps, 1, time.Now().Add(tt.clock))
			require.NoError(t, err)
			keys := prefixKeys(t, c, prefix)
			require.Len(t, keys, 3)
			for _, k := range keys {
				parts := strings.Split(k, ":")
				name := parts[len(parts)-2] // <algorithm><window>
				ttl, err := c.PTTL(ctx, k).Result()
				require.NoError(t, err)
				// A margin for the time the call took.
				assert.Greater(t, ttl, tt.want[name].min-100*time.Millisecond, name)
				assert.LessOrEqual(t, ttl, tt.want[name].max, name)
			}
		})
	}
	s, prefix := store(t, c)

	// A key whose TTL ran out is gone from Redis.
	short := policies(t, core.Per(5, 10*time.Millisecond).Using(core.FixedWindow))
	_, err := s.Take(ctx, "short", short, 1, base)
	require.NoError(t, err)
	k := prefix + ":{short}:f10ms:"
	for _, stored := range prefixKeys(t, c, prefix) {
		if strings.HasPrefix(stored, k) {
			k = stored
		}
	}
	require.EqualValues(t, 1, c.Exists(ctx, k).Val())
	require.NoError(t, c.PExpire(ctx, k, time.Millisecond).Err())
	require.Eventually(t, func() bool { return c.Exists(ctx, k).Val() == 0 }, 5*time.Second, 5*time.Millisecond)
}

// Requests in the same millisecond share one log member, whatever their
// costs; requests in different milliseconds have their own.
func TestSlidingLogMembers(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t, core.PerMinute(1000).Named("log").Using(core.SlidingLog))
	for _, cost := range []int64{1, 1, 3, 700} {
		_, err := s.Take(ctx, "u", ps, cost, base)
		require.NoError(t, err)
	}
	k := prefix + ":{u}:l1m:e8i8Su"
	assert.EqualValues(t, 1, c.ZCard(ctx, k).Val())
	r, err := s.Take(ctx, "u", ps, 5, base.Add(time.Millisecond))
	require.NoError(t, err)
	assert.EqualValues(t, 290, r.States[0].Remaining)
	assert.EqualValues(t, 2, c.ZCard(ctx, k).Val())
	// Pruned on every call: a minute later, the first member is gone.
	r, err = s.Take(ctx, "u", ps, 1, base.Add(time.Minute))
	require.NoError(t, err)
	assert.EqualValues(t, 994, r.States[0].Remaining)
	assert.EqualValues(t, 2, c.ZCard(ctx, k).Val())
}

// By default, and with WithServerTime after WithClientTime, the store
// ignores the now passed in and uses Redis TIME, in both scripts (one
// policy, several).
func TestServerTime(t *testing.T) {
	sets := map[string][]core.Policy{
		"one":  policies(t, core.PerHour(10).Using(core.FixedWindow)),
		"many": policies(t, core.PerHour(10).Using(core.FixedWindow), core.PerHour(20).Named("log").Using(core.SlidingLog)),
	}
	modes := map[string]func(t *testing.T, c redis.UniversalClient) *redisstore.Store{
		"default": func(t *testing.T, c redis.UniversalClient) *redisstore.Store {
			s, _ := defaultStore(t, c)
			return s
		},
		"WithServerTime": func(t *testing.T, c redis.UniversalClient) *redisstore.Store {
			s, _ := store(t, c, redisstore.WithServerTime()) // after the helper's WithClientTime
			return s
		},
	}
	for name, c := range testredis.Universal(t) {
		for set, ps := range sets {
			for mode, newStore := range modes {
				t.Run(name+"/"+set+"/"+mode, func(t *testing.T) {
					ctx := context.Background()
					s := newStore(t, c)
					// Callers whose clocks are decades apart share one window.
					for i, now := range []time.Time{time.Unix(0, 0), time.Now().AddDate(50, 0, 0), time.Now().AddDate(-20, 0, 0)} {
						r, err := s.Take(ctx, "skewed", ps, 1, now)
						require.NoError(t, err)
						require.EqualValues(t, 10-1-i, r.States[0].Remaining)
						require.Greater(t, r.States[0].ResetAfter, time.Duration(0))
						require.LessOrEqual(t, r.States[0].ResetAfter, time.Hour)
					}
					// With WithClientTime the callers' clocks decide: separate windows.
					local, _ := store(t, c)
					for _, now := range []time.Time{time.Unix(0, 0), time.Now().AddDate(50, 0, 0)} {
						r, err := local.Take(ctx, "skewed", ps, 1, now)
						require.NoError(t, err)
						require.EqualValues(t, 9, r.States[0].Remaining)
					}
				})
			}
		}
	}
}

// A sliding log records a request at its instant rounded up to the
// millisecond, as the memory store does, even when the instant is past a
// whole millisecond by less than a microsecond: admitted then, the request
// counts for a full window of real time, not a window less 500 ns.
func TestSlidingLogSubMicrosecond(t *testing.T) {
	ctx := context.Background()
	ps := policies(t, core.PerSecond(1).Using(core.SlidingLog))
	for name, c := range testredis.Universal(t) {
		t.Run(name, func(t *testing.T) {
			s, _ := store(t, c)
			mem := memory.New()
			admitted := base.Add(500 * time.Nanosecond)
			for _, st := range []core.Store{s, mem} {
				r, err := st.Take(ctx, "k", ps, 1, admitted)
				require.NoError(t, err)
				require.True(t, r.States[0].Allowed)
				assert.Equal(t, time.Second+time.Millisecond, r.States[0].ResetAfter, "%T", st)
			}
			// 999.9995 ms of real time later: still within the window.
			later := base.Add(time.Second)
			want, err := mem.Take(ctx, "k", ps, 1, later)
			require.NoError(t, err)
			got, err := s.Take(ctx, "k", ps, 1, later)
			require.NoError(t, err)
			assert.False(t, got.States[0].Allowed, "a second request within a second of real time")
			assert.Equal(t, want, got)
		})
	}
}

// Peek writes nothing: the members of a sliding log that left the window
// stay until the next charge prunes them.
func TestPeekLeavesSlidingLog(t *testing.T) {
	c := testredis.Standalone(t)
	s, prefix := store(t, c)
	ctx := context.Background()
	ps := policies(t, core.PerMinute(10).Named("log").Using(core.SlidingLog))
	_, err := s.Take(ctx, "u", ps, 1, base)
	require.NoError(t, err)
	k := prefix + ":{u}:l1m:e8i8Su"
	r, err := s.Peek(ctx, "u", ps, 1, base.Add(2*time.Minute))
	require.NoError(t, err)
	assert.EqualValues(t, 10, r.States[0].Remaining)
	assert.EqualValues(t, 1, c.ZCard(ctx, k).Val(), "Peek pruned nothing")
	_, err = s.Take(ctx, "u", ps, 1, base.Add(2*time.Minute))
	require.NoError(t, err)
	assert.EqualValues(t, 1, c.ZCard(ctx, k).Val(), "the charge pruned the old member")
}
