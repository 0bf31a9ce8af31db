package peers

import (
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// start is a fake instant on a boundary of every window the tests use.
var start = time.Unix(1_800_000_000, 0)

// TestAdmitsExactlyLimit is what makes the comparison fair: at one instant,
// every peer admits exactly L requests for a key and denies the next, and
// a second key has its own L (except the shared bucket).
func TestAdmitsExactlyLimit(t *testing.T) {
	const limit = 100
	for _, p := range every() {
		t.Run(p.Name, func(t *testing.T) {
			l, err := p.New(limit, time.Hour, NewFakeTimeline(start))
			require.NoError(t, err)
			defer l.Close()
			for i := range limit {
				require.True(t, l.Allow("alice"), "request %d of %d", i+1, limit)
			}
			assert.False(t, l.Allow("alice"), "request %d", limit+1)
			if !p.Shared {
				assert.True(t, l.Allow("bob"), "another key has its own limit")
			}
		})
	}
}

// every returns All and the peers only Accuracy has.
func every() []Peer {
	ps := All()
	for _, p := range Accuracy() {
		if !slices.ContainsFunc(ps, func(q Peer) bool { return q.Name == p.Name }) {
			ps = append(ps, p)
		}
	}
	return ps
}

func TestNewRejectsWhatNoAdapterExpresses(t *testing.T) {
	for _, p := range every() {
		for _, c := range []struct {
			name   string
			limit  int64
			window time.Duration
		}{
			{"zero limit", 0, time.Second},
			{"huge limit", 1 << 41, time.Hour},
			{"tiny window", 10, time.Microsecond},
			{"window shorter than limit ns", 1 << 30, time.Millisecond},
		} {
			_, err := p.New(c.limit, c.window, nil)
			assert.Error(t, err, "%s: %s", p.Name, c.name)
		}
	}
}

func TestFind(t *testing.T) {
	p, err := Find("httprate")
	require.NoError(t, err)
	assert.Equal(t, "httprate", p.Name)
	_, err = Find("nope")
	assert.Error(t, err)
}

func TestMaxInWindow(t *testing.T) {
	at := func(ms ...int) []time.Time {
		ts := make([]time.Time, len(ms))
		for i, m := range ms {
			ts[i] = start.Add(time.Duration(m) * time.Millisecond)
		}
		return ts
	}
	for _, c := range []struct {
		name  string
		times []time.Time
		want  int
	}{
		{"none", nil, 0},
		{"one", at(5), 1},
		{"all inside", at(0, 1, 2, 999), 4},
		{"end is excluded", at(0, 1000), 1},
		{"unsorted", at(1500, 0, 900, 1000, 1100), 4},
		{"burst at each side of a boundary", at(990, 990, 990, 1000, 1000, 1000, 2000), 6},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, MaxInWindow(c.times, time.Second))
		})
	}
}

// TestBoundaryAttack pins the worst case of the peers that take a fake
// clock, L=100 per 10 s: the log never exceeds L; a fixed window admits
// 2L−1; token buckets and sliding counters close to 2L.
func TestBoundaryAttack(t *testing.T) {
	const limit, window, step = 100, 10 * time.Second, 100 * time.Millisecond
	for _, c := range []struct {
		peer     string
		min, max int
	}{
		{"ratewindow-log", limit, limit},
		{"ratewindow-fixed", 2*limit - 1, 2*limit - 1},
		{"ratewindow-sliding", 190, 2*limit - 1},
		{"httprate", 190, 2 * limit},
		{"throttled", 190, 2 * limit},
		{"xrate-map", 190, 2 * limit},
	} {
		t.Run(c.peer, func(t *testing.T) {
			p, err := Find(c.peer)
			require.NoError(t, err)
			require.False(t, p.RealTimeOnly)
			clk := NewFakeTimeline(start)
			l, err := p.New(limit, window, clk)
			require.NoError(t, err)
			defer l.Close()
			got := MaxInWindow(BoundaryAttack(l, "k", limit, window, step, clk), window)
			t.Logf("%s admits %d in a rolling window", c.peer, got)
			assert.GreaterOrEqual(t, got, c.min)
			assert.LessOrEqual(t, got, c.max)
		})
	}
}

func TestAccuracyPeers(t *testing.T) {
	names := map[string]bool{}
	for _, p := range Accuracy() {
		assert.False(t, p.Shared, "%s: a shared bucket has no per-key accuracy", p.Name)
		assert.False(t, names[p.Name], "%s listed twice", p.Name)
		names[p.Name] = true
	}
	for _, want := range []string{"ratewindow-log", "httprate", "sethvargo", "ulule", "throttled", "xrate-map", "fiber-limiter", "fiber-limiter-sliding"} {
		assert.True(t, names[want], want)
	}
}

func TestMeasureAccuracyOnFakeClock(t *testing.T) {
	p, err := Find("ratewindow-fixed")
	require.NoError(t, err)
	r, err := MeasureAccuracy(p, 100, 10*time.Second, time.Second)
	require.NoError(t, err)
	assert.False(t, r.RealTime)
	assert.Equal(t, 10*time.Second, r.Window)
	assert.Equal(t, 199, r.MaxInWindow)
	// 1 + 99 before the first boundary, 100 in each of the next two windows.
	assert.Equal(t, 300, r.Admitted)
}

// TestMeasureAccuracyInRealTime runs one real-time peer on a short window
// (about a second of wall time). Sleeps may overshoot on a loaded machine,
// so it checks only what holds regardless: the run spans three windows of
// a fixed window, so it admits more than 2L, and some rolling window holds
// at least L.
func TestMeasureAccuracyInRealTime(t *testing.T) {
	p, err := Find("sethvargo")
	require.NoError(t, err)
	r, err := MeasureAccuracy(p, 20, 10*time.Second, 300*time.Millisecond)
	require.NoError(t, err)
	assert.True(t, r.RealTime)
	assert.Equal(t, 300*time.Millisecond, r.Window)
	assert.Greater(t, r.Admitted, 40)
	assert.GreaterOrEqual(t, r.MaxInWindow, 20)
}
