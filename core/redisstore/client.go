package redisstore

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/redis/go-redis/v9"
)

// clientTimeout is the bound ClientOptions puts on dialing, on each read
// and write, and on the wait for a free pooled connection. A decision is a
// sub-millisecond script, so a Redis that has not answered in this time is
// treated as down and the limiter's fail policy applies.
const clientTimeout = 250 * time.Millisecond

// ClientOptions returns go-redis client options tuned for a rate limiter,
// for the servers at addrs: one address is a standalone server (or, with
// MasterName set, the Sentinels of a failover setup), several are the seeds
// of a Redis Cluster. Pass them to redis.NewUniversalClient:
//
//	client := redis.NewUniversalClient(redisstore.ClientOptions("127.0.0.1:6379"))
//	store, err := redisstore.New(client)
//
// go-redis's own defaults are made for a cache that must not lose a
// command: five dials with backoff, three retries, five-second timeouts, so
// a request waits seconds on a Redis that is down. With these options a
// refused connection fails in about a millisecond (one dial, no retry),
// and a Redis that accepts but does not answer fails after 250 ms (the
// dial, read, write and pool timeouts; a call that queued for a batch
// behind the stalled round trips, after at most twice that), or sooner at
// the request context's deadline (ContextTimeoutEnabled).
// Cluster clients follow up to eight MOVED/ASK redirects per command, so
// resharding and failover are ridden out, and pause at most 20 ms between
// their attempts on a node that does not answer, so a call to a dead
// master fails in about a tenth of a second (go-redis's default backoff
// would hold it for seconds) and the store can ask for the new slot map;
// the store itself retries a script that meets TRYAGAIN or an unfinished
// redirect within the request's deadline.
//
// Left with no address, or a blank one (an unset environment variable),
// the client does not dial go-redis's default, a Redis on localhost: every
// dial fails with ErrMisconfigured, which Check reports at startup. The
// options' dialer is go-redis's own otherwise (DialTimeout, TLSConfig).
//
// Each new connection loads the store's scripts (OnConnect), so every
// script call is an EVALSHA, the first on a fresh Redis included. If you set
// your own OnConnect, call the returned one from it too.
//
// Change any field before creating the client: for Sentinel set
// MasterName (and Addrs to the Sentinels), for a protected Redis Password
// or TLSConfig. A 250 ms timeout shorter than the slowest reply of your
// Redis (a large MIGRATE, a fork on a big data set) turns those moments
// into store errors: raise ReadTimeout then, not the retries.
func ClientOptions(addrs ...string) *redis.UniversalOptions {
	opts := &redis.UniversalOptions{
		Addrs:                 addrs,
		DialTimeout:           clientTimeout,
		DialerRetries:         1,
		ReadTimeout:           clientTimeout,
		WriteTimeout:          clientTimeout,
		PoolTimeout:           clientTimeout,
		ContextTimeoutEnabled: true,
		MaxRetries:            -1,
		MaxRedirects:          8,
		MinRetryBackoff:       2 * time.Millisecond,
		MaxRetryBackoff:       20 * time.Millisecond,
		OnConnect:             loadScripts,
	}
	opts.Dialer = func(ctx context.Context, network, addr string) (net.Conn, error) {
		if err := noAddress(opts.Addrs); err != nil {
			return nil, err
		}
		return redis.NewDialer(&redis.Options{DialTimeout: opts.DialTimeout, TLSConfig: opts.TLSConfig})(ctx, network, addr)
	}
	return opts
}

// noAddress returns the error of options from ClientOptions whose Addrs
// are still empty, or hold a blank address, when the client dials:
// typically an unset environment variable. go-redis would dial its
// default, a Redis on localhost, instead. ClientOptions cannot return an
// error, and its caller may still set Addrs before creating the client,
// so its dialer (go-redis's own, otherwise) looks at the options when it
// dials and returns this error: Check reports it, and every call fails
// with it, rather than a limiter failing open against a Redis that was
// never meant.
func noAddress(addrs []string) error {
	if len(addrs) == 0 {
		return fmt.Errorf("%w: the client options from ClientOptions hold no address", ErrMisconfigured)
	}
	for i, a := range addrs {
		if strings.TrimSpace(a) == "" {
			return fmt.Errorf("%w: the client options from ClientOptions hold no address in element %d of %d of Addrs", ErrMisconfigured, i, len(addrs))
		}
	}
	return nil
}

// loadScripts loads the store's scripts on the connection cn with one
// pipelined SCRIPT LOAD each, so the next EVALSHA on that server finds
// them. ClientOptions installs it as the client's OnConnect hook. Loading a
// script the server already holds costs it a hash and a lookup. An error
// answer (a Sentinel, which go-redis connects with the same hook and which
// has no SCRIPT command; a Redis that refuses the scripts, which Check
// reports) is ignored: the connection stays usable and the store's EVALSHA
// falls back to EVAL. Only a failed round trip fails the connection.
//
// A PING goes first, alone: a Redis that wants a password the options lack
// answers it NOAUTH, and would close the connection while the scripts are
// being written, as they are longer than Redis reads from a client that has
// not authenticated. The connection then fails with that NOAUTH (see
// denied), not with a reset that reads as Redis being down. The PING costs
// one more round trip per new connection, not per call.
func loadScripts(ctx context.Context, cn *redis.Conn) error {
	if err := cn.Ping(ctx).Err(); redis.HasErrorPrefix(err, "NOAUTH") {
		return denied(err)
	}
	_, err := cn.Pipelined(ctx, func(p redis.Pipeliner) error {
		for _, sc := range scripts {
			p.ScriptLoad(ctx, sc.src.(string))
		}
		return nil
	})
	if err != nil && !isReply(err) {
		return fmt.Errorf("redisstore: load scripts: %w", err)
	}
	return nil
}
