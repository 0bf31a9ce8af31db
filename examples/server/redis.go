package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/redisstore"
)

// checkTimeout bounds the startup check of Redis.
const checkTimeout = 2 * time.Second

// newRedisStore returns the Redis store on conn: one address is a
// standalone server, several are the seeds of a Redis Cluster. The client
// has redisstore.ClientOptions, with conn's credentials, database and
// TLS, so a Redis that is down or silent costs a request milliseconds
// before the fail policy applies.
//
// It runs the store's startup check: a client that does not match its
// Redis (one node of a cluster given alone, a replica), credentials Redis
// refuses, a TLS certificate the client cannot verify (not signed by a
// trusted CA, not for the host), a rediss:// URL on a Redis that speaks
// plain text, and a Redis that wants a client certificate (see
// tlsMistake) are errors, and the server does not start. A Redis that is
// merely unreachable is not: warn is told, the server starts, and each
// request meets the fail policy until Redis is back.
func newRedisStore(conn redisConn, warn func(msg string, err error)) (core.Store, func(), error) {
	redis.SetLogger(quiet{})
	client := redis.NewUniversalClient(conn.options(redisstore.ClientOptions(conn.addrs...)))
	s, err := redisstore.New(client)
	if err != nil {
		_ = client.Close()
		return nil, nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), checkTimeout)
	defer cancel()
	err = s.Check(ctx)
	if errors.Is(err, redisstore.ErrMisconfigured) || tlsSetup(err) {
		_ = client.Close()
		if redis.HasErrorPrefix(err, "WRONGPASS") || redis.HasErrorPrefix(err, "NOAUTH") {
			return nil, nil, fmt.Errorf("redis: %w (the password is read from %s)", err, passwordEnv)
		}
		return nil, nil, fmt.Errorf("redis: %w", err)
	}
	if err != nil && conn.tls != nil {
		// From go-redis's side, a Redis that refuses the TLS setup can
		// look merely down: ask it directly.
		if mistake := tlsMistake(conn.addrs, conn.tls); mistake != nil {
			_ = client.Close()
			return nil, nil, fmt.Errorf("redis: %w", mistake)
		}
	}
	if err != nil {
		warn("redis is unreachable at startup; the fail policy applies until it is back", err)
	}
	return s, func() { _ = client.Close() }, nil
}

// tlsSetup reports whether err is a TLS handshake that failed for the
// setup, which waiting will not mend: Redis's certificate is not signed by
// a CA the client trusts (see -redis-ca), or is for another host, or is
// not valid now.
func tlsSetup(err error) bool {
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) ||
		errors.As(err, &invalid)
}

// quiet is go-redis's logger in the server: it drops the lines go-redis
// would print on stderr in plain text among the JSON ones, one for every
// failed dial, so for every request while Redis is down. Each failure they
// describe reaches the middleware as a store error, which the logging hook
// logs, at most once a second, and the metrics count.
type quiet struct{}

// Printf drops the line.
func (quiet) Printf(context.Context, string, ...any) {}
