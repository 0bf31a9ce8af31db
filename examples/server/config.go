package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	"golang.org/x/net/http/httpguts"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// config is the server's parsed and checked command line.
type config struct {
	addr       string
	adminAddr  string // the operator endpoints' listener; "" turns them off
	framework  string
	store      string
	redis      redisConn // when store is "redis"
	policies   []core.Policy
	key        keyfuncs.KeyFunc
	observe    bool
	failClosed bool
	headers    headers.Mode
	// limitsFile, if set, replaces policies, key and observe (the flags
	// that set them are refused beside it): routes, limits and rollout
	// come from that file, reloaded when it changes.
	limitsFile string
	timeouts   connTimeouts // bound every connection of both listeners
}

// connTimeouts bound a connection: reading one request (headers and body),
// and waiting for the next request on a kept-alive connection. Without
// them a client that stops sending, or just keeps its connection open,
// holds a connection and a goroutine for good.
type connTimeouts struct {
	read, idle time.Duration
}

// defaultTimeouts are the servers' connTimeouts.
var defaultTimeouts = connTimeouts{read: 10 * time.Second, idle: 30 * time.Second}

var frameworks = []string{"nethttp", "gin", "echo", "fiber"}

// parseFlags reads args (without the program name). Every problem is
// reported as one error, before anything is bound or connected.
func parseFlags(args []string) (*config, error) {
	fs := flag.NewFlagSet("server", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var (
		addr       = fs.String("addr", ":8080", "listen address host:port (port 0 picks a free port)")
		adminAddr  = fs.String("admin-addr", "127.0.0.1:8081", "listen address of /metrics and "+topPath+" (empty: off)")
		framework  = fs.String("framework", "nethttp", "HTTP framework: nethttp, gin, echo or fiber")
		store      = fs.String("store", "memory", "store: memory or redis")
		redisAddrs = fs.String("redis-addrs", "127.0.0.1:6379", "Redis host:port list, comma-separated: one = standalone, several = Redis Cluster")
		redisURL   = fs.String("redis-url", "", "Redis URL instead of -redis-addrs: redis[s]://[USER@]HOST:PORT[/DB][?addr=HOST:PORT...]; rediss is TLS; the password comes from "+passwordEnv)
		redisCA    = fs.String("redis-ca", "", "PEM file of the CAs that sign Redis's TLS certificate (default: the system's)")
		algorithm  = fs.String("algorithm", "sliding-window", "sliding-window, sliding-log or fixed-window")
		limits     = fs.String("limits", "100/1m", "LIMIT/WINDOW list, comma-separated, WINDOW a Go duration, e.g. 10/1s,600/1m")
		key        = fs.String("key", "ip", "key: ip, or header:NAME (falls back to the client IP)")
		proxies    = fs.String("trusted-proxies", "", "CIDRs of trusted reverse proxies, comma-separated (default none: X-Forwarded-For ignored)")
		observe    = fs.Bool("observe", false, "observe-only: never block, only write headers and report")
		fail       = fs.String("fail", "open", "when the store fails: open (pass) or closed (503)")
		mode       = fs.String("headers", "draft-8", "rate-limit headers: draft-8, draft-7, draft-6, legacy or none")
		limitsFile = fs.String("config", "", "limits file (JSON, package config): routes, keys, limits and observe/enforce, reloaded on change")
	)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, err
		}
		return nil, errors.New(strings.ReplaceAll(err.Error(), "\n", " "))
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	c := &config{addr: *addr, adminAddr: *adminAddr, framework: *framework, store: *store, observe: *observe,
		limitsFile: *limitsFile, timeouts: defaultTimeouts}
	if c.limitsFile != "" {
		if err := checkConfigAlone(fs); err != nil {
			return nil, err
		}
	}
	if err := checkAddr(*addr); err != nil {
		return nil, fmt.Errorf("-addr: %w", err)
	}
	if c.adminAddr != "" {
		if err := checkAddr(c.adminAddr); err != nil {
			return nil, fmt.Errorf("-admin-addr: %w", err)
		}
		if sameListener(c.addr, c.adminAddr) {
			return nil, fmt.Errorf("-admin-addr: %q would share -addr %q; give the admin endpoints a port of their own, or \"\" to turn them off", c.adminAddr, c.addr)
		}
	}
	if !contains(frameworks, c.framework) {
		return nil, fmt.Errorf("-framework: %q is not one of %s", c.framework, strings.Join(frameworks, ", "))
	}
	if c.store != "memory" && c.store != "redis" {
		return nil, fmt.Errorf("-store: %q is not memory or redis", c.store)
	}
	// Checked even on the memory store: any invalid value is an error.
	conn, err := parseRedis(fs, *redisAddrs, *redisURL, *redisCA)
	if err != nil {
		return nil, err
	}
	if c.store == "redis" {
		conn.password = os.Getenv(passwordEnv)
		c.redis = conn
	}
	alg, err := core.ParseAlgorithm(*algorithm)
	if err != nil {
		return nil, fmt.Errorf("-algorithm: %w", err)
	}
	if c.policies, err = parseLimits(*limits, alg); err != nil {
		return nil, fmt.Errorf("-limits: %w", err)
	}
	if c.key, err = parseKey(*key, *proxies); err != nil {
		return nil, err
	}
	switch *fail {
	case "open":
	case "closed":
		c.failClosed = true
	default:
		return nil, fmt.Errorf("-fail: %q is not open or closed", *fail)
	}
	if c.headers, err = headers.ParseMode(*mode); err != nil {
		return nil, fmt.Errorf("-headers: %w", err)
	}
	return c, nil
}

// checkConfigAlone rejects the flags that -config replaces.
func checkConfigAlone(fs *flag.FlagSet) error {
	var clash []string
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "algorithm", "limits", "key", "trusted-proxies", "observe":
			clash = append(clash, "-"+f.Name)
		}
	})
	if len(clash) > 0 {
		return fmt.Errorf("-config: the file sets what %s would set; give one or the other", strings.Join(clash, ", "))
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// checkAddr accepts host:port with a numeric port (0 to 65535) and an empty
// host, an IP address or a name.
func checkAddr(addr string) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return err
	}
	if _, err := strconv.ParseUint(port, 10, 16); err != nil {
		return fmt.Errorf("port %q is not a number from 0 to 65535", port)
	}
	if strings.ContainsAny(host, " /") {
		return fmt.Errorf("host %q is not a host name or IP address", host)
	}
	return nil
}

// sameListener reports whether listening on a and on b would clash: both
// have the same port, not 0 (which picks a free one), and the same host, or
// one of them listens on every address. Host names are not resolved: two
// names of one address fail when the second is bound.
func sameListener(a, b string) bool {
	ha, pa, _ := net.SplitHostPort(a)
	hb, pb, _ := net.SplitHostPort(b)
	na, _ := strconv.ParseUint(pa, 10, 16)
	nb, _ := strconv.ParseUint(pb, 10, 16)
	if na == 0 || na != nb {
		return false
	}
	if everyAddress(ha) || everyAddress(hb) || strings.EqualFold(ha, hb) {
		return true
	}
	ipa, ipb := net.ParseIP(ha), net.ParseIP(hb)
	return ipa != nil && ipa.Equal(ipb)
}

// everyAddress reports whether host (of host:port) listens on every
// address: empty, 0.0.0.0 or ::.
func everyAddress(host string) bool {
	if host == "" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsUnspecified()
}

// parseRedis reads -redis-addrs, or -redis-url and -redis-ca.
func parseRedis(fs *flag.FlagSet, addrs, rawURL, ca string) (redisConn, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if given["redis-url"] && given["redis-addrs"] {
		return redisConn{}, errors.New("-redis-url: give it or -redis-addrs, not both")
	}
	if !given["redis-url"] {
		if given["redis-ca"] {
			return redisConn{}, errors.New("-redis-ca: TLS needs a rediss:// -redis-url")
		}
		list, err := parseRedisAddrs(addrs)
		if err != nil {
			return redisConn{}, fmt.Errorf("-redis-addrs: %w", err)
		}
		return redisConn{addrs: list}, nil
	}
	conn, err := parseRedisURL(rawURL)
	if err != nil {
		return redisConn{}, fmt.Errorf("-redis-url: %w", err)
	}
	if given["redis-ca"] {
		if conn.tls == nil {
			return redisConn{}, errors.New("-redis-ca: TLS needs a rediss:// -redis-url")
		}
		if conn.tls.RootCAs, err = loadCA(ca); err != nil {
			return redisConn{}, fmt.Errorf("-redis-ca: %w", err)
		}
	}
	return conn, nil
}

// parseRedisAddrs reads a comma-separated list of host:port.
func parseRedisAddrs(s string) ([]string, error) {
	var addrs []string
	for _, a := range strings.Split(s, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		// Neither is quoted: what precedes the @ may be a password.
		if strings.Contains(a, "://") {
			return nil, errors.New("a URL is not host:port: give it as -redis-url, and the password in " + passwordEnv)
		}
		if strings.Contains(a, "@") {
			return nil, errors.New("an address with credentials (USER@HOST:PORT) is not host:port: give the user in a -redis-url, and the password in " + passwordEnv)
		}
		host, _, err := net.SplitHostPort(a)
		if err != nil || host == "" || checkAddr(a) != nil {
			return nil, fmt.Errorf("%q is not host:port", a)
		}
		addrs = append(addrs, a)
	}
	if len(addrs) == 0 {
		return nil, errors.New("no address")
	}
	return addrs, nil
}

// parseLimits reads "10/1s,600/1m" into policies counted by alg.
func parseLimits(s string, alg core.Algorithm) ([]core.Policy, error) {
	var ps []core.Policy
	seen := map[time.Duration]string{} // window → the item that gave it
	for _, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		limit, window, ok := strings.Cut(item, "/")
		if !ok {
			return nil, fmt.Errorf("%q is not LIMIT/WINDOW", item)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(limit), 10, 64)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%q: limit %q is not a positive integer", item, limit)
		}
		w, err := time.ParseDuration(strings.TrimSpace(window))
		if err != nil {
			return nil, fmt.Errorf("%q: window %q is not a Go duration such as 1s or 1m", item, window)
		}
		// The limiter would refuse two policies named alike and tell the
		// user to name one, which no flag can do: say what is wrong here.
		if first, dup := seen[w]; dup {
			return nil, fmt.Errorf("%q and %q have the same window; give each window once (the lower limit would always bind)", first, item)
		}
		seen[w] = item
		ps = append(ps, core.Per(n, w).Using(alg))
	}
	// A limiter checks them and names them after their windows ("1s"), as the one the
	// server builds will.
	l, err := core.NewLimiter(memory.New(), ps)
	if err != nil {
		return nil, err
	}
	return l.Policies(), nil
}

// parseKey builds the key func of -key and -trusted-proxies.
func parseKey(key, proxies string) (keyfuncs.KeyFunc, error) {
	var cidrs []string
	for _, p := range strings.Split(proxies, ",") {
		if p = strings.TrimSpace(p); p != "" {
			cidrs = append(cidrs, p)
		}
	}
	ip, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: cidrs})
	if err != nil {
		return nil, fmt.Errorf("-trusted-proxies: %w", err)
	}
	if key == "ip" {
		return ip, nil
	}
	name, ok := strings.CutPrefix(key, "header:")
	if !ok || !httpguts.ValidHeaderFieldName(name) {
		return nil, fmt.Errorf("-key: %q is not ip or header:NAME", key)
	}
	return keyfuncs.Header(name, ip), nil
}
