package keyfuncs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// chain5 is a request through three of our proxies carrying a five-entry
// X-Forwarded-For: one spoofed entry, the client, then proxies.
func chain5() *keytest.Request {
	return req("10.0.0.1:443", "X-Forwarded-For", "198.51.100.66, 203.0.113.7, 10.1.1.1, 10.2.2.2, 10.3.3.3")
}

func BenchmarkClientIPXForwardedFor5(b *testing.B) {
	f := mustClientIP(b, keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8"}})
	r := chain5()
	b.ReportAllocs()
	for b.Loop() {
		if k, err := f(r); err != nil || k != "ip:203.0.113.7" {
			b.Fatal(k, err)
		}
	}
}

func BenchmarkClientIPForwarded5(b *testing.B) {
	f := mustClientIP(b, keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8"}, Headers: []string{"Forwarded"}})
	r := req("10.0.0.1:443", "Forwarded", `for=198.51.100.66, for="[2001:db8:cafe::17]:4711";proto=https, for=10.1.1.1, for=10.2.2.2, for=10.3.3.3`)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f(r); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkRemoteIP(b *testing.B) {
	r := req("[2001:db8:1:2:3:4:5:6]:443")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := keyfuncs.RemoteIP(r); err != nil {
			b.Fatal(err)
		}
	}
}

// The allocation budget is part of the contract (the key string itself is
// the one allocation), so it is checked here, not only reported.
func TestClientIPAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8"}})
	r := chain5()
	k, err := f(r)
	require.NoError(t, err)
	require.Equal(t, "ip:203.0.113.7", k)
	allocs := testing.AllocsPerRun(100, func() { _, _ = f(r) })
	assert.LessOrEqual(t, allocs, 2.0)
}

// An attacker's megabyte of X-Forwarded-For costs a bounded number of
// address parses: compare with BenchmarkClientIPXForwardedFor5.
func BenchmarkClientIPHugeXForwardedFor(b *testing.B) {
	f := mustClientIP(b, keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8"}})
	r := req("10.0.0.1:443", "X-Forwarded-For", strings.Repeat("198.51.100.66, ", 1<<16)+"203.0.113.7, 10.1.1.1")
	b.ReportAllocs()
	for b.Loop() {
		if k, err := f(r); err != nil || k != "ip:203.0.113.7" {
			b.Fatal(k, err)
		}
	}
}

func BenchmarkClientIPHugeForwarded(b *testing.B) {
	f := mustClientIP(b, keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8"}, Headers: []string{"Forwarded"}})
	r := req("10.0.0.1:443", "Forwarded", strings.Repeat("for=198.51.100.66, ", 1<<16)+"for=203.0.113.7, for=10.1.1.1")
	b.ReportAllocs()
	for b.Loop() {
		if k, err := f(r); err != nil || k != "ip:203.0.113.7" {
			b.Fatal(k, err)
		}
	}
}

// A namespaced key costs one allocation, the key itself.
func TestKeyAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	r := req("192.0.2.1:5", "X-API-Key", "k-123")
	r.RouteValue = "/users/{id}"
	for name, f := range map[string]keyfuncs.KeyFunc{
		"RemoteIP": keyfuncs.RemoteIP,
		"Header":   keyfuncs.Header("X-API-Key", nil),
		"Route":    keyfuncs.Route,
		"Path":     keyfuncs.Path,
		"Constant": keyfuncs.Constant("global"),
	} {
		_, err := f(r)
		require.NoError(t, err)
		assert.LessOrEqual(t, testing.AllocsPerRun(100, func() { _, _ = f(r) }), 1.0, name)
	}
}
