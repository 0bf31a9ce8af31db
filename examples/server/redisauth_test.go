package main

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/testredis"
)

// TestRedisPassword: on a Redis with requirepass, the password from
// REDIS_PASSWORD is used (by -redis-addrs and by -redis-url, with the
// URL's ACL user), and a wrong or missing one stops the server at start,
// with status 2 and one line that says why and never quotes the password,
// rather than failing every request.
func TestRedisPassword(t *testing.T) {
	srv := testredis.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, srv.Client(t).ConfigSet(ctx, "requirepass", "right-pass").Err())

	for name, where := range map[string][]string{
		"addrs": {"-redis-addrs", srv.Addr},
		"url":   {"-redis-url", "redis://default@" + srv.Addr},
	} {
		t.Run(name, func(t *testing.T) {
			args := append([]string{"-store", "redis", "-fail", "closed", "-limits", "2/1m", "-key", "header:X-Api-Key"}, where...)
			p := startEnv(t, []string{passwordEnv + "=right-pass"}, args...)
			key := map[string]string{"X-Api-Key": name}
			assert.Equal(t, []int{ok, ok, deny}, statuses(t, p.url+"/", 3, key), "decided on Redis (a store error would be 503)")
			code, _ := p.stop(t, syscall.SIGTERM)
			assert.Equal(t, 0, code)
			assert.NotContains(t, p.stderr.String(), "right-pass")

			for _, env := range [][]string{{passwordEnv + "=wrong-pass"}, nil} {
				code, stdout, stderr := runExitEnv(t, env, append([]string{"-addr", "127.0.0.1:0", "-admin-addr", ""}, args...)...)
				assert.Equal(t, 2, code, "%v", env)
				assert.Empty(t, stdout, "never bound")
				oneLine(t, stderr)
				assert.Contains(t, stderr, "Redis refused the client's credentials", "%v", env)
				assert.Contains(t, stderr, passwordEnv, "%v: says where the password comes from", env)
				assert.NotContains(t, stderr, "wrong-pass")
			}
		})
	}
}

// TestRedisTLS: a rediss:// URL speaks TLS, verified against -redis-ca;
// a certificate no trusted CA signed, or one for another host, stops the
// server at start with status 2.
func TestRedisTLS(t *testing.T) {
	dir := t.TempDir()
	ca, cert, key := writeTLSFiles(t, dir)
	tlsAddr := tlsRedis(t, ca, cert, key, "--tls-auth-clients", "no")

	args := []string{"-store", "redis", "-fail", "closed", "-limits", "2/1m"}
	p := start(t, append(args, "-redis-url", "rediss://"+tlsAddr, "-redis-ca", ca)...)
	assert.Equal(t, []int{ok, ok, deny}, statuses(t, p.url+"/", 3, nil), "decided on Redis over TLS")
	code, _ := p.stop(t, syscall.SIGTERM)
	assert.Equal(t, 0, code)

	_, port, err := net.SplitHostPort(tlsAddr)
	require.NoError(t, err)
	for _, c := range []struct {
		flags []string
		want  string
	}{
		{[]string{"-redis-url", "rediss://" + tlsAddr}, "certificate signed by unknown authority"},
		{[]string{"-redis-url", "rediss://localhost:" + port, "-redis-ca", ca}, "wanted to match localhost"},
	} {
		code, stdout, stderr := runExit(t, append(append([]string{"-addr", "127.0.0.1:0", "-admin-addr", ""}, args...), c.flags...)...)
		assert.Equal(t, 2, code, "%v", c.flags)
		assert.Empty(t, stdout)
		oneLine(t, stderr)
		assert.Contains(t, stderr, c.want, "%v", c.flags)
	}
}

// TestTLSMistake: the probe that runs when the startup check fails for a
// reason it cannot name tells a certificate the client cannot verify
// (the check's own handshake may have run out of time on a loaded host),
// and finds no mistake in a Redis whose TLS is sound.
func TestTLSMistake(t *testing.T) {
	ca, cert, key := writeTLSFiles(t, t.TempDir())
	tlsAddr := tlsRedis(t, ca, cert, key, "--tls-auth-clients", "no")
	pool, err := loadCA(ca)
	require.NoError(t, err)
	host, _, err := net.SplitHostPort(tlsAddr)
	require.NoError(t, err)

	err = tlsMistake([]string{tlsAddr}, &tls.Config{ServerName: host, MinVersion: tls.VersionTLS12})
	require.Error(t, err)
	assert.Contains(t, err.Error(), tlsAddr+": tls: failed to verify certificate: x509: certificate signed by unknown authority")
	assert.NoError(t, tlsMistake([]string{tlsAddr}, &tls.Config{ServerName: host, RootCAs: pool, MinVersion: tls.VersionTLS12}))
}

// tlsRedis starts a Redis of the test's own that serves TLS, with the
// certificate cert and its key, the CA ca and the further arguments
// args, and returns its TLS address.
func tlsRedis(t *testing.T, ca, cert, key string, args ...string) string {
	t.Helper()
	tlsAddr := testredis.DeadAddr(t)
	_, tlsPort, err := net.SplitHostPort(tlsAddr)
	require.NoError(t, err)
	testredis.ServerWith(t, append([]string{"--tls-port", tlsPort, "--tls-cert-file", cert, "--tls-key-file", key,
		"--tls-ca-cert-file", ca}, args...)...)
	return tlsAddr
}

// writeTLSFiles writes a CA and a certificate it signs for 127.0.0.1 to
// dir, as PEM files, and returns their paths: the CA's, the
// certificate's and its key's.
func writeTLSFiles(t *testing.T, dir string) (ca, cert, key string) {
	t.Helper()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	caTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	require.NoError(t, err)
	caCert, err := x509.ParseCertificate(caDER)
	require.NoError(t, err)
	srvKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	srvTmpl := &x509.Certificate{
		SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:    x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	srvDER, err := x509.CreateCertificate(rand.Reader, srvTmpl, caCert, &srvKey.PublicKey, caKey)
	require.NoError(t, err)
	keyDER, err := x509.MarshalECPrivateKey(srvKey)
	require.NoError(t, err)
	write := func(name, typ string, der []byte) string {
		path := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600))
		return path
	}
	return write("ca.pem", "CERTIFICATE", caDER), write("redis.pem", "CERTIFICATE", srvDER), write("redis.key", "EC PRIVATE KEY", keyDER)
}

// TestRedisTLSClientCertificate: a Redis that wants a client certificate
// (tls-auth-clients yes, Redis's default), which the server has none to
// present, refuses every connection: a setup mistake, so the server does
// not start, rather than start and fail (or, failing open, pass) every
// request. Over TLS 1.3 the refusal comes after the client's side of the
// handshake has ended; over TLS 1.2, within it.
func TestRedisTLSClientCertificate(t *testing.T) {
	ca, cert, key := writeTLSFiles(t, t.TempDir())
	for name, protocols := range map[string]string{"TLS 1.3": "TLSv1.3", "TLS 1.2": "TLSv1.2"} {
		t.Run(name, func(t *testing.T) {
			tlsAddr := tlsRedis(t, ca, cert, key, "--tls-auth-clients", "yes", "--tls-protocols", protocols)
			code, stdout, stderr := runExit(t, "-addr", "127.0.0.1:0", "-admin-addr", "", "-store", "redis",
				"-redis-url", "rediss://"+tlsAddr, "-redis-ca", ca)
			assert.Equal(t, 2, code, stderr)
			assert.Empty(t, stdout, "never bound")
			oneLine(t, stderr)
			assert.Contains(t, stderr, tlsAddr+" wants a client certificate")
		})
	}
}

// TestRedisTLSOnPlainPort: a rediss:// URL on a port where Redis speaks
// plain text (with a password or without) is a setup mistake, told as
// such, not a Redis that is down.
func TestRedisTLSOnPlainPort(t *testing.T) {
	locked := testredis.Server(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	require.NoError(t, locked.Client(t).ConfigSet(ctx, "requirepass", "right-pass").Err())
	for name, addr := range map[string]string{"open": testredis.Addr(t), "password": locked.Addr} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runExit(t, "-addr", "127.0.0.1:0", "-admin-addr", "", "-store", "redis",
				"-redis-url", "rediss://"+addr)
			assert.Equal(t, 2, code, stderr)
			assert.Empty(t, stdout, "never bound")
			oneLine(t, stderr)
			assert.Contains(t, stderr, addr+" answers in plain text, not TLS")
		})
	}
}

// TestRedisTLSDown: with nothing listening at a rediss:// address, the
// probe for TLS mistakes finds none: the server starts, and fails closed.
func TestRedisTLSDown(t *testing.T) {
	p := start(t, "-store", "redis", "-fail", "closed", "-redis-url", "rediss://"+testredis.DeadAddr(t))
	assert.Equal(t, 503, get(t, p.url+"/", nil).status)
	code, _ := p.stop(t, syscall.SIGTERM)
	assert.Equal(t, 0, code)
	assert.Contains(t, p.stderr.String(), "redis is unreachable at startup")
}
