package main

import (
	"cmp"
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
)

// request is one request of cost 1: who sent it and when.
type request struct {
	at     int64 // milliseconds since the start of the run
	client int   // index of the client, the rate-limit key
}

// workload is a stream of requests in time order.
type workload struct {
	Name    string // short title, used in tables
	About   string // one sentence for the docs
	Clients int
	Length  int64 // milliseconds
	Reqs    []request
}

func newWorkload(name, about string, clients int, length int64, reqs []request) *workload {
	// Requests that compare equal are identical, so the order is fully
	// determined.
	slices.SortFunc(reqs, func(a, b request) int {
		return cmp.Or(cmp.Compare(a.at, b.at), cmp.Compare(a.client, b.client))
	})
	return &workload{Name: name, About: about, Clients: clients, Length: length, Reqs: reqs}
}

// evenly appends n requests of client spread evenly over [from, from+span).
func evenly(reqs []request, client int, from, span, n int64) []request {
	for i := range n {
		reqs = append(reqs, request{at: from + i*span/n, client: client})
	}
	return reqs
}

// arrivals appends the requests of client in [from, to) of a Bernoulli
// process: in every millisecond, a request with probability p (in units of
// 2^-32; 2^32 or more means every millisecond). That is Poisson arrivals at
// the clock's 1 ms resolution. The gaps between arrivals are geometric and
// drawn by inversion on a table of integers, so the stream is the same on
// every machine.
func arrivals(reqs []request, rng *rand.Rand, client int, from, to int64, p uint64) []request {
	if p == 0 {
		return reqs
	}
	p = min(p, 1<<32)
	// survival[k] is (1 − p)^k in units of 2^-62: the chance that the next
	// arrival is more than k milliseconds away. Cut where it is below 2^-40.
	const one = uint64(1) << 62
	survival := []uint64{one}
	for cur := one; cur > one>>40 && len(survival) < 1<<20; {
		hi, lo := bits.Mul64(cur, p)
		cur -= hi<<32 | lo>>32
		survival = append(survival, cur)
	}
	for t := from - 1; ; {
		u := rng.Uint64() >> 2
		// The gap is the least k with survival[k] ≤ u (k ≥ 1, as u < one).
		t += int64(sort.Search(len(survival), func(k int) bool { return survival[k] <= u }))
		if t >= to {
			return reqs
		}
		reqs = append(reqs, request{at: t, client: client})
	}
}

// rate converts a rate given in thousandths of L/W into a per millisecond
// probability in units of 2^-32.
func (s setup) rate(perMille int64) uint64 {
	return uint64(perMille) * uint64(s.Limit) << 32 / uint64(1000*s.Window)
}

// boundaryBurst is the textbook attack on a fixed window: one client sends L
// requests in the last W/20 of a window and L more in the first W/20 of the
// next, and nothing else.
func boundaryBurst(s setup) *workload {
	span := s.Window / 20
	reqs := evenly(nil, 0, s.Window-span, span, s.Limit)
	reqs = evenly(reqs, 0, s.Window, span, s.Limit)
	return newWorkload("boundary burst",
		fmt.Sprintf("one client sends L requests in the last %s of a window and L in the first %s of the next; nothing else.",
			dur(span), dur(span)),
		1, 3*s.Window, reqs)
}

// counterAttack is the worst case of the sliding window counter: one client
// sends L requests in the last W/100 of a window, then a request every
// W/(10·L) (ten times the allowed rate) through the next window. The counter
// weighs the full previous bucket as if it were spread evenly, so it refills
// the current bucket while the burst is still inside the rolling window.
func counterAttack(s setup) *workload {
	w, span := s.Window, s.Window/100
	reqs := evenly(nil, 0, w-span, span, s.Limit)
	for t := w; t < 2*w; t += max(1, w/(10*s.Limit)) {
		reqs = append(reqs, request{at: t, client: 0})
	}
	return newWorkload("counter's worst case",
		fmt.Sprintf("one client sends L requests in the last %s of a window, then ten times the allowed rate through the next window.", dur(span)),
		1, 3*w, reqs)
}

// figureWorkload is the traffic of the plot, one client over five windows:
// a background at 0.3·L/W throughout; a boundary burst (L requests on each
// side of the end of window 1, each over W/20); then 2·L/W until the end of
// window 2 (so the sliding counter, whose previous bucket is full at its
// very end, keeps admitting); quiet window 3; steady 2·L/W in windows 4
// and 5.
func figureWorkload(s setup) *workload {
	rng := rand.New(rand.NewPCG(s.Seed, 1))
	w, span := s.Window, s.Window/20
	gap := max(1, w/(2*s.Limit)) // spacing at 2·L/W
	reqs := arrivals(nil, rng, 0, 0, 5*w, s.rate(300))
	reqs = evenly(reqs, 0, w-span, span, s.Limit)
	reqs = evenly(reqs, 0, w, span, s.Limit)
	for t := w + span; t < 2*w; t += gap {
		reqs = append(reqs, request{at: t, client: 0})
	}
	for t := 3 * w; t < 5*w; t += gap {
		reqs = append(reqs, request{at: t, client: 0})
	}
	return newWorkload("burst, then pressure",
		fmt.Sprintf("the plotted traffic: one client, background at 0.3·L/W; the boundary burst; 2·L/W from the burst to the end of that window (%s–%s); quiet; 2·L/W from %s to %s.",
			dur(w+span), dur(2*w), dur(3*w), dur(5*w)),
		1, 5*w, reqs)
}

// randomWorkload is many clients, each with Poisson arrivals at its own rate,
// drawn uniformly from [lo, hi] thousandths of L/W, plus, in each window
// with probability 1/4, a burst of L/4 to L requests spread over W/10 from a
// random instant.
func randomWorkload(s setup, name string, lo, hi int64, stream uint64) *workload {
	rng := rand.New(rand.NewPCG(s.Seed, stream))
	length := s.Windows * s.Window
	var reqs []request
	for c := range s.Clients {
		rate := lo + int64(rng.Uint64N(uint64(hi-lo+1)))
		reqs = arrivals(reqs, rng, c, 0, length, s.rate(rate))
		for k := range s.Windows {
			if rng.Uint64N(4) != 0 {
				continue
			}
			n := s.Limit/4 + int64(rng.Uint64N(uint64(3*s.Limit/4+1)))
			from := k*s.Window + int64(rng.Uint64N(uint64(s.Window)))
			for _, r := range evenly(nil, c, from, s.Window/10, n) {
				if r.at < length {
					reqs = append(reqs, r)
				}
			}
		}
	}
	about := fmt.Sprintf("%d clients for %s; each client's Poisson rate drawn from %s–%s × L/W, plus in each window, with probability 1/4, a burst of L/4 to L requests within %s.",
		s.Clients, dur(length), ratio(lo), ratio(hi), dur(s.Window/10))
	return newWorkload(name, about, s.Clients, length, reqs)
}

// Positions of the workloads in the list workloads returns.
const (
	boundaryRun = iota
	counterRun
	figureRun
	overloadedRun
	nearLimitRun
	typicalRun
)

// workloads returns every workload of the report, in report order.
func workloads(s setup) []*workload {
	return []*workload{
		boundaryBurst(s),
		counterAttack(s),
		figureWorkload(s),
		randomWorkload(s, "random, overloaded", 1500, 3000, 2),
		randomWorkload(s, "random, near the limit", 600, 1200, 3),
		randomWorkload(s, "random, mostly under", 200, 900, 4),
	}
}

// dur formats milliseconds as seconds ("10 s", "9.5 s") or milliseconds.
func dur(ms int64) string {
	switch {
	case ms%1000 == 0:
		return fmt.Sprintf("%d s", ms/1000)
	case ms%100 == 0 && ms > 1000:
		return fmt.Sprintf("%d.%d s", ms/1000, ms%1000/100)
	}
	return fmt.Sprintf("%d ms", ms)
}

// ratio formats thousandths as a decimal ("1.5", "3").
func ratio(perMille int64) string {
	s := fmt.Sprintf("%d.%03d", perMille/1000, perMille%1000)
	for s[len(s)-1] == '0' {
		s = s[:len(s)-1]
	}
	if s[len(s)-1] == '.' {
		s = s[:len(s)-1]
	}
	return s
}
