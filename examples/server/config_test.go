package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
)

func TestParseFlagsDefaults(t *testing.T) {
	c, err := parseFlags(nil)
	require.NoError(t, err)
	assert.Equal(t, ":8080", c.addr)
	assert.Equal(t, "127.0.0.1:8081", c.adminAddr)
	assert.Equal(t, defaultTimeouts, c.timeouts)
	assert.Equal(t, "nethttp", c.framework)
	assert.Equal(t, "memory", c.store)
	assert.Zero(t, c.redis)
	require.Len(t, c.policies, 1)
	assert.Equal(t, int64(100), c.policies[0].Limit)
	assert.Equal(t, time.Minute, c.policies[0].Window)
	assert.Equal(t, core.SlidingWindow, c.policies[0].Algorithm)
	assert.False(t, c.observe)
	assert.False(t, c.failClosed)
	assert.Equal(t, headers.Draft8, c.headers)
	assert.NotNil(t, c.key)
}

func TestParseFlags(t *testing.T) {
	c, err := parseFlags([]string{
		"-addr", "127.0.0.1:0", "-framework", "fiber", "-store", "redis", "-redis-addrs", "10.0.0.1:7000, 10.0.0.2:7001",
		"-algorithm", "sliding-log", "-limits", "10/1s,600/1m", "-key", "header:X-Api-Key",
		"-trusted-proxies", "10.0.0.0/8", "-observe", "-fail", "closed", "-headers", "legacy",
	})
	require.NoError(t, err)
	assert.Equal(t, "fiber", c.framework)
	assert.Equal(t, []string{"10.0.0.1:7000", "10.0.0.2:7001"}, c.redis.addrs)
	require.Len(t, c.policies, 2)
	assert.Equal(t, "1s", c.policies[0].Name)
	assert.Equal(t, core.SlidingLog, c.policies[1].Algorithm)
	assert.Equal(t, int64(600), c.policies[1].Limit)
	assert.True(t, c.observe)
	assert.True(t, c.failClosed)
	assert.Equal(t, headers.Legacy, c.headers)
}

func TestParseFlagsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string // part of the message
	}{
		{[]string{"-addr", "8080"}, "-addr"},
		{[]string{"-addr", "127.0.0.1:70000"}, "-addr"},
		{[]string{"-addr", "127.0.0.1:http"}, "-addr"},
		{[]string{"-admin-addr", "8081"}, "-admin-addr"},
		{[]string{"-admin-addr", "127.0.0.1:8080"}, `-admin-addr: "127.0.0.1:8080" would share -addr ":8080"`},
		{[]string{"-framework", "chi"}, "-framework"},
		{[]string{"-store", "etcd"}, "-store"},
		{[]string{"-store", "redis", "-redis-addrs", "localhost"}, "-redis-addrs"},
		{[]string{"-store", "redis", "-redis-addrs", " , "}, "-redis-addrs"},
		{[]string{"-redis-addrs", "no-port"}, "-redis-addrs"},
		{[]string{"-algorithm", "token-bucket"}, "-algorithm"},
		{[]string{"-limits", ""}, "-limits"},
		{[]string{"-limits", "10"}, "-limits"},
		{[]string{"-limits", "-1/1s"}, "-limits"},
		{[]string{"-limits", "10/soon"}, "-limits"},
		{[]string{"-limits", "10/1s,10/1s"}, "-limits"},
		{[]string{"-limits", "10/1s,20/1000ms"}, `-limits: "10/1s" and "20/1000ms" have the same window`},
		{[]string{"-limits", "10/1500us"}, "-limits"},
		{[]string{"-key", "cookie:session"}, "-key"},
		{[]string{"-key", "header:"}, "-key"},
		{[]string{"-key", "header:X Api"}, "-key"},
		{[]string{"-trusted-proxies", "not-a-cidr"}, "-trusted-proxies"},
		{[]string{"-fail", "maybe"}, "-fail"},
		{[]string{"-headers", "rfc"}, "-headers"},
		{[]string{"-headers", "draft7"}, "ambiguous"},
		{[]string{"-observe=perhaps"}, "observe"},
		{[]string{"extra"}, "extra"},
	} {
		_, err := parseFlags(c.args)
		require.Error(t, err, "%v", c.args)
		assert.Contains(t, err.Error(), c.want, "%v", c.args)
		assert.NotContains(t, err.Error(), "\n", "%v", c.args)
	}
}

func TestParseFlagsHeaderModes(t *testing.T) {
	for name, want := range map[string]headers.Mode{
		"draft-8": headers.Draft8, "draft-7": headers.Draft7, "draft-6": headers.Draft6,
		"legacy": headers.Legacy, "none": headers.None, "ietf": headers.Draft8,
	} {
		c, err := parseFlags([]string{"-headers", name})
		require.NoError(t, err, name)
		assert.Equal(t, want, c.headers, name)
	}
}

func TestParseFlagsAdminOff(t *testing.T) {
	c, err := parseFlags([]string{"-admin-addr", ""})
	require.NoError(t, err)
	assert.Empty(t, c.adminAddr)
}

func TestSameListener(t *testing.T) {
	for _, c := range []struct {
		a, b string
		same bool
	}{
		{":8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", ":8080", true},
		{"0.0.0.0:8080", "10.0.0.1:8080", true},
		{"[::]:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "127.0.0.1:8080", true},
		{"LOCALHOST:8080", "localhost:8080", true},
		{"[::ffff:127.0.0.1]:8080", "127.0.0.1:8080", true},
		{"127.0.0.1:8080", "127.0.0.1:08080", true},
		{":8080", "127.0.0.1:8081", false},
		{"127.0.0.1:8080", "127.0.0.2:8080", false},
		{"127.0.0.1:0", "127.0.0.1:0", false},
		{":0", ":0", false},
	} {
		assert.Equal(t, c.same, sameListener(c.a, c.b), "%s %s", c.a, c.b)
	}
}
