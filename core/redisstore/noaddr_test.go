package redisstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// ClientOptions given no address, or a blank one (an unset environment
// variable), must not fall back to go-redis's default of a Redis on
// localhost: Check names the mistake, and so does every call, so a
// fail-open limiter is not left passing everything against the wrong
// server, or none, as if Redis were merely down.
func TestClientOptionsWithoutAddress(t *testing.T) {
	for name, addrs := range map[string][]string{
		"none":              nil,
		"empty":             {""},
		"blank":             {"  "},
		"a blank seed":      {"127.0.0.1:1", ""},
		"an empty sentinel": {""},
	} {
		t.Run(name, func(t *testing.T) {
			opts := redisstore.ClientOptions(addrs...)
			if name == "an empty sentinel" {
				opts.MasterName = "mymaster"
			}
			s, _ := optionsStoreFrom(t, opts)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			err := s.Check(ctx)
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
			assert.Contains(t, err.Error(), "no address")

			_, err = s.Take(ctx, "k", policies(t, core.PerMinute(10)), 1, time.Now())
			require.ErrorIs(t, err, redisstore.ErrMisconfigured)
		})
	}
}

// optionsStoreFrom is a store on a client made from opts.
func optionsStoreFrom(t *testing.T, opts *redis.UniversalOptions) (*redisstore.Store, redis.UniversalClient) {
	t.Helper()
	client := redis.NewUniversalClient(opts)
	t.Cleanup(func() { _ = client.Close() })
	s, err := redisstore.New(client)
	require.NoError(t, err)
	return s, client
}

// Addrs set after ClientOptions, as its godoc invites for Sentinels, are
// the ones dialled: the options' dialer looks at them when it dials.
func TestClientOptionsAddrsSetLater(t *testing.T) {
	opts := redisstore.ClientOptions()
	opts.Addrs = []string{testredis.Addr(t)}
	s, _ := optionsStoreFrom(t, opts)
	require.NoError(t, s.Check(context.Background()))
}
