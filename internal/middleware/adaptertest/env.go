package adaptertest

import (
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/internal/clocktest"
)

// T0 is the fake clock's start: a whole hour in Unix time, so every window
// used here starts exactly at T0.
var T0 = time.Unix(1_800_000_000, 0)

// Env is what a scenario's options and checks can reach.
type Env struct {
	// Clock is the fake clock of every limiter of the scenario.
	Clock *clocktest.Clock
	// Limiter is the default limiter, on Store with the scenario's
	// policies.
	Limiter *core.Limiter
	// Store is the store of Limiter.
	Store core.Store
	// Adapter is the adapter under test.
	Adapter Adapter

	t      *testing.T
	mu     sync.Mutex
	events []ratewindow.Event
}

func newEnv(t *testing.T, a Adapter, sc Scenario) *Env {
	t.Helper()
	env := &Env{Clock: clocktest.New(T0), Adapter: a, Store: memory.New(), t: t}
	if sc.Store != nil {
		env.Store = sc.Store(t)
	}
	policies := sc.Policies
	if policies == nil {
		policies = []core.Policy{core.PerMinute(3).Using(core.FixedWindow).Named("minute")}
	}
	env.Limiter = env.NewLimiter(env.Store, policies...)
	return env
}

// NewLimiter returns a limiter on the scenario's clock.
func (e *Env) NewLimiter(s core.Store, policies ...core.Policy) *core.Limiter {
	e.t.Helper()
	l, err := core.NewLimiter(s, policies, core.WithClock(e.Clock))
	require.NoError(e.t, err)
	return l
}

// Record is an OnDecision hook that keeps every event.
func (e *Env) Record(ev ratewindow.Event) {
	e.mu.Lock()
	e.events = append(e.events, ev)
	e.mu.Unlock()
}

// Hook is the option that installs Record.
func (e *Env) Hook() ratewindow.Option { return ratewindow.WithOnDecision(e.Record) }

// Events returns the events recorded so far.
func (e *Env) Events() []ratewindow.Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]ratewindow.Event(nil), e.events...)
}

// Outcomes returns the outcomes of the events recorded so far.
func (e *Env) Outcomes() []ratewindow.Outcome {
	var out []ratewindow.Outcome
	for _, ev := range e.Events() {
		out = append(out, ev.Outcome)
	}
	return out
}
