package redisstore

import "time"

// retryEach runs again, each as its own script call through the store's
// client (a cluster client follows redirects), the requests of a pipeline
// sent at start that Redis answered NOSCRIPT or "not now" (see
// retryable): the script ran for none of them. They are retried together,
// in rounds paced as retry paces a call sent alone (at once, then after
// 1 ms, doubling to 50 ms), so each caller is bounded by its own time,
// with no deadline by the retry budget from start, and none waits for the
// retries of the requests before it. Before each round, the requests whose
// callers left, or whose time would end before it, are answered at once,
// uncharged (see retriesEnded); a request is answered as soon as an
// attempt decides it or meets an answer no retry gets past.
func (s *Store) retryEach(reqs []*request, start time.Time) {
	for wait := time.Duration(0); len(reqs) > 0; wait = min(max(2*wait, retryMin), retryMax) {
		live := reqs[:0]
		for _, r := range reqs {
			if timeUp(r, start, wait) {
				r.err = retriesEnded(r.ctx, r.err, start)
				r.answer()
				continue
			}
			live = append(live, r)
		}
		if len(live) == 0 {
			return
		}
		time.Sleep(wait)
		reqs = live[:0]
		for _, r := range live {
			if left(r.ctx) {
				r.err = retriesEnded(r.ctx, r.err, start)
				r.answer()
				continue
			}
			r.reply, r.err = r.sc.run(r.ctx, s.client, r.args[:4+r.n])
			if retryable(r.err) && !s.misdirected(r.err) {
				if s.cluster {
					s.noteSlot(r.keys[0], r.err)
				}
				reqs = append(reqs, r)
				continue
			}
			if r.err != nil {
				r.err = s.settle(r.err)
			}
			r.answer()
		}
	}
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
