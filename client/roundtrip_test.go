package client

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/clocktest"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// The two halves of the contract together: a real limiter (memory store)
// behind the net/http middleware writes the fields of each decision, and
// the transport reads them. Server and transport share one fake clock,
// which moves only when the transport waits.

// wire is one request as it went over the wire: the server's decision and
// the response's status and fields.
type wire struct {
	at       time.Time
	decision core.Decision
	status   int
	header   http.Header
}

// pause is one wait of the transport: when it began, how long it was, and
// what the limiter would have said at its start of a request of cost 1
// (what the transport counts) and of the request waiting.
type pause struct {
	at      time.Time
	d       time.Duration
	verdict core.Decision // for a request of cost 1
	ownCost core.Decision // for the request waiting
	after   int           // the number of responses before it
}

type rig struct {
	t      *testing.T
	clock  *clocktest.Clock
	lim    *core.Limiter
	writer headers.Writer
	client *http.Client
	url    string

	mu     sync.Mutex
	cost   int64 // of the request being sent
	key    string
	events []ratewindow.Event
	wires  []wire
	pauses []pause
}

func newRig(t *testing.T, start time.Time, w headers.Writer, policies ...core.Policy) *rig {
	t.Helper()
	return newJitteryRig(t, start, w, 0, policies...)
}

// newJitteryRig is newRig with the transport's jitter set to f.
func newJitteryRig(t *testing.T, start time.Time, w headers.Writer, f float64, policies ...core.Policy) *rig {
	t.Helper()
	r := &rig{t: t, clock: clocktest.New(start), writer: w}
	lim, err := core.NewLimiter(memory.New(), policies, core.WithClock(r.clock))
	require.NoError(t, err)
	r.lim = lim
	mw, err := nethttp.New(lim,
		ratewindow.WithKeyFunc(keyfuncs.Constant("api")),
		ratewindow.WithHeaders(w),
		ratewindow.WithCost(func(req keyfuncs.Request) int64 {
			n, _ := strconv.ParseInt(req.Header("X-Cost"), 10, 64)
			return max(n, 1)
		}),
		ratewindow.WithOnDecision(func(ev ratewindow.Event) {
			r.mu.Lock()
			defer r.mu.Unlock()
			r.key = ev.Key
			r.events = append(r.events, ev)
		}))
	require.NoError(t, err)
	ok := http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, req *http.Request) {
		// The server's Date on the server's (fake) clock, as a real
		// server's Date agrees with its own clock.
		rw.Header().Set("Date", r.clock.Now().UTC().Format(http.TimeFormat))
		mw(ok).ServeHTTP(rw, req)
	}))
	t.Cleanup(srv.Close)
	r.url = srv.URL

	base := rtFunc(func(req *http.Request) (*http.Response, error) {
		at := r.clock.Now()
		resp, err := http.DefaultTransport.RoundTrip(req)
		if err != nil {
			return nil, err
		}
		r.mu.Lock()
		defer r.mu.Unlock()
		require.NotEmpty(t, r.events, "the server decided")
		ev := r.events[len(r.events)-1]
		r.wires = append(r.wires, wire{at: at, decision: ev.Decision, status: resp.StatusCode, header: resp.Header.Clone()})
		return resp, nil
	})
	tr, err := New(base, WithJitter(f))
	require.NoError(t, err)
	rt := tr.(*transport)
	rt.cfg.now = r.clock.Now
	// A probe goes overdue on the wall clock. The rig's server answers at
	// once, but on a busy machine a round trip can take longer than the
	// default probe wait, and the overdue probe's hand-over would send a
	// request the test did not expect: tests of the hand-over set their own.
	rt.cfg.probeWait = time.Minute
	rt.cfg.sleep = func(ctx context.Context, d time.Duration) error {
		r.mu.Lock()
		key, cost := r.key, r.cost
		r.mu.Unlock()
		verdict, err := r.lim.Peek(ctx, key, 1)
		require.NoError(t, err)
		own, err := r.lim.Peek(ctx, key, cost)
		require.NoError(t, err)
		r.mu.Lock()
		r.pauses = append(r.pauses, pause{at: r.clock.Now(), d: d, verdict: verdict, ownCost: own, after: len(r.wires)})
		r.mu.Unlock()
		r.clock.Advance(d)
		return nil
	}
	r.client = &http.Client{Transport: tr}
	return r
}

// send makes one request of the given cost through the transport and
// returns the status the caller sees.
func (r *rig) send(cost int64) int {
	req, err := http.NewRequest("GET", r.url, nil)
	require.NoError(r.t, err)
	req.Header.Set("X-Cost", strconv.FormatInt(cost, 10))
	r.mu.Lock()
	r.cost = cost
	r.mu.Unlock()
	resp, err := r.client.Do(req)
	require.NoError(r.t, err)
	_ = resp.Body.Close()
	return resp.StatusCode
}

// reading is what the transport must read off a response to decision d
// written by w at now: the remaining quota and the wait until more, of the
// binding policy, or of the one that ties with it and waits longer (with
// AllPolicies, of the most restrictive one listed).
func reading(w headers.Writer, d *core.Decision, now time.Time) quota {
	states := d.States()
	item := func(i int) quota {
		s := states[i]
		if !s.Allowed {
			return quota{remaining: 0, reset: ceilSec(s.RetryAfter)}
		}
		return quota{remaining: s.Remaining, reset: ceilSec(s.ResetAfter - time.Millisecond)}
	}
	if w.Mode == headers.Draft8 && w.AllPolicies {
		best := item(0)
		for i := 1; i < len(states); i++ {
			q := item(i)
			if q.remaining < best.remaining || (q.remaining == best.remaining && q.reset > best.reset) {
				best = q
			}
		}
		return best
	}
	// The binding policy; of policies that allow with equally little
	// quota left, the one that waits longest.
	bind := d.Index
	if states[bind].Allowed {
		for i, s := range states {
			if s.Allowed && s.Remaining == states[bind].Remaining && s.ResetAfter > states[bind].ResetAfter {
				bind = i
			}
		}
	}
	q := item(bind)
	if w.Mode == headers.Legacy && w.LegacyEpoch {
		// A Unix time, rounded up, read against the Date (rounded down).
		s := states[bind]
		wait := s.ResetAfter
		if !s.Allowed {
			wait = s.RetryAfter
		}
		at := now.Add(wait)
		epoch := at.Unix()
		if at.Nanosecond() > 0 {
			epoch++
		}
		q.reset = time.Unix(epoch, 0).Sub(now.Truncate(time.Second))
	}
	return q
}

func ceilSec(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	return (d + time.Second - 1) / time.Second * time.Second
}

var layouts = map[string]headers.Writer{
	"draft-8":              {},
	"draft-8 all policies": {AllPolicies: true},
	"draft-8 with pk":      {AllPolicies: true, PartitionKey: true},
	"draft-7":              {Mode: headers.Draft7},
	"draft-6":              {Mode: headers.Draft6},
	"legacy":               {Mode: headers.Legacy},
	"legacy epoch":         {Mode: headers.Legacy, LegacyEpoch: true},
}

var policySets = map[string][]core.Policy{
	"one named":           {core.Per(3, time.Second).Named("burst")},
	"one default-named":   {core.Per(4, 2*time.Second)},
	"two":                 {core.PerSecond(2).Named("second"), core.Per(5, 5*time.Second).Named("five")},
	"two used up at once": {core.PerSecond(2).Named("second"), core.Per(4, 5*time.Second).Named("five")},
	"two default-named":   {core.PerSecond(3), core.Per(4, 3*time.Second)},
	"hostile names":       {core.PerSecond(2).Named(`a"b\c,d;r=9;t=0`), core.Per(3, 4*time.Second).Named("é=1, x;r=0")},
	"sub-second windows":  {core.Per(2, 300*time.Millisecond).Named("fast"), core.Per(5, 1500*time.Millisecond)},
	"four, one dominates": {core.PerSecond(10), core.Per(3, 2*time.Second).Named("tight"), core.PerMinute(100), core.PerHour(1000)},
}

var algorithms = []core.Algorithm{core.FixedWindow, core.SlidingLog, core.SlidingWindow}

var starts = map[string]time.Time{
	"on a second":        time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC),
	"mid-second":         time.Date(2026, 3, 1, 12, 0, 0, 333_700_000, time.UTC),
	"sub-millisecond":    time.Date(2026, 3, 1, 12, 0, 0, 400_000, time.UTC),
	"late in the second": time.Date(2026, 3, 1, 12, 0, 0, 999_999_999, time.UTC),
}

func using(ps []core.Policy, a core.Algorithm) []core.Policy {
	out := make([]core.Policy, len(ps))
	for i, p := range ps {
		out[i] = p.Using(a)
	}
	return out
}

// TestRoundTripReading: for every layout, algorithm and policy set, what
// the transport reads off each response is the decision the server made:
// the binding policy's remaining quota and its reset, as the writer
// documents them; on a 429, Retry-After is never shorter than the
// decision's wait.
func TestRoundTripReading(t *testing.T) {
	eachCase(t, func(r *rig, cost int64) {
		for range 12 {
			r.send(cost)
			r.clock.Advance(137 * time.Millisecond)
		}
		r.checkReadings()
	})
}

// eachCase runs f, as a subtest on a rig of its own, for every layout,
// policy set, algorithm and start, with requests of cost 1 and of cost 2.
func eachCase(t *testing.T, f func(r *rig, cost int64)) {
	for lname, w := range layouts {
		for pname, ps := range policySets {
			for _, alg := range algorithms {
				for sname, start := range starts {
					for _, cost := range []int64{1, 2} {
						name := fmt.Sprintf("%s/%s/%s/%s/cost %d", lname, pname, alg, sname, cost)
						t.Run(name, func(t *testing.T) {
							f(newRig(t, start, w, using(ps, alg)...), cost)
						})
					}
				}
			}
		}
	}
}

func (r *rig) checkReadings() {
	t := r.t
	r.mu.Lock()
	defer r.mu.Unlock()
	require.NotEmpty(t, r.wires)
	for i, wr := range r.wires {
		d := &wr.decision
		want := reading(r.writer, d, wr.at)
		got, ok := parseQuota(wr.header, wr.at, wr.status == http.StatusTooManyRequests)
		require.True(t, ok, "response %d: %v", i, wr.header)
		require.Equal(t, want, got, "response %d: %v for %+v", i, wr.header, d.States())
		if wr.status == http.StatusTooManyRequests {
			require.False(t, d.Allowed)
			ra, ok := parseRetryAfter(wr.header, wr.at)
			require.True(t, ok)
			require.GreaterOrEqual(t, ra, d.RetryAfter, "Retry-After is never early")
			if !r.writer.LegacyEpoch {
				// (A Unix reset read against a Date rounded down can
				// read up to a second longer.)
				require.GreaterOrEqual(t, ra, got.reset, "Retry-After is never earlier than t")
			}
			require.Less(t, ra-d.RetryAfter, time.Second, "Retry-After is the wait rounded up")
		}
	}
}

// TestRoundTripPacing: a greedy caller sends as fast as it can through the
// transport. With requests of cost 1 (what the transport counts) no
// request is sent into a 429. A request of a higher cost may be (the
// transport cannot know its cost), and is then retried after Retry-After,
// which is never early: the retry is allowed. Every wait starts when the
// limiter would deny a request, lasts exactly the reset read (plus the
// margin) or the Retry-After, and never ends before the limiter allows;
// and the caller never sees a 429.
func TestRoundTripPacing(t *testing.T) {
	eachCase(t, func(r *rig, cost int64) {
		for range 25 {
			require.Equal(r.t, http.StatusOK, r.send(cost), "the caller never sees a 429")
		}
		r.checkPacing(cost)
	})
}

func (r *rig) checkPacing(cost int64) {
	t := r.t
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, wr := range r.wires {
		if wr.status == http.StatusOK {
			continue
		}
		require.Equal(t, http.StatusTooManyRequests, wr.status)
		require.NotEqual(t, int64(1), cost, "request %d was sent into a 429 at %v: %+v", i, wr.at, wr.decision.States())
		require.Less(t, i+1, len(r.wires))
		require.Equal(t, http.StatusOK, r.wires[i+1].status, "the retry after Retry-After is allowed")
	}
	for i, p := range r.pauses {
		require.Positive(t, p.after, "wait %d before any response", i)
		last := r.wires[p.after-1]
		if last.status == http.StatusTooManyRequests {
			if i > 0 && r.pauses[i-1].after == p.after {
				// The rest of the reset of a 429 whose Retry-After
				// was just waited for: the margin, or with a Unix
				// reset read against a Date in whole seconds, up to
				// a second more.
				extra := resetMargin
				if r.writer.LegacyEpoch {
					extra += time.Second
				}
				require.LessOrEqual(t, p.d, extra, "wait %d after a Retry-After", i)
				continue
			}
			ra, _ := parseRetryAfter(last.header, last.at)
			require.Equal(t, ra, p.d, "wait %d is the Retry-After", i)
			require.False(t, p.ownCost.Allowed, "wait %d of %v at %v: the limiter would have allowed", i, p.d, p.at)
			require.GreaterOrEqual(t, p.d, p.ownCost.RetryAfter, "wait %d ends before the limiter allows", i)
			continue
		}
		require.False(t, p.verdict.Allowed, "wait %d of %v at %v: the limiter would have allowed", i, p.d, p.at)
		require.GreaterOrEqual(t, p.d, p.verdict.RetryAfter, "wait %d ends before the limiter allows", i)
		q := reading(r.writer, &last.decision, last.at)
		require.Zero(t, q.remaining, "wait %d with quota left", i)
		require.Equal(t, last.at.Add(q.reset+resetMargin).Sub(p.at), p.d, "wait %d is the reset read", i)
	}
}

// TestRoundTripJitterNeverShortens: with the default jitter, no wait is
// shorter than the reset read (plus the margin) or the Retry-After, nor
// longer than 5% more, and no request of cost 1 is sent into a 429.
func TestRoundTripJitterNeverShortens(t *testing.T) {
	for _, alg := range algorithms {
		for _, cost := range []int64{1, 3} {
			t.Run(fmt.Sprintf("%s/cost %d", alg, cost), func(t *testing.T) {
				ps := using([]core.Policy{core.Per(4, time.Second).Named("burst"), core.Per(9, 5*time.Second)}, alg)
				r := newJitteryRig(t, starts["mid-second"], headers.Writer{}, defaultJitter, ps...)
				for range 40 {
					require.Equal(t, http.StatusOK, r.send(cost))
				}
				r.mu.Lock()
				defer r.mu.Unlock()
				require.NotEmpty(t, r.pauses)
				for i, p := range r.pauses {
					last := r.wires[p.after-1]
					var want time.Duration
					switch {
					case i > 0 && r.pauses[i-1].after == p.after:
						continue // the rest of a 429's reset, after its Retry-After
					case last.status == http.StatusTooManyRequests:
						require.NotEqual(t, int64(1), cost)
						want, _ = parseRetryAfter(last.header, last.at)
					default:
						q := reading(r.writer, &last.decision, last.at)
						want = last.at.Add(q.reset + resetMargin).Sub(p.at)
					}
					require.GreaterOrEqual(t, p.d, want, "wait %d", i)
					require.LessOrEqual(t, p.d, want+time.Duration(float64(want)*defaultJitter), "wait %d", i)
					require.False(t, p.ownCost.Allowed, "wait %d: the limiter would have allowed", i)
				}
			})
		}
	}
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
