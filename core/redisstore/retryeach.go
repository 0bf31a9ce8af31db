package redisstore

import (
	"sync"
	"time"
)

// retryEach runs again, each as its own script call through the store's
// client (a cluster client follows redirects), the requests of a pipeline
// sent at start that Redis answered NOSCRIPT or "not now" (see
// retryable): the script ran for none of them. Each request is retried
// on a goroutine of its own, all at once, paced as retry paces a call
// sent alone (at once, then after 1 ms, doubling to 50 ms), and bounded
// by its own caller's time: its deadline, or with none the retry budget
// from start. No request waits for another's attempts: when the node
// they go to stops answering during the retries, each caller waits for
// its own attempt only, at most the client's read timeout (or its
// deadline), not one for every request before it. A request is answered
// as soon as an attempt decides it or meets an answer no retry gets
// past; one whose caller left, or whose time would end before its next
// attempt, is answered at once, uncharged (see retriesEnded). retryEach
// returns once every request is answered: none of its goroutines
// outlives it.
func (s *Store) retryEach(reqs []*request, start time.Time) {
	var wg sync.WaitGroup
	for _, r := range reqs {
		wg.Go(func() { s.retryOne(r, start) })
	}
	wg.Wait()
}

// retryOne retries r (see retryEach) until an attempt decides it or its
// caller's time ends, and answers it. A panic of the client (of a hook of
// the user's) fails r (see ErrClientPanicked) instead of the process:
// nothing else would recover it on this goroutine.
func (s *Store) retryOne(r *request, start time.Time) {
	defer func() {
		if p := recover(); p != nil && !r.answered {
			r.reply, r.err = "", panicked(p)
			r.answer()
		}
	}()
	for wait := time.Duration(0); ; wait = min(max(2*wait, retryMin), retryMax) {
		if timeUp(r, start, wait) {
			r.err = retriesEnded(r.ctx, r.err, start)
			r.answer()
			return
		}
		time.Sleep(wait)
		if left(r.ctx) {
			r.err = retriesEnded(r.ctx, r.err, start)
			r.answer()
			return
		}
		r.reply, r.err = r.sc.run(r.ctx, s.client, r.args[:4+r.n])
		if !retryable(r.err) || s.misdirected(r.err) {
			break
		}
		if s.cluster {
			s.noteSlot(r.keys[0], r.err)
		}
	}
	if r.err != nil {
		r.err = s.settle(r.err)
	}
	r.answer()
}

// timeUp reports whether the caller of r, whose retries began at start,
// will have stopped waiting by an attempt made wait from now: it left, or
// its deadline (with none, the retry budget from start) passes before.
func timeUp(r *request, start time.Time, wait time.Duration) bool {
	giveUp, ok := r.ctx.Deadline()
	if !ok {
		giveUp = start.Add(retryBudget)
	}
	return left(r.ctx) || !time.Now().Add(wait).Before(giveUp)
}
