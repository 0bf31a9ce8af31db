package redisstore

import (
	"cmp"
	"context"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// noMaster is the domain of the keys of a slot that no master serves.
const noMaster = "no master"

// Domain returns the failure domain of key, for a circuit breaker per
// domain (core/resilient keeps one per domain of a primary that has this
// method): on a Cluster client, the address of the master that serves
// key's slot, the master whose queue and round trips key's calls use (see
// Batching); "" on any other client, one domain for the whole Redis. On a
// Cluster it is "" too until a call of the store has found the client's
// slot map (and read which slots no master serves, see below), so Domain
// never waits for Redis; after that it reads the map as the client has it
// at the moment, so a key's domain follows its slot when the slot moves to
// another master. It allocates nothing for a key that is its own hash tag
// (see Keys).
//
// A slot that no master serves (a cluster still assigning its slots, a
// master forgotten or its slots deleted, with no replica to take over)
// has the domain "no master" until a call for it succeeds again: the
// cluster client names a random node for such a slot, and its keys'
// failures would open the breakers of healthy masters. The store learns
// those slots from CLUSTER SHARDS, which it reads once it finds the slot
// map and again whenever Redis first answers a call that its slot is not
// served (at that first answer, not once the call's retries end). Calls
// for such a slot are sent alone, not queued behind a master.
func (s *Store) Domain(key string) string {
	if !s.cluster || !s.slotMap.Load() {
		return ""
	}
	t := tag(key)
	if s.unserved.holds(t) {
		return noMaster
	}
	node, err := s.master(context.Background(), t)
	if err != nil {
		return ""
	}
	return node.Options().Addr
}

// noteSlot records what an answer to a call for key (err nil: a
// decision) says about key's slot: that no master serves it, or that it
// is served again. A slot newly found without a master has most likely
// lost it with others (a master's slots): the store reads which.
func (s *Store) noteSlot(key string, err error) {
	switch {
	case err == nil:
		if s.unserved.n.Load() > 0 {
			s.unserved.remove(keySlot(key))
		}
	case redis.HasErrorPrefix(err, "CLUSTERDOWN Hash slot not served"):
		if s.unserved.add(keySlot(key)) {
			s.readSlots()
		}
	}
}

// findSlots is called when a call finds that the cluster client has its
// slot map: the first time, it reads which slots no master serves before
// Domain names any master (it sets slotMap once the read is done, or has
// failed). It waits for the read at most until ctx is done; the read goes
// on without it, for at most a second.
func (s *Store) findSlots(ctx context.Context) {
	if s.slotMap.Load() || !s.finding.CompareAndSwap(false, true) {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer s.slotMap.Store(true)
		defer logPanic()
		rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Second)
		defer cancel()
		_ = s.markUnassigned(rctx)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

// readSlots reads again, in the background, which slots no master
// serves. One read runs at a time; a request while one runs makes it read
// once more (s.slotReads counts them).
func (s *Store) readSlots() {
	if s.slotReads.Add(1) != 1 {
		return
	}
	go func() {
		for {
			n := s.slotReads.Load()
			s.readSlotsOnce()
			if s.slotReads.CompareAndSwap(n, 0) {
				return
			}
		}
	}()
}

// readSlotsOnce is one read of readSlots; a panic of the client is logged
// (see logPanic), and the reads go on.
func (s *Store) readSlotsOnce() {
	defer logPanic()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = s.markUnassigned(ctx)
}

// markUnassigned adds to s.unserved every slot that CLUSTER SHARDS shows
// in no shard. A slot leaves the set when a call for it succeeds
// (noteSlot), never here: a call is what shows that the cluster client
// has a master for it too.
func (s *Store) markUnassigned(ctx context.Context) error {
	shards, err := s.client.(*redis.ClusterClient).ClusterShards(ctx).Result()
	if err != nil {
		return err
	}
	var ranges []redis.SlotRange
	for _, sh := range shards {
		ranges = append(ranges, sh.Slots...)
	}
	slices.SortFunc(ranges, func(a, b redis.SlotRange) int { return cmp.Compare(a.Start, b.Start) })
	next := 0 // the first slot no range seen so far covers
	for _, r := range ranges {
		for slot := next; slot < min(int(r.Start), slots); slot++ {
			s.unserved.add(slot)
		}
		next = max(next, int(r.End)+1)
	}
	for slot := next; slot < slots; slot++ {
		s.unserved.add(slot)
	}
	return nil
}

// slotSet is a set of cluster slots, safe for concurrent use; holds costs
// one atomic load while the set is empty.
type slotSet struct {
	n    atomic.Int32
	bits [slots / 64]atomic.Uint64
}

// slots is the number of hash slots of a Redis Cluster.
const slots = 16384

// add adds slot to the set and reports whether it was not in it.
func (u *slotSet) add(slot int) bool {
	mask := uint64(1) << (slot % 64)
	if u.bits[slot/64].Or(mask)&mask != 0 {
		return false
	}
	u.n.Add(1)
	return true
}

func (u *slotSet) remove(slot int) {
	mask := uint64(1) << (slot % 64)
	if u.bits[slot/64].And(^mask)&mask != 0 {
		u.n.Add(-1)
	}
}

// holds reports whether the slot of key is in the set.
func (u *slotSet) holds(key string) bool {
	if u.n.Load() == 0 {
		return false
	}
	slot := keySlot(key)
	return u.bits[slot/64].Load()&(uint64(1)<<(slot%64)) != 0
}

// keySlot returns the cluster slot of key, as Redis computes it: the
// CRC16 (XMODEM) of its hash tag (what is between its first '{' and the
// next '}', if that is not empty) or else of the whole key, modulo 16384.
func keySlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	var crc uint16
	for i := 0; i < len(key); i++ {
		crc ^= uint16(key[i]) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return int(crc) % slots
}
