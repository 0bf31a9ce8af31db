package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Options of the user's own that set the key, the limiter or the mode
// combine with a Set's Options part by part, the later option winning:
// one given after replaces that part, one given before is replaced.
func TestOwnOptionsCombineLaterWins(t *testing.T) {
	five, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(5)})
	require.NoError(t, err)
	var keyed int
	key := ratewindow.WithKeyFunc(func(r keyfuncs.Request) (string, error) {
		keyed++
		return "mine:" + r.Header("X-Client"), nil
	})
	limiter := ratewindow.WithLimiterFunc(func(keyfuncs.Request, string) (*core.Limiter, error) { return five, nil })
	observe := ratewindow.WithObserveOnlyFunc(func(keyfuncs.Request) bool { return true })

	// The file: /search keyed by X-Client, one request an hour, enforced;
	// /other matches no route.
	for _, c := range []struct {
		name          string
		before, after []ratewindow.Option
		key           string
		limit         int64
		observed      bool
	}{
		{name: "the file's", key: "search:hdr:x-client:c1", limit: 1},
		{name: "key after", after: []ratewindow.Option{key}, key: "mine:c1", limit: 1},
		{name: "limiter after", after: []ratewindow.Option{limiter}, key: "search:hdr:x-client:c1", limit: 5},
		{name: "mode after", after: []ratewindow.Option{observe}, key: "search:hdr:x-client:c1", limit: 1, observed: true},
		{name: "all before", before: []ratewindow.Option{key, limiter, observe}, key: "search:hdr:x-client:c1", limit: 1},
		{name: "observe only before", before: []ratewindow.Option{ratewindow.WithObserveOnly(true)}, key: "search:hdr:x-client:c1", limit: 1, observed: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := config.Load(file(t, searchLimits("header:X-Client", 1, "enforce")), quiet())
			require.NoError(t, err)
			var events []ratewindow.Event
			opts := append(append(c.before, s.Options()...), c.after...)
			h := serveWith(t, append(opts, ratewindow.WithOnDecision(func(ev ratewindow.Event) { events = append(events, ev) })))
			keyed = 0
			assert.Equal(t, 200, get(h, "/other", "c1", ""), "no route")
			assert.Zero(t, keyed, "a request no route matches is not keyed")
			for range c.limit {
				require.Equal(t, 200, get(h, "/search", "c1", ""))
			}
			want := 429
			if c.observed {
				want = 200
			}
			assert.Equal(t, want, get(h, "/search", "c1", ""), "one over the limit")
			require.Len(t, events, int(c.limit)+2)
			assert.Equal(t, ratewindow.Skipped, events[0].Outcome)
			last := events[len(events)-1]
			assert.Equal(t, c.key, last.Key)
			assert.Equal(t, c.limit, last.Decision.Limit)
			assert.Equal(t, c.observed, last.ObserveOnly)
			assert.False(t, last.Decision.Allowed)
		})
	}
}
