// Package fibermw is the ratewindow middleware for Fiber (v2), as a
// fiber.Handler. The part of Fiber's Next func (skip the middleware for
// some requests) is played by ratewindow.WithSkip.
//
//	limit, err := fibermw.New(limiter)
//	...
//	app.Get("/", limit, handler)     // one route
//	api := app.Group("/api", limit)  // a group
//
// The options are those of package ratewindow, shared by every adapter.
//
// Give the middleware before what it guards. Fiber runs a route's
// handlers, and the app's routes, in the order registered, each reached
// only through the c.Next() of the one before: app.Get(path, handler,
// limit) (Echo's order) never runs the middleware, nor does an
// app.Use(limit) registered after the routes it should guard, so those
// requests are not limited. One middleware mounted twice on a request's
// way (on a group and on its route, or by app.Use and on a route) charges
// the request once, marking it with c.Locals under a key of its own (not a
// string: c.Context().VisitUserValuesAll shows it, VisitUserValues does
// not); two middlewares (two calls of New) each charge it.
//
// # Client address
//
// The default key is the TCP peer (keyfuncs.RemoteIP), not c.IP(): Fiber's
// ProxyHeader and TrustedProxies settings are not read. Behind a reverse
// proxy every client would share the proxy's quota; key by
// keyfuncs.NewClientIP, given your proxies' ranges, instead. Under
// app.Test every request's peer is 0.0.0.0, whatever the http.Request's
// RemoteAddr says, so tests of per-client limits through app.Test need a
// key func that reads something else (a header).
//
// # Routes
//
// The route that keyfuncs.Route, hooks and the metrics' route label see is
// the pattern of the route that will handle the request (e.g.
// "/api/users/:id"), however the middleware is mounted. Fiber runs
// middleware before it has picked that route: under app.Use(limit) or
// app.Group("/api", limit), c.Route() names the mount ("/", "/api", or
// "/api/:version" for a group with a parameter), so the adapter matches
// the path against the app's routes for the request's method, in Fiber's
// order and with its case and trailing-slash rules, and takes the first
// that matches. That costs a few microseconds per request
// in an app of a few dozen routes, and only when the route is read (a
// route key, a hook). Mounting the middleware on each route,
// app.Get("/users/:id", limit, h), costs nothing and names the route
// directly. A request that matches no route (a 404 or 405 to be) has the
// route "", not the mount prefix, and keyfuncs.Route keys it as
// "route:GET (unmatched)", one key per method for all such requests, so a
// flood of unknown paths never spends the quota of a route registered at
// the prefix. The adapter cannot tell a mount from a route of the same
// pattern, so two kinds of request are keyed by the mount's pattern, one
// key for all of them: a request for the mount's own path ("/api" under
// app.Group("/api", limit), "/api/v1" under "/api/:version"), and, under
// a mount whose pattern has a wildcard or an optional parameter
// ("/files/*"), a request no later route matches.
//
// Files served by app.Static("/static", dir) have the route "/static/*"
// ("/*" for a prefix "/"), as Gin and Echo name a static route; a route
// registered after the Static that matches the path wins over it, since
// the Static serves only files that exist. A Static registered right
// after a Use of the same prefix joins that Use route in Fiber, and is
// then no route the adapter can see: register it elsewhere.
//
// # Prefork
//
// With fiber.Config{Prefork: true}, Fiber runs the program again in one
// child process per CPU, and each child builds its own limiter. A store
// held in memory (core/memory, the default of the examples) then counts in
// each child apart, and the kernel spreads one client's connections over
// the children: the client gets the limit once per child, up to N×Limit
// with N children. So in a Prefork child (fiber.IsChild) New refuses a
// limiter whose store keeps its counts in this process
// (core.Limiter.ProcessLocal), with an error wrapping
// core.ErrInvalidConfig, and Limit answers every request 503 and logs it to
// slog.Default(); the child then fails to start, as it should. A limiter
// that a WithLimiterFunc function (or a config.Set, on its default memory
// store) chooses for a request cannot be checked at New: in a child, a
// request for which it is such a limiter is not counted, and cannot be
// classified (Event.Err wraps ratewindow.ErrNoLimiter and says why; with
// no hook, it is logged to slog.Default() as a limiter failure is). An
// enforced request is refused as unclassified (Outcome
// UnclassifiedRejected, answered 400 or by WithUnclassifiedHandler), even
// with WithPassUnclassified. An observe-only one (WithObserveOnly,
// WithObserveOnlyFunc, a config.Set route or tenant in observe mode)
// passes, as every unclassified observe-only request does (Outcome
// UnclassifiedPassed, Event.ObserveOnly set): observe mode never refuses
// a request, so a rollout in observe mode shows the mistake in the
// events only, not to clients. Under Prefork, use a store the children
// share, such as core/redisstore. core/resilient over Redis is accepted:
// its local fallback is a per-process store by design, so count every
// child of every instance in WithFallback's replicas.
//
// Whatever else main builds is per child as well. Secrets left random are
// made once per process: set headers.Writer's PartitionSecret (with
// PartitionKey) and the logging hook's WithKeySecret, or each child writes
// its own pk, and logs its own key_hash, for one key. Metrics and topkeys
// count in each child, and a scrape of a /metrics route served by the app
// reaches one child.
//
// # Request bodies
//
// Fiber (fasthttp) reads a request's body, up to Config.BodyLimit (4 MiB
// by default), before any handler runs, and answers "Expect: 100-continue"
// at once: a client the middleware denies has sent its upload in full
// when it gets its 429. (net/http, and Gin and Echo over it, send 100
// Continue only when a handler reads the body, so a denied upload is never
// sent.) Keep BodyLimit to what the app's routes take.
//
// Header names are matched in any case, as HTTP says, also in an app with
// DisableHeaderNormalizing (where Fiber's own lookups are exact).
//
// The Host field, as key funcs read it (keyfuncs.Header("Host", ...), a
// config tenant_header of Host), is the host the request is for, as
// net/http reads it: a request-target in absolute form names it over the
// field. A request-target that begins "//", which fasthttp may read as
// naming a host where net/http and a proxy read the Host field, gives no
// host at all (""), so such a key falls back as for a missing field:
// neither reading lets a client choose its key. So does a CONNECT whose
// target ("a.example:443", which net/http takes the request to be for)
// is not its Host field (which fasthttp and c.Hostname read), and a
// request whose X-Forwarded-Host names another host than its Host field
// where c.Hostname() reads that header (from a trusted peer: every peer
// unless Config.EnableTrustedProxyCheck is set). Behind a proxy that
// rewrites the Host field and sets X-Forwarded-Host, overwriting any a
// client sent, key by that field (keyfuncs.Header("X-Forwarded-Host",
// ...)) instead.
//
// Fiber reuses a request's memory once its handler returns. Every string
// this adapter hands to key funcs, hooks and stores (header values, the
// path) is therefore a copy, so a key kept by the memory store or an Event
// kept by a hook stays intact.
package fibermw
