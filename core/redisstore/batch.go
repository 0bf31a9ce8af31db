package redisstore

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// Batching. A call that finds fewer than maxInFlight round trips in flight
// is sent at once, on its own, on the caller's goroutine: one goroutine
// at a time pays nothing for batching. Calls that arrive while that many
// are in flight queue, and go together in the next round trip, sent by a
// goroutine of the store as soon as a round trip finishes: no timer, so
// a batch grows only while Redis is busy. On a standalone Redis (or
// Sentinel) a batch is one script call (batchLua, scripts/batch.lua) that
// decides its requests one after another. On a Cluster each master has a
// queue and round trips of its own (a batcher per master), so a master
// that does not answer holds up only the calls for its keys; a batch is a
// pipeline of the requests' own script calls to that master. Other
// clients (a Ring, a wrapper) send every call alone.
//
// Some endpoints present one address but enforce Cluster's rule that a
// script's keys live in one slot (a proxy in front of every slot, or one
// node that serves them all): they answer a standalone batch, whose keys
// span slots, CROSSSLOT before it runs, so nothing was charged. Its
// requests are then sent again, each as its own script call (one slot
// each) in one pipeline, and the store sends its later batches that way
// too (see sendSlotted).
const (
	maxInFlight = 2
	// maxBatch bounds the requests of one round trip, so one script call
	// holds Redis for a bounded time (some hundreds of µs).
	maxBatch = 64
)

// The states of a queued request, guarded by batcher.mu.
const (
	queued    = iota // waiting for a round trip
	sent             // in a round trip: it may be charged
	abandoned        // its caller left first: it is never sent
)

// batcher is the queue of a Store's calls, or on a Cluster of the calls
// for one master's keys.
type batcher struct {
	mu       sync.Mutex
	queue    []*request
	inFlight int // round trips in flight, alone or batched
	// answers counts the round trips Redis answered (see dropStalled).
	answers uint64
	// mode says how a batch is sent.
	mode batchMode
	// node is the master a Cluster's batcher sends its batches to.
	node *redis.Client
	// slotted is set once Redis answered a batch script CROSSSLOT: the
	// endpoint enforces slots, and batches are pipelines of the requests'
	// own script calls from then on.
	slotted atomic.Bool
}

// batchMode is how a Store sends a batch.
type batchMode int

const (
	batchOff      batchMode = iota // every call alone
	batchScript                    // one call of batchLua
	batchPipeline                  // a pipeline per master of a Cluster
)

// batched is what a queued request carries besides its command.
type batched struct {
	ctx   context.Context
	sc    *script
	n     int // policies
	state int
	done  chan struct{} // closed when reply and err are set
	reply string
	err   error
	// answered is set when done is closed (see answer).
	answered bool
}

// answer hands r its reply or error, and so its caller, once: the
// batcher's goroutine calls it when r's batch is done, or earlier when r
// leaves a batch that is sent again (see stillWaiting). r's fields are its
// caller's from then on.
func (r *request) answer() {
	if r.answered {
		return
	}
	r.answered = true
	r.err = withContext(r.ctx, r.err)
	close(r.done)
}

// eval runs sc for r: at once if a round trip is free, or else in the
// next batch. It returns the script's reply for r, within ctx's deadline.
func (s *Store) eval(ctx context.Context, sc *script, r *request, n int) (reply string, err error) {
	if err := ctx.Err(); err != nil {
		return "", err // the caller gave up already: no round trip
	}
	b := &s.batch
	if b.mode == batchPipeline {
		b = s.nodeBatcher(ctx, r)
	}
	if b == nil || b.mode == batchOff {
		reply, err = s.evalAlone(ctx, sc, r, n)
		if s.cluster && !s.slotMap.Load() && (err == nil || isReply(err)) {
			// Redis answered, so the cluster client has its slot map.
			s.findSlots(ctx)
		}
		return reply, err
	}
	b.mu.Lock()
	if b.inFlight < maxInFlight && len(b.queue) == 0 {
		b.inFlight++
		b.mu.Unlock()
		// Deferred, so a panic on this goroutine (a client hook's, say,
		// that the caller recovers) does not keep the round trip; it is
		// no answer from Redis.
		answered := false
		defer func() { s.finished(b, answered) }()
		reply, err = s.evalAlone(ctx, sc, r, n)
		answered = err == nil || isReply(err)
		return reply, err
	}
	r.ctx, r.sc, r.n, r.state, r.done = ctx, sc, n, queued, make(chan struct{})
	b.queue = append(b.queue, r)
	start := b.inFlight < maxInFlight
	if start {
		b.inFlight++
	}
	b.mu.Unlock()
	if start {
		go s.flush(b)
	}
	select {
	case <-r.done:
		return r.reply, r.err
	case <-ctx.Done():
	}
	b.mu.Lock()
	state := r.state
	if state == queued {
		r.state = abandoned
	}
	b.mu.Unlock()
	if state == sent {
		return sentAnswer(ctx, r)
	}
	return "", ctx.Err()
}

// sentAnswer is what the caller of r, sent in a batch, gets once its
// context is done. At its deadline: the answer if it came in at the same
// moment, or else ctx's error. At a cancellation before its deadline: the
// answer, waited for until the deadline at most, as a call sent alone on
// its caller's goroutine waits for its reply (see inline), so that a
// request the middleware asks again, detached, is not charged twice. The
// batch's round trip ends within the client's timeouts, or the retry
// budget, as that call's does; its retries leave out r (see stillWaiting).
func sentAnswer(ctx context.Context, r *request) (string, error) {
	select {
	case <-r.done: // the answer came in at the same moment
		return r.reply, r.err
	default:
	}
	if !errors.Is(ctx.Err(), context.Canceled) {
		return "", ctx.Err()
	}
	d, ok := ctx.Deadline()
	if !ok {
		<-r.done
		return r.reply, r.err
	}
	t := time.NewTimer(time.Until(d))
	defer t.Stop()
	select {
	case <-r.done:
		return r.reply, r.err
	case <-t.C:
		return "", ctx.Err()
	}
}

// nodeBatcher returns the batcher of the master that holds r's keys on a
// Cluster, or nil if the client cannot say which master that is, or if
// Redis answered that no master serves their slot (r is then sent alone,
// and the client finds its way; it would name a random node). Until the client has
// its slot map, a call with a deadline the client does not honour is sent
// alone too: looking for the map would hold it for the client's own
// timeouts, on the caller's goroutine.
func (s *Store) nodeBatcher(ctx context.Context, r *request) *batcher {
	if !s.slotMap.Load() && !s.inline(ctx) || s.unserved.holds(r.keys[0]) {
		return nil
	}
	node, err := s.master(ctx, r.keys[0])
	if err != nil {
		return nil
	}
	if b, ok := s.nodes.Load(node); ok {
		return b.(*batcher)
	}
	b, loaded := s.nodes.LoadOrStore(node, &batcher{mode: batchPipeline, node: node})
	if !loaded && s.prunes.Add(1) == 1 {
		go s.pruneNodes()
	}
	return b.(*batcher)
}

// pruneNodes drops the batchers of the nodes the cluster client no longer
// lists as masters. It runs when a master gets its first batcher: the
// cluster client has a new master (a replica promoted, a node added), and
// the one it replaced must not keep a batcher, and the client it holds,
// for ever. A dropped batcher still sends the calls it holds, as it would
// have: its round trips drain its queue, and only new calls go to the new
// batcher of its node if the node is, or becomes again, a master (for a
// moment, that node then has up to twice maxInFlight round trips).
// One goroutine at a time prunes, once more for the batchers created
// while it ran (s.prunes counts them).
func (s *Store) pruneNodes() {
	for {
		n := s.prunes.Load()
		s.pruneNodesOnce()
		if s.prunes.CompareAndSwap(n, 0) {
			return
		}
	}
}

func (s *Store) pruneNodesOnce() {
	defer logPanic()
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	var mu sync.Mutex
	masters := map[*redis.Client]bool{}
	err := s.client.(*redis.ClusterClient).ForEachMaster(ctx, func(_ context.Context, node *redis.Client) error {
		mu.Lock()
		masters[node] = true
		mu.Unlock()
		return nil
	})
	if err != nil || len(masters) == 0 {
		return // no slot map: keep every batcher until the next time
	}
	s.nodes.Range(func(node, b any) bool {
		if !masters[node.(*redis.Client)] {
			s.nodes.CompareAndDelete(node, b)
		}
		return true
	})
}

// master returns the client of the Cluster master that serves key's slot
// (key may be any key with the same hash tag, or the tag itself), as the
// cluster client's slot map has it.
func (s *Store) master(ctx context.Context, key string) (*redis.Client, error) {
	node, err := s.client.(*redis.ClusterClient).MasterForKey(ctx, key)
	if err != nil {
		return nil, err
	}
	if !s.slotMap.Load() {
		s.findSlots(ctx)
	}
	return node, nil
}

// finished ends a round trip of a call sent alone through b, which Redis
// answered or not: if calls queued meanwhile, its slot goes to a goroutine
// that sends them.
func (s *Store) finished(b *batcher, answered bool) {
	b.mu.Lock()
	if answered {
		b.answers++
	}
	if len(b.queue) == 0 {
		b.inFlight--
		b.mu.Unlock()
		return
	}
	b.mu.Unlock()
	go s.flush(b)
}

// flush sends b's queue in batches of at most maxBatch until it is empty,
// then gives up its slot.
func (s *Store) flush(b *batcher) {
	var batch []*request
	for {
		batch = batch[:0]
		b.mu.Lock()
		taken := 0
		for _, r := range b.queue {
			if len(batch) == maxBatch {
				break
			}
			taken++
			if r.state == abandoned || left(r.ctx) {
				r.state = abandoned
				continue
			}
			r.state = sent
			batch = append(batch, r)
		}
		rest := copy(b.queue, b.queue[taken:])
		clear(b.queue[rest:])
		b.queue = b.queue[:rest]
		if len(batch) == 0 {
			b.inFlight--
			b.mu.Unlock()
			return
		}
		answers := b.answers
		b.mu.Unlock()
		start := time.Now()
		s.sendSafely(b, batch)
		answered := false
		for _, r := range batch {
			answered = answered || r.err == nil || isReply(r.err)
			r.answer()
		}
		clear(batch)
		b.mu.Lock()
		if answered {
			b.answers++
		} else {
			s.dropStalled(b, answers, time.Since(start))
		}
		b.mu.Unlock()
	}
}

// dropStalled fails, unsent and so uncharged, every call queued in b when
// a batch that ran for took, at least the client's read timeout
// (queueWait), got no answer from Redis and no other round trip of b was
// answered meanwhile (b.answers is still answers): Redis has been silent
// that long, and each queued call would otherwise wait for a batch of its
// own to time out in turn, however long its deadline (or, without one,
// for ever longer as calls pile up). A batch cut short by its callers'
// deadlines drops nothing. Called with b.mu held.
func (s *Store) dropStalled(b *batcher, answers uint64, took time.Duration) {
	if s.queueWait <= 0 || took < s.queueWait || b.answers != answers {
		return
	}
	for _, r := range b.queue {
		if r.state != queued {
			continue
		}
		r.state = sent // taken from the queue: its caller reads done
		r.reply, r.err = "", fmt.Errorf("not sent: Redis answered no round trip for %v, the client's read timeout: %w", took.Round(time.Millisecond), os.ErrDeadlineExceeded)
		close(r.done)
	}
	clear(b.queue)
	b.queue = b.queue[:0]
}

// sendSafely is send, but a panic of the client (of a hook of the user's)
// fails the batch's requests (see ErrClientPanicked) instead of the process
// and the batcher: nothing else would recover it on this goroutine.
func (s *Store) sendSafely(b *batcher, batch []*request) {
	defer func() {
		if p := recover(); p != nil {
			err := panicked(p)
			for _, r := range batch {
				if !r.answered {
					r.reply, r.err = "", err
				}
			}
		}
	}()
	s.send(b, batch)
}

// send runs batch, queued in b, in one round trip and sets every
// request's reply or error, unless it answered the request already (see
// answer).
func (s *Store) send(b *batcher, batch []*request) {
	if len(batch) == 1 {
		r := batch[0]
		r.reply, r.err = s.runRetried(r.ctx, r.keys[0], r.sc, r.args[:4+r.n])
		return
	}
	if b.node == nil && !b.slotted.Load() {
		s.sendScript(batch)
		return
	}
	ctx, cancel := batchContext(batch)
	defer cancel()
	if b.node != nil {
		s.pipelineTo(ctx, b.node, batch)
		return
	}
	s.pipelineTo(ctx, s.client.(*redis.Client), batch)
}

// batchContext returns the context of a batch's round trip: no
// cancellation (a caller that leaves does not fail the others), and the
// latest deadline of the batch, or none if one of them has none (the
// client's own timeouts bound it then). Each caller still stops waiting
// at its own deadline.
func batchContext(batch []*request) (context.Context, context.CancelFunc) {
	var latest time.Time
	for _, r := range batch {
		d, ok := r.ctx.Deadline()
		if !ok {
			return context.WithoutCancel(batch[0].ctx), func() {}
		}
		if d.After(latest) {
			latest = d
		}
	}
	return context.WithDeadline(context.WithoutCancel(batch[0].ctx), latest)
}

// sendScript runs batch as one call of batchLua (see scriptOnce): its
// keys are every request's keys in order, its arguments every request's
// argument. An answer CROSSSLOT hands the batch to sendSlotted. An answer
// worth retrying (see retry) means the script did not run: the batch is
// sent again, paced as retry paces a call sent alone, and each caller is
// bounded by its own time, as it would be alone: before each wait, the
// requests whose callers left, or whose deadline (with none, the retry
// budget) would pass before the next attempt, leave the batch and are
// answered at once, uncharged (see stillWaiting).
func (s *Store) sendScript(batch []*request) {
	start := time.Now()
	batch, reply, err := s.scriptOnce(batch, start)
	for wait := retryMin; retryable(err) && !s.misdirected(err); wait = min(2*wait, retryMax) {
		if batch = stillWaiting(batch, err, start, wait); len(batch) == 0 {
			return
		}
		time.Sleep(wait)
		batch, reply, err = s.scriptOnce(stillWaiting(batch, err, start, 0), start)
	}
	if len(batch) == 0 {
		return
	}
	if redis.HasErrorPrefix(err, "CROSSSLOT") {
		s.sendSlotted(batch, err)
		return
	}
	if err != nil {
		err = s.settle(err)
		for _, r := range batch {
			r.err = err
		}
		return
	}
	rest := reply
	for i, r := range batch {
		if rest, err = splitReply(r, rest); err != nil {
			err = unreadable(fmt.Errorf("batch reply %q: %w", reply, err))
			for _, r := range batch[i:] {
				r.err = err
			}
			return
		}
	}
	if rest != "" {
		// Every request has its answer; the surplus is a bug to report,
		// but not at the cost of the decisions.
		batch[len(batch)-1].err = unreadable(fmt.Errorf("batch reply %q: more values than requests", reply))
	}
}

// scriptOnce sends batch one call of batchLua (EVALSHA) within the latest
// deadline of its callers; if Redis answers that it lost the script
// (NOSCRIPT), the script did not run, and it sends the script itself
// (EVAL) for the callers still waiting then (see stillWaiting), within
// theirs. It returns the requests it sent the last call for, and that
// call's reply.
func (s *Store) scriptOnce(batch []*request, start time.Time) ([]*request, string, error) {
	for src := false; len(batch) > 0; src = true {
		ctx, cancel := batchContext(batch)
		reply, err := batchLua.send(ctx, s.client, scriptArgs(batch), src)
		cancel()
		if src || !redis.HasErrorPrefix(err, "NOSCRIPT") {
			return batch, reply, err
		}
		batch = stillWaiting(batch, err, start, 0)
	}
	return batch, "", nil
}

// scriptArgs returns the arguments of batchLua for batch, from the
// command's number of keys on (run sets the command and the script).
func scriptArgs(batch []*request) []any {
	nkeys := 0
	for _, r := range batch {
		nkeys += r.n
	}
	args := make([]any, 3, 3+nkeys+len(batch))
	args[2] = nkeys
	for _, r := range batch {
		args = append(args, r.args[3:3+r.n]...)
	}
	for _, r := range batch {
		args = append(args, r.args[3+r.n])
	}
	return args
}

// stillWaiting returns the requests of batch whose callers still wait,
// and will still wait for an attempt made wait from now, in order. The
// others leave the batch and are answered at once with err, the answer
// that made the batch be sent again (so it ran for none of them), as
// retriesEnded reports the end of the retries begun at start of a call
// sent alone: their callers left, or their deadline (with none, the retry
// budget from start) passes before that attempt.
func stillWaiting(batch []*request, err error, start time.Time, wait time.Duration) []*request {
	live := batch[:0:0]
	for _, r := range batch {
		if timeUp(r, start, wait) {
			r.err = retriesEnded(r.ctx, err, start)
			r.answer()
			continue
		}
		live = append(live, r)
	}
	return live
}

// left reports whether the caller of a request with context ctx stopped
// waiting: ctx is done, or its deadline has passed (ctx's timer may not
// have fired yet).
func left(ctx context.Context) bool { return ended(ctx) != nil }

// sendSlotted decides again a batch that Redis refused with CROSSSLOT
// (err): the endpoint enforces slots, though the client is no cluster
// client. Redis checks the keys' slots before a script runs, so no
// request of the batch was charged. Each request whose caller is still
// waiting is sent again as its own script call, whose keys share one hash
// tag, in one pipeline: the decisions are those of the requests sent one
// at a time, all or nothing each. A request whose caller left meanwhile
// (see left) is not sent again and fails with its context's error. The store
// remembers the answer (s.batch.slotted): its later batches are sent that
// way at once (see send). It logs the change once, at Info.
//
// (On a node of a Cluster of several masters the requests then meet
// MOVED for the keys of the other masters, which is ErrMisconfigured.)
func (s *Store) sendSlotted(batch []*request, err error) {
	if s.batch.slotted.CompareAndSwap(false, true) {
		slog.Info("redisstore: Redis enforces cluster slots behind a non-cluster client; batches now send each decision as its own script call",
			"addr", s.client.(*redis.Client).Options().Addr, "answer", err.Error())
	}
	live := make([]*request, 0, len(batch))
	for _, r := range batch {
		if cerr := ended(r.ctx); cerr != nil {
			r.err = cerr
			r.answer()
			continue
		}
		live = append(live, r)
	}
	if len(live) == 0 {
		return
	}
	ctx, cancel := batchContext(live)
	defer cancel()
	s.pipelineTo(ctx, s.client.(*redis.Client), live)
}

// splitReply takes r's result from the start of a batch reply: a string is
// r's error, classified as the same answer to r sent alone would be (an
// ACL refusal or an unknown command inside the script is ErrMisconfigured,
// OOM is ErrOutOfMemory), else r.reply is its 4 × r.n integers. It returns
// the rest.
func splitReply(r *request, reply string) (string, error) {
	if msg, rest, ok := readStr(reply); ok {
		r.err = classify(scriptError(msg))
		return rest, nil
	}
	rest := reply
	for range 4 * r.n {
		var err error
		if _, rest, err = readInt(rest); err != nil {
			return "", err
		}
	}
	r.reply = reply[:len(reply)-len(rest)]
	return rest, nil
}

// pipelineTo runs reqs as one pipeline of each request's own script call
// on the master node, and answers at once the requests it decided: their
// callers wait for no other request's round trip. If some meet NOSCRIPT
// (the node lost its scripts: a restart or a SCRIPT FLUSH, and
// connections that do not load them as ClientOptions' do), those whose
// callers still wait are sent again in one more pipeline that loads the
// scripts first, not one round trip each, within their latest deadline.
// The requests decided then are answered at once. A request that still
// meets NOSCRIPT, or meets an answer worth retrying (see retryable:
// MOVED, ASK and TRYAGAIN while a slot moves), is then run again on its
// own, through the cluster client, which follows redirects, within its
// own caller's context, not the batch's; such requests are retried at
// the same time, each on its own goroutine, so none waits for another's
// attempts (see retryEach). A request whose caller left is not sent
// again: it fails, uncharged.
//
// The pipeline goes through the master's own client, not the cluster
// client's pipeline: that one sends a node's whole pipeline again when its
// first command meets TRYAGAIN (unless a command says NoRetry, as once
// does), and a master's client lets the store follow each request on its
// own.
func (s *Store) pipelineTo(ctx context.Context, node *redis.Client, reqs []*request) {
	start := time.Now()
	pipelineOnce(ctx, node, reqs, false)
	var lost []*request
	for _, r := range reqs {
		if r.err != nil && redis.HasErrorPrefix(r.err, "NOSCRIPT") && !left(r.ctx) {
			lost = append(lost, r)
		}
	}
	// Their callers need not wait for the others' round trips.
	s.answerDecided(reqs)
	if len(lost) > 0 {
		lctx, cancel := batchContext(lost)
		pipelineOnce(lctx, node, lost, true)
		cancel()
		s.answerDecided(lost)
	}
	again := reqs[:0:0]
	for _, r := range reqs {
		if !r.answered {
			again = append(again, r)
		}
	}
	s.retryEach(again, start)
}

// answerDecided answers the requests of reqs not yet answered that need
// no other attempt: those Redis decided, or failed with an answer no
// retry gets past (or no answer). Those that met NOSCRIPT or an answer
// worth retrying (see retryable) are left as they are.
func (s *Store) answerDecided(reqs []*request) {
	for _, r := range reqs {
		switch {
		case r.answered:
			continue
		case r.err == nil:
		case redis.HasErrorPrefix(r.err, "NOSCRIPT") || retryable(r.err):
			continue
		default:
			s.lostNode(r.err)
			r.err = classify(r.err)
		}
		r.answer()
	}
}

// pipelineOnce sends reqs' script calls to node in one pipeline, after a
// SCRIPT LOAD of every script if load is set, and sets each request's
// reply and error.
func pipelineOnce(ctx context.Context, node *redis.Client, reqs []*request, load bool) {
	cmds := make([]*redis.StringCmd, len(reqs))
	pipe := node.Pipeline()
	if load {
		for _, sc := range scripts {
			pipe.ScriptLoad(ctx, sc.src.(string))
		}
	}
	for i, r := range reqs {
		args := r.args[:4+r.n]
		args[0], args[1] = "evalsha", r.sc.sha
		cmds[i] = redis.NewStringCmd(ctx, args...)
		cmds[i].SetFirstKeyPos(3)
		_ = pipe.Process(ctx, once{cmds[i]})
	}
	_, _ = pipe.Exec(ctx)
	for i, r := range reqs {
		r.reply, r.err = cmds[i].Result()
	}
}

// scriptError is a request's error inside a batch: what Redis would have
// answered to the request sent alone.
type scriptError string

func (e scriptError) Error() string { return string(e) }

// RedisError marks scriptError as an answer from Redis (redis.Error).
func (scriptError) RedisError() {}

// readStr reads the MessagePack string that starts s, if one does, and
// returns it and the rest of s.
func readStr(s string) (string, string, bool) {
	if s == "" {
		return "", s, false
	}
	c := s[0]
	size, head := 0, 1
	switch {
	case c >= 0xa0 && c <= 0xbf:
		size = int(c & 0x1f)
	case c == 0xd9 || c == 0xda || c == 0xdb:
		head += 1 << (c - 0xd9) // 1, 2 or 4 bytes of length
		if len(s) < head {
			return "", s, false
		}
		for i := 1; i < head; i++ {
			size = size<<8 | int(s[i])
		}
	default:
		return "", s, false
	}
	if len(s) < head+size {
		return "", s, false
	}
	return s[head : head+size], s[head+size:], true
}
