package fibermw

import (
	"slices"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// matchedRoute returns the pattern of the route that will handle c.
//
// Mounted on a route (app.Get("/users/:id", limit, h)), the middleware runs
// inside that route, and c.Route() is the answer. Mounted with app.Use or
// app.Group("/api", limit), it runs inside the Use route, whose path is
// the mount prefix ("/", "/api", or "/api/:version", told from a route of
// its own by covers): then the routes registered after it, for the
// request's method, are matched against the path in the order Fiber
// itself tries them, and the first full match is the answer. That costs
// a scan of those routes per request (made once: its answer is kept in the
// request's locals for the key func, the hook and a second call); mount
// the middleware on each route to avoid it. When nothing matches (a 404
// or 405 to be), the answer is "": the mount prefix is no route of the
// request, and a real route registered at it ("/" under app.Use) must not
// share its key with every unknown path.
//
// A pattern with a wildcard or an optional part ("/files/*",
// "/api/:version?") matches paths of any length, whether it is a route's
// or a mount's, and the two cannot be told apart: the routes after it are
// scanned first (after a route of that pattern, they are never reached,
// so only a mount finds one), and the pattern itself is the answer when
// none matches and it matches the whole path.
func matchedRoute(c *fiber.Ctx) string {
	own := c.Route()
	if own == nil {
		return ""
	}
	app := c.App()
	cfg := app.Config()
	if samePath(&cfg, own.Path, c.Path()) || covers(own, c.Path()) {
		return own.Path
	}
	key := scanned{own}
	if p, ok := c.Locals(key).(string); ok {
		return p
	}
	p := scan(c, app, &cfg, own)
	c.Locals(key, p)
	return p
}

// scanned is the key of the locals under which matchedRoute keeps the
// answer of its scan for the mount own: a type of this package, so no
// other key equals it.
type scanned struct{ own *fiber.Route }

// scan matches the path against the routes registered after own.
func scan(c *fiber.Ctx, app *fiber.App, cfg *fiber.Config, own *fiber.Route) string {
	stack := methodStack(app, cfg, c.Method())
	i := 0
	for i < len(stack) && stack[i] != own {
		i++
	}
	path := c.Path()
	if !cfg.StrictRouting && len(path) > 1 {
		path = strings.TrimRight(path, "/") // as Fiber's own detection path
	}
	var files *fiber.Route
	for _, r := range stack[min(i+1, len(stack)):] {
		if !mayMatch(cfg, r.Path, path) {
			continue
		}
		if len(r.Params) == 0 && static(app, cfg, r) {
			// Matched by prefix, as Fiber does (mayMatch is that test for
			// a pattern without parameters); it serves the request only
			// if the file exists, so a later route that matches wins.
			if files == nil {
				files = r
			}
			continue
		}
		if fiber.RoutePatternMatch(path, r.Path, *cfg) {
			return r.Path
		}
	}
	if files != nil {
		return staticPattern(files.Path)
	}
	if wild(own.Path) && fiber.RoutePatternMatch(path, own.Path, *cfg) {
		return own.Path
	}
	return ""
}

// static reports whether r is a route app.Static registered: Fiber lists
// that one route under both GET and HEAD, where app.Get registers a route
// for each method, and app.Use a copy for each.
func static(app *fiber.App, cfg *fiber.Config, r *fiber.Route) bool {
	return slices.Contains(methodStack(app, cfg, fiber.MethodGet), r) &&
		slices.Contains(methodStack(app, cfg, fiber.MethodHead), r)
}

// staticPattern names the files app.Static serves under prefix as Gin and
// Echo name a static route, "/static/*" ("/*" for "/"): not the prefix
// alone, which a route of its own may have ("/" under app.Static("/",
// dir)), and whose key the requests for missing files must not spend.
func staticPattern(prefix string) string {
	if prefix == "/" {
		return "/*"
	}
	return prefix + "/*"
}

// covers reports whether route, which has parameters but neither a
// wildcard nor an optional part, matches the whole of path rather than a
// prefix of it, as a route's own pattern does and a mount's
// (app.Group("/api/:version", limit)) does not: such a parameter matches
// within one segment, so the pattern matches paths of as many segments as
// it has. It costs no parsing, so a route with parameters that mounts the
// middleware itself pays nothing for it.
func covers(route *fiber.Route, path string) bool {
	return len(route.Params) > 0 && !wild(route.Path) && segments(route.Path) == segments(path)
}

// wild reports whether pattern has a part that matches any number of
// segments: a wildcard ('*', '+') or an optional parameter ('?').
func wild(pattern string) bool { return strings.ContainsAny(pattern, "*+?") }

// segments counts the '/'-separated segments of p, a trailing '/' aside.
func segments(p string) int {
	if len(p) > 1 {
		p = strings.TrimRight(p, "/")
	}
	return strings.Count(p, "/")
}

// methodStack returns the routes Fiber tries for method, in order.
func methodStack(app *fiber.App, cfg *fiber.Config, method string) []*fiber.Route {
	stack := app.Stack()
	for i, m := range cfg.RequestMethods {
		if m == method && i < len(stack) {
			return stack[i]
		}
	}
	return nil
}

// mayMatch is a quick test that rules out most routes without parsing
// their pattern: the literal text before the first parameter must begin
// the path.
func mayMatch(cfg *fiber.Config, pattern, path string) bool {
	lit := pattern
	if i := strings.IndexAny(pattern, ":*+\\"); i >= 0 {
		lit = pattern[:i]
	}
	lit = strings.TrimRight(lit, "/")
	if len(lit) > len(path) {
		return false
	}
	if cfg.CaseSensitive {
		return path[:len(lit)] == lit
	}
	return strings.EqualFold(path[:len(lit)], lit)
}

// samePath reports whether the parameterless pattern matches path exactly,
// as Fiber compares them (case and trailing slash per the app's config).
func samePath(cfg *fiber.Config, pattern, path string) bool {
	if pattern == path {
		return true
	}
	if !cfg.StrictRouting {
		if len(pattern) > 1 {
			pattern = strings.TrimRight(pattern, "/")
		}
		if len(path) > 1 {
			path = strings.TrimRight(path, "/")
		}
	}
	if cfg.CaseSensitive {
		return pattern == path
	}
	return strings.EqualFold(pattern, path)
}
