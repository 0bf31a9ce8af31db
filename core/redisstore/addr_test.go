package redisstore_test

import (
	"testing"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// A Redis URL where a host:port belongs is refused at New, with an error
// that says what to do and does not repeat the URL, which may hold a
// password. (go-redis only fails each dial with "too many colons".)
func TestNewRefusesARedisURL(t *testing.T) {
	for _, url := range []string{"redis://127.0.0.1:6379", "rediss://app:s3cret@cache.internal:6380/0"} {
		for name, c := range map[string]redis.UniversalClient{
			"standalone": redis.NewUniversalClient(redisstore.ClientOptions(url)),
			"cluster":    redis.NewClusterClient(&redis.ClusterOptions{Addrs: []string{"127.0.0.1:7000", url}}),
		} {
			_, err := redisstore.New(c)
			_ = c.Close()
			require.ErrorIs(t, err, redisstore.ErrMisconfigured, name, url)
			require.ErrorIs(t, err, core.ErrInvalidConfig, name, url)
			assert.Contains(t, err.Error(), "redis.ParseURL", name, url)
			assert.NotContains(t, err.Error(), "s3cret", name, url)
		}
	}
}
