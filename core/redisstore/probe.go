package redisstore

import (
	"context"
	"strconv"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
)

// probeTag is the hash tag of the keys Check decides on. tag never
// returns it for a user key (a tag that starts with '#' is a hash of 32
// hex digits), so a probe never touches a client's counts.
const probeTag = "#check"

// probePolicies are one policy of each algorithm, so a probe runs every
// part of the scripts a first charge and a second one in the same window
// run.
var probePolicies = []core.Policy{
	{Name: "check", Limit: 1000, Window: time.Second, Algorithm: core.FixedWindow},
	{Name: "check", Limit: 1000, Window: time.Second, Algorithm: core.SlidingWindow},
	{Name: "check", Limit: 1000, Window: time.Second, Algorithm: core.SlidingLog},
}

// probe decides as Take does on keys of its own with hash tag t, twice,
// then deletes them as Reset does: what Redis refuses there (an ACL that
// forbids the store's keys or a command its scripts run, a read-only
// user), it would refuse every call.
func (s *Store) probe(ctx context.Context, t string) error {
	n := len(probePolicies)
	var keys []string
	for i := range 2 {
		r := s.newTaggedRequest(t, probePolicies, 1, micros(time.Now())+int64(i), true)
		reply, err := s.evalAlone(ctx, manyScript, r, n)
		if err != nil {
			return within("a decision on "+r.keys[0], err)
		}
		var res core.Result
		if err := decode(&res, reply, n); err != nil {
			return within("a decision on "+r.keys[0], err)
		}
		keys = r.keys[:n]
	}
	if err := s.client.Del(ctx, keys...).Err(); err != nil {
		return within("deleting "+keys[0], classify(err))
	}
	return nil
}

// probeMasters runs probe on every master of a Cluster, each on keys of
// a slot it serves: every node has its own ACL.
func (s *Store) probeMasters(ctx context.Context, c *redis.ClusterClient) error {
	var mu sync.Mutex
	masters := map[*redis.Client]bool{}
	err := c.ForEachMaster(ctx, func(_ context.Context, n *redis.Client) error {
		mu.Lock()
		masters[n] = false
		mu.Unlock()
		return nil
	})
	if err != nil {
		return err
	}
	left := len(masters)
	// A few tags per master find one of its slots unless it serves very
	// few; a master that serves none is not probed.
	for i := 0; left > 0 && i < 64*slots; i++ {
		t := probeTag + strconv.Itoa(i)
		node, err := c.MasterForKey(ctx, t)
		if err != nil {
			return err
		}
		if done, ok := masters[node]; !ok || done {
			continue
		}
		masters[node] = true
		left--
		if err := s.probe(ctx, t); err != nil {
			return within(node.Options().Addr, err)
		}
	}
	return nil
}
