package main

import (
	"crypto/tls"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestParseRedisURL: -redis-url gives the address, the ACL user, the
// database and TLS; addr parameters make it a Redis Cluster; the password
// comes from REDIS_PASSWORD, on the redis store only.
func TestParseRedisURL(t *testing.T) {
	t.Setenv(passwordEnv, "s3cret")
	c, err := parseFlags([]string{"-store", "redis", "-redis-url", "redis://limiter@redis.internal:6380/2"})
	require.NoError(t, err)
	assert.Equal(t, redisConn{addrs: []string{"redis.internal:6380"}, username: "limiter", password: "s3cret", db: 2}, c.redis)

	c, err = parseFlags([]string{"-store", "redis", "-redis-url", "rediss://10.0.0.1:7000?addr=10.0.0.2:7001&addr=10.0.0.3:7002"})
	require.NoError(t, err)
	assert.Equal(t, []string{"10.0.0.1:7000", "10.0.0.2:7001", "10.0.0.3:7002"}, c.redis.addrs)
	require.NotNil(t, c.redis.tls)
	assert.Equal(t, "10.0.0.1", c.redis.tls.ServerName)
	assert.Equal(t, uint16(tls.VersionTLS12), c.redis.tls.MinVersion)
	assert.Equal(t, "s3cret", c.redis.password)

	c, err = parseFlags([]string{"-store", "redis", "-redis-addrs", "10.0.0.1:6379"})
	require.NoError(t, err)
	assert.Equal(t, redisConn{addrs: []string{"10.0.0.1:6379"}, password: "s3cret"}, c.redis)

	c, err = parseFlags([]string{"-redis-url", "rediss://redis.internal"})
	require.NoError(t, err)
	assert.Zero(t, c.redis, "the memory store takes no Redis settings")
}

// TestParseRedisErrors: every mistake in the Redis flags is one line
// naming the flag, and never quotes a password.
func TestParseRedisErrors(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.pem")
	require.NoError(t, os.WriteFile(notPEM, []byte("not a certificate"), 0o600))
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-redis-url", "redis://:hunter2@redis.internal:6379"}, "-redis-url: the URL holds a password, which would show in ps: give it in REDIS_PASSWORD"},
		{[]string{"-redis-url", "redis://user:hunter2@redis.internal:6379"}, "REDIS_PASSWORD"},
		{[]string{"-redis-url", "redis://user:hunter2@%zz"}, "-redis-url: not a URL"},
		{[]string{"-redis-url", ""}, `-redis-url: scheme "" is not redis://`}, // an unset variable, not the default address
		{[]string{"-redis-url", "http://redis.internal:6379"}, `-redis-url: scheme "http" is not redis:// or rediss://`},
		{[]string{"-redis-url", "redis.internal:6379"}, "-redis-url: scheme"},
		{[]string{"-redis-url", "unix:///run/redis.sock"}, "-redis-url: scheme"},
		{[]string{"-redis-url", "redis://"}, "-redis-url: no host"},
		{[]string{"-redis-url", "redis://redis.internal:6379?dial_timeout=5s"}, `-redis-url: parameter "dial_timeout" is not taken`},
		{[]string{"-redis-url", "redis://redis.internal:99999"}, `-redis-url: "redis.internal:99999" is not host:port`},
		{[]string{"-redis-url", "redis://redis.internal:6379/db1"}, "-redis-url: redis: invalid database number"},
		{[]string{"-redis-url", "redis://redis.internal:6379/1?addr=10.0.0.2:7001"}, "-redis-url: a Redis Cluster (addr parameters) has database 0 only"},
		{[]string{"-redis-url", "redis://redis.internal:6379?addr=10.0.0.2"}, "-redis-url: redis: unable to parse addr param: 10.0.0.2"},
		{[]string{"-redis-url", "redis://redis.internal:6379?addr=10.0.0.2:99999"}, `-redis-url: addr "10.0.0.2:99999" is not host:port`},
		{[]string{"-redis-url", "redis://redis.internal:6379", "-redis-addrs", "10.0.0.1:6379"}, "-redis-url: give it or -redis-addrs, not both"},
		{[]string{"-redis-ca", notPEM}, "-redis-ca: TLS needs a rediss:// -redis-url"},
		{[]string{"-redis-url", "redis://redis.internal:6379", "-redis-ca", notPEM}, "-redis-ca: TLS needs a rediss:// -redis-url"},
		{[]string{"-redis-url", "rediss://redis.internal:6379", "-redis-ca", notPEM}, "-redis-ca: " + notPEM + " holds no PEM certificate"},
		{[]string{"-redis-url", "rediss://redis.internal:6379", "-redis-ca", filepath.Join(dir, "missing.pem")}, "-redis-ca: open"},
	} {
		_, err := parseFlags(c.args)
		require.Error(t, err, "%v", c.args)
		assert.Contains(t, err.Error(), c.want, "%v", c.args)
		assert.NotContains(t, err.Error(), "hunter2", "%v", c.args)
		assert.NotContains(t, err.Error(), "\n", "%v", c.args)
	}
}

// TestRedisAddrsNeverQuoteAPassword: a URL, or USER:PASSWORD@HOST:PORT,
// given to -redis-addrs is refused without quoting what it holds, and the
// error says where a URL and the password belong.
func TestRedisAddrsNeverQuoteAPassword(t *testing.T) {
	for _, c := range []struct{ addrs, want string }{
		{"redis://:hunter2@redis.internal:6379", "-redis-url"},
		{"rediss://limiter:hunter2@redis.internal:6380/0", "-redis-url"},
		{"10.0.0.1:6379,limiter:hunter2@10.0.0.2:6379", passwordEnv},
		{"hunter2@10.0.0.2:6379", passwordEnv},
	} {
		_, err := parseFlags([]string{"-store", "redis", "-redis-addrs", c.addrs})
		require.Error(t, err, c.addrs)
		assert.Contains(t, err.Error(), "-redis-addrs", c.addrs)
		assert.Contains(t, err.Error(), c.want, c.addrs)
		assert.NotContains(t, err.Error(), "hunter2", c.addrs)
	}
}
