// Command server is the ratewindow demo server: one configurable program
// that rate-limits GET / on any of the four supported frameworks, on the
// memory store or on Redis.
//
//	go run ./examples/server -limits 10/1s,600/1m -framework gin
//
// Routes: GET / answers 200 "ok\n" and is rate-limited; GET /healthz
// answers 200 and is never limited; GET /metrics serves the Prometheus
// metrics (package metrics); GET /debug/ratewindow/top lists the keys most
// often denied or would-deny, hashed (package topkeys). Store errors and, with -observe, would-deny
// decisions are logged as JSON lines on stderr. Once bound, the server prints exactly
// one line to stdout, "listening on HOST:PORT". A bad flag makes it exit
// with status 2 and a one-line error on stderr, before binding; so does a
// Redis that does not match -redis-addrs (one node of a cluster given
// alone, a replica), found by redisstore's startup check. A Redis that is
// merely down at startup is logged, and the server starts. SIGINT or
// SIGTERM shuts it down gracefully, with status 0.
//
// Flags:
//
//	-addr             listen address (default ":8080"; port 0 picks a free port)
//	-framework        nethttp | gin | echo | fiber (default nethttp)
//	-store            memory | redis (default memory)
//	-redis-addrs      host:port list; one = standalone, several = Redis Cluster (default 127.0.0.1:6379)
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
//	                  changes; replaces -limits, -algorithm, -key,
//	                  -trusted-proxies and -observe
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
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
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
	app, closeStore, err := build(cfg)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 2
	}
	defer closeStore()

	ln, err := net.Listen("tcp", cfg.addr)
	if err != nil {
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	}
	fmt.Fprintf(stdout, "listening on %s\n", ln.Addr())

	served := make(chan error, 1)
	go func() { served <- app.serve(ln) }()
	select {
	case err := <-served:
		fmt.Fprintf(stderr, "server: %v\n", err)
		return 1
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	if err := app.shutdown(sctx); err != nil {
		fmt.Fprintf(stderr, "server: shutdown: %v\n", err)
		return 1
	}
	<-served
	return 0
}

const usage = `usage: server [flags]
  -addr host:port          listen address (default ":8080")
  -framework name          nethttp, gin, echo or fiber (default nethttp)
  -store name              memory or redis (default memory)
  -redis-addrs list        host:port, comma-separated; several = Redis Cluster (default 127.0.0.1:6379)
  -algorithm name          sliding-window, sliding-log or fixed-window (default sliding-window)
  -limits list             LIMIT/WINDOW, comma-separated, e.g. 10/1s,600/1m (default 100/1m)
  -key ip|header:NAME      rate-limit key (default ip); a header only if clients cannot set it
  -trusted-proxies list    CIDRs of trusted reverse proxies (default none)
  -observe                 observe-only: never block
  -fail open|closed        when the store fails (default open)
  -headers mode            draft-8, draft-7, draft-6, legacy or none (default draft-8)
  -config file             limits file (JSON), reloaded when it changes; replaces
                           -limits, -algorithm, -key, -trusted-proxies and -observe`
