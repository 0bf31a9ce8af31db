package faulttest

import (
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/core/resilient"
	"github.com/ratewindow/ratewindow/echomw"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/ginmw"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/keyfuncs"
	"github.com/ratewindow/ratewindow/nethttp"
)

// configCase is one constructor call with bad input, and what its error
// message must mention.
type configCase struct {
	name  string
	call  func() error
	names string
}

// adapters builds the middleware of every adapter with the same limiter
// and options, keeping only the error.
var adapters = map[string]func(*core.Limiter, ...ratewindow.Option) error{
	"nethttp": func(l *core.Limiter, o ...ratewindow.Option) error { _, err := nethttp.New(l, o...); return err },
	"ginmw":   func(l *core.Limiter, o ...ratewindow.Option) error { _, err := ginmw.New(l, o...); return err },
	"echomw":  func(l *core.Limiter, o ...ratewindow.Option) error { _, err := echomw.New(l, o...); return err },
	"fibermw": func(l *core.Limiter, o ...ratewindow.Option) error { _, err := fibermw.New(l, o...); return err },
}

// TestEveryConstructorRejectsBadConfig calls every public constructor of
// the module that returns an error with bad input: each must return an
// error wrapping core.ErrInvalidConfig whose text names the culprit (the
// field, option or argument), and no value.
func TestEveryConstructorRejectsBadConfig(t *testing.T) {
	mem := memory.New()
	good := []core.Policy{core.PerSecond(10)}
	limiter, err := core.NewLimiter(mem, good)
	require.NoError(t, err)
	newLimiter := func(s core.Store, ps []core.Policy, o ...core.Option) func() error {
		return func() error { l, err := core.NewLimiter(s, ps, o...); assert.Nil(t, l); return err }
	}
	nine := make([]core.Policy, core.MaxPolicies+1)
	for i := range nine {
		nine[i] = core.Per(int64(i+1), time.Second)
	}

	cases := []configCase{
		{"core.NewLimiter nil store", newLimiter(nil, good), "Store"},
		{"core.NewLimiter nil clock", newLimiter(mem, good, core.WithClock(nil)), "Clock"},
		{"core.NewLimiter no policies", newLimiter(mem, nil), "policies"},
		{"core.NewLimiter too many policies", newLimiter(mem, nine), "policies"},
		{"core.NewLimiter zero limit", newLimiter(mem, []core.Policy{{Limit: 0, Window: time.Second}}), "Limit"},
		{"core.NewLimiter negative limit", newLimiter(mem, []core.Policy{{Limit: -1, Window: time.Second}}), "Limit"},
		{"core.NewLimiter zero window", newLimiter(mem, []core.Policy{{Limit: 1}}), "Window"},
		{"core.NewLimiter sub-millisecond window", newLimiter(mem, []core.Policy{{Limit: 1, Window: 1500 * time.Microsecond}}), "Window"},
		{"core.NewLimiter unknown algorithm", newLimiter(mem, []core.Policy{core.PerSecond(1).Using(core.Algorithm(9))}), "Algorithm"},
		{"core.NewLimiter overflowing policy", newLimiter(mem, []core.Policy{core.Per(1<<50, time.Hour)}), "Limit"},
		{"core.NewLimiter duplicate names", newLimiter(mem, []core.Policy{core.PerSecond(1).Named("a"), core.PerMinute(9).Named("a")}), "named"},
		{"core.NewLimiter log over memory.WithMaxKeys", newLimiter(memory.New(memory.WithMaxKeys(16)), []core.Policy{core.PerMinute(1000).Using(core.SlidingLog)}), "WithMaxKeys"},
		{"core.NewLimiter log over resilient.WithLocalMaxKeys", func() error {
			s, err := resilient.New(mem, resilient.WithFallback(1), resilient.WithLocalMaxKeys(16))
			require.NoError(t, err)
			return newLimiter(s, []core.Policy{core.PerMinute(1000).Using(core.SlidingLog)})()
		}, "WithLocalMaxKeys"},
		{"core.Limiter.SetPolicies", func() error { return limiter.SetPolicies() }, "policies"},
		{"core.ParseAlgorithm", func() error { _, err := core.ParseAlgorithm("token-bucket"); return err }, "algorithm"},

		{"redisstore.New nil client", func() error { s, err := redisstore.New(nil); assert.Nil(t, s); return err }, "client"},
		{"redisstore.New empty prefix", func() error {
			s, err := redisstore.New(testClient(t), redisstore.WithPrefix(""))
			assert.Nil(t, s)
			return err
		}, "WithPrefix"},
		{"redisstore.New brace in prefix", func() error {
			s, err := redisstore.New(testClient(t), redisstore.WithPrefix("app{1}"))
			assert.Nil(t, s)
			return err
		}, "WithPrefix"},
		{"redisstore.New comma-joined addresses", func() error {
			c := redis.NewUniversalClient(redisstore.ClientOptions("127.0.0.1:1,127.0.0.1:2"))
			defer c.Close()
			s, err := redisstore.New(c)
			assert.Nil(t, s)
			return err
		}, "several addresses"},

		{"resilient.New nil primary", func() error { s, err := resilient.New(nil); assert.Nil(t, s); return err }, "primary"},
		{"resilient.New threshold", func() error { _, err := resilient.New(mem, resilient.WithFailureThreshold(-1)); return err }, "WithFailureThreshold"},
		{"resilient.New interval", func() error { _, err := resilient.New(mem, resilient.WithOpenInterval(0)); return err }, "WithOpenInterval"},
		{"resilient.New replicas", func() error { _, err := resilient.New(mem, resilient.WithFallback(0)); return err }, "WithFallback"},
		{"resilient.New local keys", func() error { _, err := resilient.New(mem, resilient.WithLocalMaxKeys(-1)); return err }, "WithLocalMaxKeys"},

		{"keyfuncs.NewClientIP proxy", func() error {
			_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/33"}})
			return err
		}, "TrustedProxies"},
		{"keyfuncs.NewClientIP hops", func() error {
			_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedHops: -1})
			return err
		}, "TrustedHops"},
		{"keyfuncs.NewClientIP header", func() error {
			_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{Headers: []string{"X Bad"}})
			return err
		}, "Headers"},
		{"keyfuncs.NewClientIP prefix", func() error {
			_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{IPv6Prefix: 129})
			return err
		}, "IPv6Prefix"},
		{"headers.ParseMode", func() error { _, err := headers.ParseMode("rfc"); return err }, "mode"},
		{"headerfmt.ValidatePolicyName", func() error { return headerfmt.ValidatePolicyName("per\nminute") }, "policy name"},
	}
	for name, build := range adapters {
		cases = append(cases,
			configCase{name + " nil limiter", func() error { return build(nil) }, "Limiter"},
			configCase{name + " negative timeout", func() error { return build(limiter, ratewindow.WithTimeout(-time.Second)) }, "Timeout"},
			configCase{name + " unknown header mode", func() error {
				return build(limiter, ratewindow.WithHeaders(headers.Writer{Mode: headers.Mode(42)}))
			}, "Mode"},
		)
	}

	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			require.Error(t, err)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.names)
		})
	}
}
