package redisstore

import (
	"context"
	"net"
	"strconv"
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
// a slot it serves (every node has its own ACL), as CLUSTER SHARDS names
// them: a slot no master serves is never probed.
func (s *Store) probeMasters(ctx context.Context, c *redis.ClusterClient) error {
	shards, err := c.ClusterShards(ctx).Result()
	if err != nil {
		return err
	}
	for _, sh := range shards {
		if len(sh.Slots) == 0 {
			continue
		}
		// A tag of one of the shard's slots: about 16384 / (its slots)
		// tries, a CRC16 each. A shard of very few slots may not be
		// found within the bound; it is not probed.
		for i := 0; i < 64*slots; i++ {
			t := probeTag + strconv.Itoa(i)
			if !inRanges(keySlot(t), sh.Slots) {
				continue
			}
			if err := s.probe(ctx, t); err != nil {
				return within(shardMaster(sh), err)
			}
			break
		}
	}
	return nil
}

// inRanges reports whether slot is in one of ranges.
func inRanges(slot int, ranges []redis.SlotRange) bool {
	for _, r := range ranges {
		if int(r.Start) <= slot && slot <= int(r.End) {
			return true
		}
	}
	return false
}

// shardMaster names the master of a shard (host:port) for an error.
func shardMaster(sh redis.ClusterShard) string {
	for _, n := range sh.Nodes {
		if n.Role == "master" {
			host := n.Endpoint
			if host == "" || host == "?" {
				host = n.IP
			}
			return net.JoinHostPort(host, strconv.FormatInt(n.Port, 10))
		}
	}
	return "a shard with no master"
}
