package main

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// defaultRuns simulates the command's configuration once for every test
// that needs it.
var defaultRuns = sync.OnceValues(func() ([]run, error) { return runAll(defaultSetup()) })

// smallSetups are quick configurations, checked besides the default one.
var smallSetups = []setup{
	{Limit: 20, Window: 2_000, Seed: 1, Clients: 6, Windows: 12},
	{Limit: 7, Window: 1_000, Seed: 2, Clients: 4, Windows: 30},
	{Limit: 50, Window: 5_000, Seed: 3, Clients: 5, Windows: 8},
}

// index returns the position of alg in algorithms.
func index(t *testing.T, alg core.Algorithm) int {
	for i, a := range algorithms {
		if a == alg {
			return i
		}
	}
	t.Fatalf("algorithm %v not simulated", alg)
	return -1
}

func TestWorkloadsAreWellFormed(t *testing.T) {
	for _, s := range append(smallSetups, defaultSetup()) {
		for _, w := range workloads(s) {
			require.NotEmpty(t, w.Reqs, w.Name)
			for i, r := range w.Reqs {
				// Plain checks: testify per request would dominate the run time.
				if r.at < 0 || r.at >= w.Length || r.client < 0 || r.client >= w.Clients {
					t.Fatalf("%s: request %d (%+v) outside [0, %d) or of an unknown client", w.Name, i, r, w.Length)
				}
				if i > 0 && w.Reqs[i-1].at > r.at {
					t.Fatalf("%s: requests %d and %d out of order", w.Name, i-1, i)
				}
			}
		}
		assert.Len(t, boundaryBurst(s).Reqs, int(2*s.Limit))
	}
	// The positions the report relies on.
	ws := workloads(defaultSetup())
	for i, name := range map[int]string{
		boundaryRun: "boundary burst", counterRun: "counter's worst case", figureRun: "burst, then pressure",
		overloadedRun: "random, overloaded", nearLimitRun: "random, near the limit", typicalRun: "random, mostly under",
	} {
		assert.Equal(t, name, ws[i].Name)
	}
}

func TestInvariantsOnEveryWorkload(t *testing.T) {
	for k, s := range append(smallSetups, defaultSetup()) {
		simulateAll := runAll
		if k == len(smallSetups) {
			simulateAll = func(setup) ([]run, error) { return defaultRuns() }
		}
		runs, err := simulateAll(s)
		require.NoError(t, err)
		for _, r := range runs {
			for i, o := range r.Outs {
				require.Len(t, o.Allowed, len(r.W.Reqs))
				// Never more than 2L in a window: each algorithm admits at most
				// L per epoch-aligned window or bucket, and W spans two.
				assert.LessOrEqual(t, o.maxIn(s.Window), int(2*s.Limit), "%s, %s", r.W.Name, o.Alg)
				if i == reference {
					assert.LessOrEqual(t, o.maxIn(s.Window), int(s.Limit), "sliding log over L: %s", r.W.Name)
					assert.Zero(t, o.Over, "sliding log admitted over the limit: %s", r.W.Name)
					wa, wd := r.disagreement(i)
					assert.Zero(t, wa+wd, "the reference disagrees with itself")
				}
			}
			// The sliding counter admits at most L·(1 + d/W) within any d < W,
			// the bound the report states.
			counter := r.Outs[index(t, core.SlidingWindow)]
			assert.LessOrEqual(t, counter.maxIn(s.short()), int(s.Limit+s.Limit*s.short()/s.Window), r.W.Name)
		}
	}
}

func TestBoundaryBurstShowsTheFixedWindowExcess(t *testing.T) {
	for _, s := range append(smallSetups, defaultSetup()) {
		w := boundaryBurst(s)
		fixed, err := simulate(w, s.policy(core.FixedWindow))
		require.NoError(t, err)
		assert.Equal(t, int(2*s.Limit), fixed.maxIn(s.Window), "fixed window admits 2L across the boundary")
		assert.Equal(t, int(2*s.Limit), fixed.maxIn(s.short()), "and within a short interval")
		assert.Equal(t, int(s.Limit), fixed.Over, "every admission after the boundary is over the limit")

		log, err := simulate(w, s.policy(core.SlidingLog))
		require.NoError(t, err)
		assert.Equal(t, int(s.Limit), log.maxIn(s.Window), "the log admits exactly L")
	}
}

func TestCounterAttackShowsTheCounterExcess(t *testing.T) {
	s := defaultSetup()
	o, err := simulate(counterAttack(s), s.policy(core.SlidingWindow))
	require.NoError(t, err)
	assert.Greater(t, o.maxIn(s.Window), int(s.Limit*19/10), "the sliding counter nears 2L over a whole window")
	assert.LessOrEqual(t, o.maxIn(s.short()), int(s.Limit+s.Limit/10), "but not within W/10")
}

func TestDisagreement(t *testing.T) {
	r := run{W: &workload{Reqs: make([]request, 4)}}
	r.Outs[0] = &outcome{Allowed: []bool{true, true, false, false}}
	r.Outs[1] = &outcome{Allowed: []bool{true, false, true, false}}
	r.Outs[reference] = &outcome{Allowed: []bool{true, false, false, true}}
	wa, wd := r.disagreement(0)
	assert.Equal(t, 1, wa, "allowed where the log denied")
	assert.Equal(t, 1, wd, "denied where the log allowed")
	wa, wd = r.disagreement(1)
	assert.Equal(t, 1, wa)
	assert.Equal(t, 1, wd)
}

func TestInvalidSetup(t *testing.T) {
	for _, s := range []setup{
		{Limit: 0, Window: 1000, Clients: 1, Windows: 1},
		{Limit: 10, Window: 1500, Clients: 1, Windows: 1},
		{Limit: 10, Window: 1000, Clients: 0, Windows: 1},
		{Limit: 10, Window: 1000, Clients: 1, Windows: 0},
		{Limit: 1 << 40, Window: 1000, Clients: 1, Windows: 1},
	} {
		_, _, err := generate(s)
		assert.Error(t, err, "%+v", s)
	}
}

func TestFormatting(t *testing.T) {
	assert.Equal(t, "10 s", dur(10_000))
	assert.Equal(t, "9.5 s", dur(9_500))
	assert.Equal(t, "500 ms", dur(500))
	assert.Equal(t, "1.5", ratio(1500))
	assert.Equal(t, "3", ratio(3000))
	assert.Equal(t, "0.025", ratio(25))
	assert.Equal(t, "12.3", tenth(123).String())
	assert.Equal(t, "40", tenth(400).String())
	assert.Equal(t, "-0.5", tenth(-5).String())
	assert.Equal(t, "12.50 %", pct(1, 8))
	assert.Equal(t, "–", pct(1, 0))
	assert.Equal(t, "-0.96 %", signedPct(-96, 10_000))
}
