package topkeys

import (
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/keyhash"
)

// Summary is a Space-Saving summary of the keys that were denied or would
// have been denied, per route and policy. It is safe for concurrent use.
// See the package documentation for its error bound and memory.
type Summary struct {
	raw    bool
	secret []byte
	clock  core.Clock

	mu     sync.Mutex
	k      int
	events uint64
	index  map[item]*entry
	heap   []*entry // a min-heap on count
}

// item is what a Summary counts.
type item struct{ route, policy, key string }

type entry struct {
	item
	count uint64
	err   uint64
	last  int64 // Unix nanoseconds
	pos   int   // index in Summary.heap
}

// New returns a Summary with capacity counters: it tracks at most capacity
// (route, policy, key) items, and its error bound is N/capacity after N
// events. A capacity below one, or an invalid option, is an error wrapping
// core.ErrInvalidConfig.
func New(capacity int, opts ...Option) (*Summary, error) {
	cfg := config{clock: wallClock{}}
	for _, o := range opts {
		if o != nil {
			o(&cfg)
		}
	}
	if capacity < 1 {
		return nil, fmt.Errorf("topkeys: %w: capacity must be at least 1, got %d", core.ErrInvalidConfig, capacity)
	}
	if !cfg.raw && len(cfg.secret) == 0 {
		cfg.secret = keyhash.NewSecret()
	}
	return &Summary{
		raw:    cfg.raw,
		secret: cfg.secret,
		clock:  cfg.clock,
		k:      capacity,
		index:  make(map[item]*entry, min(capacity, initialSize)),
		heap:   make([]*entry, 0, min(capacity, initialSize)),
	}, nil
}

// initialSize bounds what New allocates up front: a Summary grows to its
// capacity only as distinct keys are denied, so a generous capacity costs
// nothing until a flood needs it.
const initialSize = 1024

// Observe is the OnDecision hook: it counts the request's key under its
// route and binding policy when the request was denied or would have been
// (Event.WouldDeny), and ignores every other request.
func (s *Summary) Observe(ev ratewindow.Event) {
	if !ev.WouldDeny || ev.Key == "" {
		return
	}
	s.add(item{route: ev.Route, policy: ev.Decision.Policy().Name, key: ev.Key}, s.clock.Now().UnixNano())
}

// add counts one event of it at time now.
func (s *Summary) add(it item, now int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.events++
	if e, ok := s.index[it]; ok {
		e.count++
		e.last = now
		s.down(e.pos)
		return
	}
	// The strings outlive the request: own their bytes, in case the
	// framework's strings point into a reused buffer.
	it = item{route: strings.Clone(it.route), policy: strings.Clone(it.policy), key: strings.Clone(it.key)}
	if len(s.heap) < s.k {
		e := &entry{item: it, count: 1, last: now, pos: len(s.heap)}
		s.heap = append(s.heap, e)
		s.index[it] = e
		s.up(e.pos)
		return
	}
	// Full: the item replaces the one with the smallest count, and
	// inherits that count as its possible over-estimation.
	e := s.heap[0]
	delete(s.index, e.item)
	e.item, e.err, e.last = it, e.count, now
	e.count++
	s.index[it] = e
	s.down(0)
}

// up moves heap[i] towards the root while it is smaller than its parent.
func (s *Summary) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if s.heap[p].count <= s.heap[i].count {
			return
		}
		s.swap(i, p)
		i = p
	}
}

// down moves heap[i] towards the leaves while it is larger than a child.
func (s *Summary) down(i int) {
	n := len(s.heap)
	for {
		c := 2*i + 1
		if c >= n {
			return
		}
		if r := c + 1; r < n && s.heap[r].count < s.heap[c].count {
			c = r
		}
		if s.heap[i].count <= s.heap[c].count {
			return
		}
		s.swap(i, c)
		i = c
	}
}

func (s *Summary) swap(i, j int) {
	s.heap[i], s.heap[j] = s.heap[j], s.heap[i]
	s.heap[i].pos, s.heap[j].pos = i, j
}

// row is one tracked (route, policy, key) item of a snapshot.
type row struct {
	// Route is the route pattern and Policy the binding policy's name of
	// the counted decisions; Key is the rate-limit key.
	Route, Policy, Key string
	// Count is the number of denied and would-deny requests counted for
	// the item. It over-estimates the true number by at most Error:
	// Count − Error ≤ true count ≤ Count.
	Count uint64
	// Error bounds Count's over-estimation (zero when the item has been
	// tracked since its first event).
	Error uint64
	// LastSeen is the time of the item's latest counted request.
	LastSeen time.Time
}

// snapshot is what the Handler serves of a Summary.
type snapshot struct {
	// Events is N, the number of denied and would-deny requests observed.
	Events uint64
	// Capacity is k, the number of counters.
	Capacity int
	// ErrorBound is the smallest counter once all k are in use, else 0:
	// no row's Error exceeds it, and no untracked item was counted more
	// often. It is at most Events/Capacity.
	ErrorBound uint64
	// Top holds the tracked items, the highest Count first.
	Top []row
}

// top returns a snapshot with the n items of highest Count (all tracked
// items if n ≤ 0), for which keep returns true (every item if keep is nil).
func (s *Summary) top(n int, keep func(route, policy string) bool) snapshot {
	s.mu.Lock()
	r := snapshot{Events: s.events, Capacity: s.k}
	if len(s.heap) == s.k {
		r.ErrorBound = s.heap[0].count
	}
	r.Top = make([]row, 0, len(s.heap))
	for _, e := range s.heap {
		if keep == nil || keep(e.route, e.policy) {
			r.Top = append(r.Top, row{Route: e.route, Policy: e.policy, Key: e.key,
				Count: e.count, Error: e.err, LastSeen: time.Unix(0, e.last)})
		}
	}
	s.mu.Unlock()
	sort.Slice(r.Top, func(i, j int) bool {
		a, b := r.Top[i], r.Top[j]
		if a.Count != b.Count {
			return a.Count > b.Count
		}
		return a.LastSeen.After(b.LastSeen)
	})
	if n > 0 && len(r.Top) > n {
		r.Top = r.Top[:n]
	}
	return r
}
