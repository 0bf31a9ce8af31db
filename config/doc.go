// Package config loads rate limits and their rollout from a file and
// reloads them while the server runs.
//
// A file lists routes; each route has a key strategy, policies and a mode,
// observe or enforce, optionally overridden per tenant:
//
//	{
//	  "tenant_header": "X-Tenant",
//	  "routes": [
//	    {
//	      "name": "search",
//	      "match": ["/search"],
//	      "key": "header:X-API-Key",
//	      "policies": [
//	        {"name": "burst", "limit": 10, "window": "1s"},
//	        {"limit": 600, "window": "1m", "algorithm": "sliding-log"}
//	      ],
//	      "mode": "observe",
//	      "tenants": {"acme": "enforce"}
//	    },
//	    {"name": "default", "match": ["*"], "key": "ip",
//	     "policies": [{"limit": 100, "window": "1m"}], "mode": "enforce"}
//	  ]
//	}
//
// Load reads and checks it once; Set.Options gives the options every
// adapter's New takes, so one file drives net/http, Gin, Echo or Fiber
// alike (options of your own that set the key, the limiter or the mode
// combine with them as Set.Options says), and Set.Watch applies edits
// without a restart:
//
//	rules, err := config.Load("limits.json", config.WithStore(store))
//	if err != nil { ... } // names the field: routes[1].policies[0].window: must be > 0
//	go rules.Watch(ctx, time.Second)
//	mw, err := nethttp.New(nil, rules.Options()...)
//
// # Fields
//
//   - tenant_header: the request header naming the tenant, needed by the
//     "tenant" key and by per-tenant modes. It must be set by something the
//     client cannot forge (a gateway, or an auth middleware that runs before
//     the limiter): a client that names its own tenant can pick one that is
//     only observed, or, with the "tenant" key, a fresh quota per value.
//   - trusted_proxies: CIDRs (or addresses) of reverse proxies whose
//     X-Forwarded-For and Forwarded headers are believed by the "ip" key
//     (see keyfuncs.NewClientIP). Default: none.
//   - routes[].name: required and unique. It scopes the route's counts: the
//     store key is the name and the client's key, so two routes never share
//     counts, and a route keeps its counts across reloads as long as its
//     name does.
//   - routes[].match: route patterns as the framework reports them
//     (Request.Route: "/items/{id}" on net/http, "/items/:id" on Gin, Echo
//     and Fiber). "*" matches every request no other route matches. A
//     request no route matches is not limited. A request the framework
//     routes nowhere (a 404 or a 405 to be; see each adapter's package
//     doc) has no pattern, and only "*" matches it. Matching is exact, so a
//     pattern spelt for another framework ("/items/{id}" under Gin) or
//     with another trailing slash matches nothing, and its route's limits
//     never apply: only a pattern no framework can report ("search", a
//     URL, one with white space, a no-break space included, a control
//     character or an invisible format character such as a zero-width
//     space, one holding bytes that are not UTF-8) is an error at load.
//     Check new routes on the metrics package's ratewindow_requests_total,
//     whose route label is the pattern the framework reported: one the
//     file does not match is counted with outcome "skipped", or, with a
//     "*" route, under that route's policy names.
//   - routes[].key: "ip" (the client address), "header:NAME" (falls back to
//     the client address), "bearer" (the hash of a Bearer token, falls back
//     to the client address), "tenant" (the tenant_header value, falls back
//     to the client address) or "route" (one quota shared by every client,
//     per method and route pattern as keyfuncs.Route keys them: a route
//     matching two patterns has two quotas, the "*" route one per pattern
//     it takes, and, where the framework reports no pattern (net/http
//     middleware around another router), one per URL path, which a client
//     chooses). Default "ip". "header:NAME" and "bearer" key by what the
//     client sends: a client that makes up a value per request gets a fresh
//     quota each time. Use them only for a header set by something the
//     client cannot forge, or a token checked before the limiter runs; to
//     key only the API keys you issued, use a key func of your own (see
//     keyfuncs.Header).
//   - routes[].policies: one to four policies. limit: a positive integer;
//     window: a Go duration ("1s", "1m", "1h"), whole milliseconds;
//     algorithm: "sliding-window" (default), "fixed-window" or
//     "sliding-log"; name: printable ASCII, as the RateLimit fields carry
//     it, default the window ("1m"), as core names a policy without a name.
//   - routes[].mode: "enforce" (default) or "observe" (count, write
//     headers, report would-deny, never block).
//   - routes[].tenants: a map of tenant name to mode, overriding mode for
//     those tenants: the canary step "enforce for one tenant". A tenant is
//     matched as the "tenant" key counts it: the header's value trimmed of
//     white space, and, when tenant_header is Host, a host name in any
//     case, with or without a port or the root's trailing dot, is one
//     tenant, so a client cannot spell an enforced tenant anew to be only
//     observed. Two names of one tenant ("a.example" and "A.example:443"
//     under Host) are an error at load.
//
// # Reloading
//
// Reload (or Watch, which calls it on a timer) re-reads the file; one
// larger than 16 MiB is refused. Unchanged content is a no-op. New
// content is parsed and checked in full before it replaces the running
// configuration in one atomic step, so no request
// ever sees a half-applied file. Each request looks its route up once,
// as it arrives, and takes its key, limits and mode from the
// configuration running then, whole: a request in flight when a reload
// lands finishes under the configuration it started with (an observed
// route's request is not refused because the route is enforced, or
// removed, while it waits for the store), and every later request sees
// the new one whole. Counts live in the
// store, keyed by route name, client key and the policy's name, window and
// algorithm: a policy whose name, window and algorithm stay the same keeps
// its counts, even when its limit changes (which is why a policy's default
// name leaves the limit out). An invalid file changes nothing: the error
// is logged, passed to the WithOnReload callback and returned, and the
// same broken content is not reported again until the file changes. When
// the file is put back to the running content (the edit undone), the
// callback gets nil: the configuration in use is the file's again.
//
// Replace the file by rename (or a ConfigMap's symlink swap), so a reload
// never reads it half written; one written in place may be read half-way
// (or empty, just truncated, which is reported as "the file is empty"),
// rejected and reported, then applied whole at the next tick. A file that
// is valid is applied as written: a route left out of it is no longer
// limited.
package config
