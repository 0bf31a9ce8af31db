package redisstore

import "context"

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
func (s *Store) Domain(key string) string {
	if !s.cluster || !s.slotMap.Load() {
		return ""
	}
	node, err := s.master(context.Background(), tag(key))
	if err != nil {
		return ""
	}
	return node.Options().Addr
}
