// Package shards lets core/resilient choose the shard count of the memory
// store behind its local fallback, which the memory store keeps out of its
// public options (its default, 16 per CPU, suits a store of its own).
package shards

// Option returns the option of type O that sets a store's shard count to
// n. The store's unexported config has a SetShards method, e.g.
//
//	memory.New(memory.WithMaxKeys(n), shards.Option[memory.Option](16))
func Option[O ~func(C), C interface{ SetShards(int) }](n int) O {
	return func(c C) { c.SetShards(n) }
}
