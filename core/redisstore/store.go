package redisstore

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/internal/callcheck"
)

// Store is the Redis core.Store. Create one with New; it is safe for
// concurrent use, and any number of processes may share one Redis.
type Store struct {
	client     redis.UniversalClient
	prefix     string
	serverTime bool
	// ctxAware is true when the client itself bounds every network wait by
	// the context's deadline (ContextTimeoutEnabled); otherwise the store
	// does, see call.
	ctxAware bool
	// cluster is true for a *redis.ClusterClient, the one client that
	// follows MOVED and ASK; to any other a MOVED is a configuration error.
	cluster bool
	// batch queues the calls that wait for a round trip; on a Cluster,
	// nodes holds a batcher per master (*redis.Client to *batcher).
	batch batcher
	nodes sync.Map
	// prunes counts the batchers nodes gained since pruneNodes last
	// started a pass; it is not 0 while pruneNodes runs.
	prunes atomic.Int64
	// slotMap is set once the cluster client has a slot map and the store
	// has read which slots no master serves (see Domain); finding is set
	// while the first call that found the map reads them (findSlots).
	slotMap, finding atomic.Bool
	// slotReads counts the requests to read those slots again since the
	// current read started; it is not 0 while one runs (readSlots).
	slotReads atomic.Int64
	// unserved holds the slots Redis answered that no master serves (see
	// Domain).
	unserved slotSet
	// queueWait is the client's read timeout (0: none): a batch that ran
	// that long without an answer drops the calls queued behind it (see
	// dropStalled).
	queueWait time.Duration
}

var _ core.Store = (*Store)(nil)

// New returns a store that keeps its counters in Redis through client: a
// *redis.Client, *redis.ClusterClient, *redis.Ring or a Sentinel-backed
// client. The store does not close the client. A client whose address
// holds several comma-joined addresses, or is a URL, is refused (see
// ErrMisconfigured); New itself sends nothing to Redis: run Check at
// startup to find the rest.
func New(client redis.UniversalClient, opts ...Option) (*Store, error) {
	if client == nil {
		return nil, fmt.Errorf("redisstore: %w: client must not be nil", core.ErrInvalidConfig)
	}
	c := config{prefix: defaultPrefix}
	for _, o := range opts {
		if o != nil {
			o(&c)
		}
	}
	if err := c.validate(); err != nil {
		return nil, err
	}
	if err := checkAddrs(client); err != nil {
		// err starts with ErrMisconfigured's "redisstore: ...".
		return nil, fmt.Errorf("%w: %w", core.ErrInvalidConfig, err)
	}
	_, cluster := client.(*redis.ClusterClient)
	s := &Store{client: client, prefix: c.prefix, serverTime: !c.clientTime, ctxAware: contextAware(client), cluster: cluster,
		queueWait: readTimeout(client)}
	switch client.(type) {
	case *redis.Client:
		s.batch.mode = batchScript // one server: several calls in one script
	case *redis.ClusterClient:
		s.batch.mode = batchPipeline
	}
	return s, nil
}

// Take implements core.Store: one script evaluates every policy and
// charges cost to all of them only if all allow. Concurrent calls share
// round trips (see Batching in the package documentation).
func (s *Store) Take(ctx context.Context, key string, policies []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.run(ctx, "take", key, policies, cost, now, true)
}

// Peek implements core.Store. It charges nothing and writes nothing,
// except to move a sliding log the clock stepped back behind to now (see
// Time in the package documentation): members that left the window stay
// until the next charge prunes them.
func (s *Store) Peek(ctx context.Context, key string, policies []core.Policy, cost int64, now time.Time) (core.Result, error) {
	return s.run(ctx, "peek", key, policies, cost, now, false)
}

// Reset implements core.Store: one DEL of every policy's key (they share a
// hash tag, so this works on a cluster too), retried on the answers a
// script call is retried on, and reported as one is (see Production in
// the package documentation).
func (s *Store) Reset(ctx context.Context, key string, policies []core.Policy) error {
	if err := callcheck.Check(policies, 1); err != nil {
		return opError("reset", err)
	}
	keys := s.keys(key, policies)
	err := s.call(ctx, func(ctx context.Context) error {
		del := func() error { return s.client.Del(ctx, keys...).Err() }
		if err := del(); err != nil {
			return s.retry(ctx, keys[0], err, del)
		}
		return nil
	})
	if err != nil {
		return opError("reset", err)
	}
	return nil
}

func (s *Store) run(ctx context.Context, op, key string, policies []core.Policy, cost int64, now time.Time, charge bool) (core.Result, error) {
	var r core.Result
	if err := callcheck.Check(policies, cost); err != nil {
		return r, opError(op, err)
	}
	sc := manyScript
	if len(policies) == 1 {
		sc = oneScript
	}
	req := s.newRequest(key, policies, cost, micros(now), charge)
	reply, err := s.eval(ctx, sc, req, len(policies))
	if s.cluster {
		s.noteSlot(req.keys[0], err)
	}
	if err != nil {
		return r, opError(op, err)
	}
	if err := decode(&r, reply, len(policies)); err != nil {
		return r, opError(op, unreadable(err))
	}
	return r, nil
}

// micros returns now in Unix microseconds for the scripts, which round it
// down and up to whole milliseconds: rounded down, except that an instant
// less than a microsecond past a whole millisecond gets one microsecond
// more, so that it still rounds up to the next millisecond, as the memory
// store rounds it (a sliding log records a request at that instant).
func micros(now time.Time) int64 {
	us := now.UnixMicro()
	if us%1000 == 0 && now.Nanosecond()%1000 != 0 {
		us++
	}
	return us
}

// decode fills r from the script's reply: four MessagePack integers per
// policy (allowed, remaining, reset after and retry after in ms).
func decode(r *core.Result, reply string, n int) error {
	rest := reply
	for i := 0; i < n; i++ {
		var v [4]int64
		for j := range v {
			var err error
			if v[j], rest, err = readInt(rest); err != nil {
				return fmt.Errorf("script reply %q: value %d: %w", reply, 4*i+j, err)
			}
		}
		r.States[i] = core.PolicyState{
			Allowed:    v[0] == 1,
			Remaining:  v[1],
			ResetAfter: time.Duration(v[2]) * time.Millisecond,
			RetryAfter: time.Duration(v[3]) * time.Millisecond,
		}
	}
	if rest != "" {
		return fmt.Errorf("script reply %q: more than %d values for %d policies", reply, 4*n, n)
	}
	return nil
}
