package redisstore

import (
	"context"
	"strings"
	"sync/atomic"

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
// slot map, so Domain never waits for Redis; after that it reads the map
// as the client has it at the moment, so a key's domain follows its slot
// when the slot moves to another master. It allocates nothing for a key
// that is its own hash tag (see Keys).
//
// A slot that no master serves (its master was forgotten, or its slots
// deleted, with no replica to take over) has the domain "no master" from
// the moment Redis answers a call for it that the slot is not served
// until a call for it succeeds again: the cluster client would name a
// random node for it, and its keys' failures would open the breakers of
// healthy masters. Its calls are sent alone, not queued behind a master.
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

// noteSlot records what the answer to a call for key (err nil: a
// decision) says about key's slot: whether Redis answered that no master
// serves it, or that it is served again.
func (s *Store) noteSlot(key string, err error) {
	switch {
	case err == nil:
		if s.unserved.n.Load() > 0 {
			s.unserved.remove(keySlot(key))
		}
	case redis.HasErrorPrefix(err, "CLUSTERDOWN Hash slot not served"):
		s.unserved.add(keySlot(key))
	}
}

// slotSet is a set of cluster slots, safe for concurrent use; holds costs
// one atomic load while the set is empty.
type slotSet struct {
	n    atomic.Int32
	bits [slots / 64]atomic.Uint64
}

// slots is the number of hash slots of a Redis Cluster.
const slots = 16384

func (u *slotSet) add(slot int) {
	mask := uint64(1) << (slot % 64)
	if u.bits[slot/64].Or(mask)&mask == 0 {
		u.n.Add(1)
	}
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
