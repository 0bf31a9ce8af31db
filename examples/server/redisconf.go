package main

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"

	"github.com/redis/go-redis/v9"
)

// passwordEnv names the environment variable that holds the Redis
// password. A flag, or a password in -redis-url, would show in ps and in
// the shell's history.
const passwordEnv = "REDIS_PASSWORD"

// redisConn is how the server reaches Redis: the addresses (one =
// standalone, several = the seeds of a Redis Cluster), the ACL user, the
// password, the database and TLS (nil: plain TCP).
type redisConn struct {
	addrs    []string
	username string
	password string
	db       int
	tls      *tls.Config
}

// options returns the go-redis options of c: redisstore's tuned
// options, with c's credentials, database and TLS.
func (c redisConn) options(base *redis.UniversalOptions) *redis.UniversalOptions {
	base.Username, base.Password, base.DB, base.TLSConfig = c.username, c.password, c.db, c.tls
	return base
}

// parseRedisURL reads a redis:// or rediss:// (TLS) URL with go-redis's
// own parser: "redis[s]://[USER@]HOST:PORT[/DB]", or, for a Redis
// Cluster, the seeds after the first as addr parameters,
// "redis[s]://[USER@]HOST:PORT?addr=HOST2:PORT2&addr=HOST3:PORT3". The
// client keeps redisstore.ClientOptions' timeouts and retries, so no
// other parameter is taken, and a password in the URL is refused: it
// belongs in the REDIS_PASSWORD environment variable.
func parseRedisURL(s string) (redisConn, error) {
	u, err := url.Parse(s)
	if err != nil {
		// url's error quotes the URL, which may hold a password.
		return redisConn{}, errors.New("not a URL")
	}
	if u.Scheme != "redis" && u.Scheme != "rediss" {
		return redisConn{}, fmt.Errorf("scheme %q is not redis:// or rediss:// (TLS)", u.Scheme)
	}
	if _, set := u.User.Password(); set {
		return redisConn{}, fmt.Errorf("the URL holds a password, which would show in ps: give it in %s instead", passwordEnv)
	}
	if u.Hostname() == "" {
		return redisConn{}, errors.New("no host: want redis://HOST:PORT")
	}
	q := u.Query()
	for name := range q {
		if name != "addr" {
			return redisConn{}, fmt.Errorf("parameter %q is not taken: the client keeps the timeouts and retries of redisstore.ClientOptions; only addr (further Redis Cluster seeds) is", name)
		}
	}
	if len(q["addr"]) == 0 {
		o, err := redis.ParseURL(s)
		if err != nil {
			return redisConn{}, err
		}
		if err := checkAddr(o.Addr); err != nil {
			return redisConn{}, fmt.Errorf("%q is not host:port: %w", o.Addr, err)
		}
		return redisConn{addrs: []string{o.Addr}, username: o.Username, db: o.DB, tls: o.TLSConfig}, nil
	}
	if strings.Trim(u.Path, "/") != "" {
		return redisConn{}, errors.New("a Redis Cluster (addr parameters) has database 0 only: drop the /DB path")
	}
	o, err := redis.ParseClusterURL(s)
	if err != nil {
		return redisConn{}, err
	}
	for _, a := range o.Addrs {
		if err := checkAddr(a); err != nil {
			return redisConn{}, fmt.Errorf("addr %q is not host:port", a)
		}
	}
	if o.TLSConfig != nil {
		o.TLSConfig.MinVersion = tls.VersionTLS12
	}
	return redisConn{addrs: o.Addrs, username: o.Username, tls: o.TLSConfig}, nil
}

// loadCA reads a PEM file of CA certificates for verifying Redis's TLS
// certificate.
func loadCA(path string) (*x509.CertPool, error) {
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("%s holds no PEM certificate", path)
	}
	return pool, nil
}
