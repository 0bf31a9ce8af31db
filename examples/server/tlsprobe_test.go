package main

import (
	"crypto/tls"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/testredis"
)

// TestTLSMistakeEveryAddress: each of Redis's addresses has all of the
// probe's time. One that holds the probe until its deadline, first among
// a cluster's seeds (a frozen node, or a sound one with tls-auth-clients
// optional, which never alerts), does not hide the mistake on the next.
func TestTLSMistakeEveryAddress(t *testing.T) {
	ca, cert, key := writeTLSFiles(t, t.TempDir())
	pool, err := loadCA(ca)
	require.NoError(t, err)
	cfg := &tls.Config{ServerName: "127.0.0.1", RootCAs: pool, MinVersion: tls.VersionTLS12}
	wants := tlsRedis(t, ca, cert, key, "--tls-auth-clients", "yes")
	optional := tlsRedis(t, ca, cert, key, "--tls-auth-clients", "optional")
	plain := testredis.Addr(t)
	frozen := testredis.Server(t)
	frozen.Freeze(t)

	err = tlsMistake([]string{frozen.Addr, wants}, cfg)
	require.Error(t, err, "frozen first")
	assert.Contains(t, err.Error(), wants+" wants a client certificate")

	err = tlsMistake([]string{optional, plain}, cfg)
	require.Error(t, err, "optional first")
	assert.Contains(t, err.Error(), plain+" answers in plain text, not TLS")

	assert.NoError(t, tlsMistake([]string{frozen.Addr, optional}, cfg), "no mistake on either")
}

// TestRedisTLSClusterSeedFrozen: a Redis Cluster whose first seed hangs
// and whose other wants a client certificate does not start.
func TestRedisTLSClusterSeedFrozen(t *testing.T) {
	ca, cert, key := writeTLSFiles(t, t.TempDir())
	wants := tlsRedis(t, ca, cert, key, "--tls-auth-clients", "yes")
	frozen := testredis.Server(t)
	frozen.Freeze(t)

	code, stdout, stderr := runExit(t, "-addr", "127.0.0.1:0", "-admin-addr", "", "-store", "redis",
		"-redis-url", "rediss://"+frozen.Addr+"?addr="+wants, "-redis-ca", ca)
	assert.Equal(t, 2, code, stderr)
	assert.Empty(t, stdout, "never bound")
	oneLine(t, stderr)
	assert.Contains(t, stderr, wants+" wants a client certificate")
}
