// Command server is the ratewindow demo server: one configurable program
// that rate-limits GET / on any of the four supported frameworks, on the
// memory store or on Redis.
//
//	go run ./examples/server -limits 10/1s,600/1m -framework gin
//
// It has two listeners, as a service in production should. The public one
// (-addr) serves the app: GET / answers 200 "ok\n" and is rate-limited;
// GET /healthz answers 200 and is never limited. The admin one
// (-admin-addr, loopback by default) serves the operators: GET /metrics,
// the Prometheus metrics (package metrics), and GET /debug/ratewindow/top,
// the keys most often denied or would-deny, hashed (package topkeys). Keep
// it off the internet: the top keys name the clients being limited. Neither
// listener serves the other's routes.
//
// Store errors and, with -observe, would-deny decisions are logged as JSON
// lines on stderr, keys hashed with the secret of the top keys' hashes
// (random per process), so a key_hash on /debug/ratewindow/top can be
// found in the logs. Once both listeners are bound, the server prints
// "admin on HOST:PORT" (unless -admin-addr is empty), then
// "listening on HOST:PORT", to stdout, and nothing more. A bad flag makes
// it exit with status 2 and a one-line error on stderr, before binding; so
// does a Redis that does not match -redis-addrs or -redis-url (one node of
// a cluster given alone, a replica), refuses the password, presents a
// TLS certificate that cannot be verified, speaks plain text to a
// rediss:// URL, or wants a client certificate (which the server has
// none to present). A Redis that is merely down at startup is logged, and
// the server starts. An
// address in use makes it exit with status 1. SIGINT or SIGTERM shuts both
// listeners down gracefully, with status 0; a second one during the
// shutdown ends the process at once, with status 1. One that comes during
// the start ends it with status 0 before it binds, or, at the latest, as
// soon as it is listening.
//
// Flags:
//
//	-addr             listen address (default ":8080"; port 0 picks a free port)
//	-admin-addr       listen address of /metrics and /debug/ratewindow/top
//	                  (default "127.0.0.1:8081"; "" turns them off; not the port of -addr)
//	-framework        nethttp | gin | echo | fiber (default nethttp)
//	-store            memory | redis (default memory)
//	-redis-addrs      host:port list; one = standalone, several = Redis Cluster (default 127.0.0.1:6379)
//	-redis-url        instead of -redis-addrs, a URL read by go-redis's parser:
//	                  redis://[USER@]HOST:PORT[/DB], rediss:// for TLS, and
//	                  ?addr=HOST:PORT&addr=... for the other seeds of a Redis
//	                  Cluster; no password and no other parameter
//	-redis-ca         PEM file of the CAs that sign the rediss:// server's
//	                  certificate (default: the system's roots)
//	-algorithm        sliding-window | sliding-log | fixed-window (default sliding-window)
//	-limits           LIMIT/WINDOW list, e.g. 10/1s,600/1m (default 100/1m)
//	-key              ip | header:NAME (default ip; header:NAME falls back to the client IP;
//	                  the header is taken as sent, so only one a client cannot choose,
//	                  such as one a gateway sets, is a limit: a made-up value is a new quota)
//	-trusted-proxies  CIDRs whose X-Forwarded-For is believed (default none)
//	-observe          observe-only: never block, still write the headers
//	-fail             open | closed: what to do when the store fails (default open; closed answers 503)
//	-headers          draft-8 | draft-7 | draft-6 | legacy | none (default draft-8)
//	-config           limits file (package config): routes, keys, limits and
//	                  observe/enforce per tenant, reloaded every second when it
//	                  changes; it sets what -limits, -algorithm, -key,
//	                  -trusted-proxies and -observe would, so giving any of
//	                  them with it (even -observe=false) is a flag error
//
// The Redis password, for -redis-addrs or -redis-url, is read from the
// environment variable REDIS_PASSWORD, never from a flag: a command line
// shows in ps.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	// The first SIGINT or SIGTERM starts the graceful shutdown; a second
	// one, during it, ends the process at once (status 1), as one who
	// presses Ctrl-C twice expects.
	signals := make(chan os.Signal, 2)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-signals
		cancel()
		sig := <-signals
		fmt.Fprintf(os.Stderr, "server: %v during the shutdown: exiting at once\n", sig)
		os.Exit(1)
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// shutdownGrace bounds the graceful shutdown.
const shutdownGrace = 5 * time.Second

// run is the whole program: it returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	cfg, err := parseFlags(args)
	if errors.Is(err, flag.ErrHelp) {
		fmt.Fprintln(stderr, usage)
		return 0
	}
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 2
	}
	srv, err := build(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 2
	}
	defer srv.release()
	// A signal that came during the start (a Redis that does not answer
	// holds it for seconds) ends the server here, before it binds: the
	// "listening on" line says it is ready, which it would not be.
	if ctx.Err() != nil {
		return 0
	}

	// Both listeners are bound before anything is printed or served: a
	// port in use fails the start, and the "listening on" line, printed
	// last, says the server is ready.
	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "server: -addr: %v\n", err)
		return 1
	}
	var adminLn net.Listener
	if srv.admin != nil {
		if adminLn, err = net.Listen("tcp", cfg.adminAddr); err != nil {
			_ = ln.Close()
			fmt.Fprintf(stderr, "server: -admin-addr: %v\n", err)
			return 1
		}
		fmt.Fprintf(stdout, "admin on %s\n", adminLn.Addr())
	}
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())
	return serve(ctx, srv, ln, adminLn, stderr)
}

// serve serves srv's public app on ln and its admin app on adminLn (nil
// when there is none) until ctx is done or one of them stops on its own,
// then shuts both down gracefully. It returns the exit status: 0 after a
// shutdown ctx asked for, 1 when a listener stopped unasked or the
// shutdown ran out of time.
func serve(ctx context.Context, srv *server, ln, adminLn net.Listener, stderr io.Writer) int {
	served := make(chan error, 2)
	running := 1
	go func() { served <- srv.public.serve(ln) }()
	if adminLn != nil {
		running++
		go func() {
			if err := srv.admin.serve(adminLn); err != nil {
				served <- fmt.Errorf("admin: %w", err)
				return
			}
			served <- nil
		}()
	}
	code := 0
	select {
	case err := <-served:
		// Only a shutdown ends serving without an error, and none was
		// asked for: stop the other listener too, and fail.
		running--
		if err == nil {
			err = errors.New("stopped serving")
		}
		fmt.Fprintf(stderr, "server: %v\n", err)
		code = 1
	case <-ctx.Done():
	}
	// The public listener first: the admin endpoints answer while the
	// requests in flight drain. One grace period bounds both.
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := srv.public.shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "server: shutdown: %v\n", err)
		return 1
	}
	if srv.admin != nil {
		if err := srv.admin.shutdown(sctx); err != nil {
			fmt.Fprintf(stderr, "server: shutdown admin: %v\n", err)
			return 1
		}
	}
	for ; running > 0; running-- {
		<-served
	}
	return code
}

const usage = `usage: server [flags]
  -addr host:port          listen address (default ":8080")
  -admin-addr host:port    listen address of /metrics and /debug/ratewindow/top,
                           for operators only (default 127.0.0.1:8081; "": off)
  -framework name          nethttp, gin, echo or fiber (default nethttp)
  -store name              memory or redis (default memory)
  -redis-addrs list        host:port, comma-separated; several = Redis Cluster (default 127.0.0.1:6379)
  -redis-url URL           instead of -redis-addrs: redis://[USER@]HOST:PORT[/DB], rediss:// for TLS,
                           ?addr=HOST:PORT&addr=... for a Redis Cluster's other seeds
  -redis-ca file           PEM CAs for a rediss:// certificate (default: the system's)
  -algorithm name          sliding-window, sliding-log or fixed-window (default sliding-window)
  -limits list             LIMIT/WINDOW, comma-separated, e.g. 10/1s,600/1m (default 100/1m)
  -key ip|header:NAME      rate-limit key (default ip); a header only if clients cannot set it
  -trusted-proxies list    CIDRs of trusted reverse proxies (default none)
  -observe                 observe-only: never block
  -fail open|closed        when the store fails (default open)
  -headers mode            draft-8, draft-7, draft-6, legacy or none (default draft-8)
  -config file             limits file (JSON), reloaded when it changes; it sets what
                           -limits, -algorithm, -key, -trusted-proxies and -observe
                           would, and is refused beside any of them
environment:
  REDIS_PASSWORD           the Redis password, for -redis-addrs or -redis-url
                           (not a flag: a command line shows in ps)`
