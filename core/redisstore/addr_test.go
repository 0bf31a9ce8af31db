package redisstore_test

import (
	"strings"
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

// An address that carries credentials without a scheme ("user:pass@host",
// a URL missing its "redis://") is refused at New, without echoing the
// password: before, New accepted it, and Check and every call then failed
// with the dialer's error, which quotes the address.
func TestAddressWithCredentialsIsNeverEchoed(t *testing.T) {
	for _, addrs := range [][]string{
		{"app:s3cret@127.0.0.1:6379"},
		{"127.0.0.1:1", " ", "app:s3cret@127.0.0.1:6379"},
		{"127.0.0.1:1", "app:s3cret@127.0.0.1:6379,127.0.0.1:2"},
	} {
		c := redis.NewUniversalClient(redisstore.ClientOptions(addrs...))
		_, err := redisstore.New(c)
		_ = c.Close()
		require.ErrorIs(t, err, redisstore.ErrMisconfigured, addrs)
		assert.Contains(t, err.Error(), "Password", addrs)
		assert.NotContains(t, err.Error(), "s3cret", addrs)
	}
	for _, sock := range []string{"/run/redis@main/redis.sock", "@redis"} {
		c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
		_, err := redisstore.New(c)
		_ = c.Close()
		assert.NoError(t, err, "a Unix socket's path or abstract name may hold an '@'")
	}
}

// A Unix socket's address is a path, relative ones included (go-redis
// dials it as given): an '@' in it names no user, so New accepts it.
// Before, only a path starting with '/' was told apart, and a relative
// one such as "redis@main.sock" was refused as holding credentials.
func TestRelativeSocketPathWithAtIsAccepted(t *testing.T) {
	for _, sock := range []string{"redis@main.sock", "run/redis@main/redis.sock", "./redis@6379.sock"} {
		c := redis.NewClient(&redis.Options{Network: "unix", Addr: sock})
		_, err := redisstore.New(c)
		_ = c.Close()
		assert.NoError(t, err, sock)
	}
}

// The error of New names the package once, and says both what kind of
// mistake it is and what to do.
func TestNewErrorNamesThePackageOnce(t *testing.T) {
	for name, c := range map[string]redis.UniversalClient{
		"url":    redis.NewClient(&redis.Options{Addr: "redis://127.0.0.1:6379"}),
		"commas": redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379,127.0.0.1:6380"}),
	} {
		_, err := redisstore.New(c)
		_ = c.Close()
		require.ErrorIs(t, err, redisstore.ErrMisconfigured, name)
		require.ErrorIs(t, err, core.ErrInvalidConfig, name)
		assert.Equal(t, 1, strings.Count(err.Error(), "redisstore:"), "%s: %v", name, err)
		assert.True(t, strings.HasPrefix(err.Error(), core.ErrInvalidConfig.Error()+": "+redisstore.ErrMisconfigured.Error()+": "), "%s: %v", name, err)
	}
}
