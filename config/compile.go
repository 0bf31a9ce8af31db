package config

import (
	"fmt"
	"net/netip"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
	"github.com/ratewindow/ratewindow/internal/httptoken"
	"github.com/ratewindow/ratewindow/internal/policyname"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// Mode names.
const (
	modeEnforce = "enforce"
	modeObserve = "observe"
)

// matchAny is the match pattern of the route that takes every request no
// other route matches.
const matchAny = "*"

// compiled is one checked configuration, immutable once built.
type compiled struct {
	byPattern map[string]*route
	fallback  *route           // the "*" route, or nil
	tenantKey keyfuncs.KeyFunc // nil without tenant_header
}

// route is one compiled route.
type route struct {
	name string
	// prefix scopes the route's keys (see scopePrefix); key is the key
	// strategy, whose keys come after it.
	prefix string
	key    keyfuncs.KeyFunc
	// byTenant marks the "tenant" key strategy: a request that names its
	// tenant is keyed by its tenantKey.
	byTenant bool
	limiter  *core.Limiter
	observe  bool
	tenants  map[string]bool // tenantKey of a tenant → observe
}

// lookup returns the route of a request, or nil.
func (c *compiled) lookup(r keyfuncs.Request) *route {
	if rt, ok := c.byPattern[r.Route()]; ok {
		return rt
	}
	return c.fallback
}

// compile checks every field of f and builds limiters on store. Every error
// names the field it is about.
func compile(f *file, store core.Store) (*compiled, error) {
	c := &compiled{byPattern: map[string]*route{}}
	if f.TenantHeader != "" {
		if !httptoken.Valid(f.TenantHeader) {
			return nil, fmt.Errorf("tenant_header: %q is not a header name", f.TenantHeader)
		}
		c.tenantKey = tenantKey(f.TenantHeader)
	}
	for i, p := range f.TrustedProxies {
		if _, err := netip.ParsePrefix(p); err != nil {
			if _, err := netip.ParseAddr(p); err != nil {
				return nil, fmt.Errorf("trusted_proxies[%d]: %q is not a CIDR or an IP address", i, p)
			}
		}
	}
	ip, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: f.TrustedProxies})
	if err != nil {
		return nil, fmt.Errorf("trusted_proxies: %w", err)
	}
	if len(f.Routes) == 0 {
		return nil, fmt.Errorf("routes: must list at least one route")
	}
	names := map[string]int{}
	patterns := map[string]int{}
	for i, re := range f.Routes {
		at := fmt.Sprintf("routes[%d]", i)
		rt, err := compileRoute(at, &re, f.TenantHeader, ip, store)
		if err != nil {
			return nil, err
		}
		if j, dup := names[re.Name]; dup {
			return nil, fmt.Errorf("%s.name: %q is also the name of routes[%d]", at, re.Name, j)
		}
		names[re.Name] = i
		if len(re.Match) == 0 {
			return nil, fmt.Errorf("%s.match: must list at least one route pattern (or %q)", at, matchAny)
		}
		for j, m := range re.Match {
			if m == "" {
				return nil, fmt.Errorf("%s.match[%d]: must not be empty", at, j)
			}
			if strings.ContainsRune(m, utf8.RuneError) {
				// encoding/json's stand-in for bytes that are not UTF-8:
				// "/café" in a file saved as Latin-1 is "/caf\uFFFD", a
				// route no framework reports.
				return nil, fmt.Errorf("%s.match[%d]: %q holds bytes that are not UTF-8 (shown as \uFFFD); save the file as UTF-8", at, j, m)
			}
			if hasInvisible(m) {
				// "GET /search", as registered on a ServeMux, or a
				// no-break or zero-width space pasted from a page: no
				// framework reports a route so, and the route would never
				// be limited.
				return nil, fmt.Errorf("%s.match[%d]: %q contains white space, a control character or an invisible format character; give the pattern as the framework reports it, without the method (\"/items/{id}\")", at, j, m)
			}
			if m != matchAny && (!strings.Contains(m, "/") || strings.Contains(m, "://")) {
				// "search", or a URL: every framework reports a route as a
				// path ("/search"), on net/http perhaps after a host
				// ("example.com/search"), never with a scheme.
				return nil, fmt.Errorf("%s.match[%d]: %q is not a route pattern; give the path as the framework reports it (\"/search\", \"/items/{id}\") or %q", at, j, m, matchAny)
			}
			if k, dup := patterns[m]; dup {
				return nil, fmt.Errorf("%s.match[%d]: %q is already matched by routes[%d]", at, j, m, k)
			}
			patterns[m] = i
			if m == matchAny {
				c.fallback = rt
			} else {
				c.byPattern[m] = rt
			}
		}
	}
	return c, nil
}

func compileRoute(at string, re *routeEntry, tenantHeader string, ip keyfuncs.KeyFunc, store core.Store) (*route, error) {
	if re.Name == "" {
		return nil, fmt.Errorf("%s.name: must not be empty", at)
	}
	if hasInvisible(re.Name) {
		return nil, fmt.Errorf("%s.name: %q must not contain white space, a control character or an invisible format character", at, re.Name)
	}
	rt := &route{name: re.Name, prefix: scopePrefix(re.Name), byTenant: re.Key == "tenant"}
	var err error
	if rt.key, err = keyFunc(re.Key, tenantHeader, ip); err != nil {
		return nil, fmt.Errorf("%s.key: %w", at, err)
	}
	if rt.observe, err = parseMode(re.Mode); err != nil {
		return nil, fmt.Errorf("%s.mode: %w", at, err)
	}
	if len(re.Tenants) > 0 {
		if tenantHeader == "" {
			return nil, fmt.Errorf("%s.tenants: needs tenant_header, the header that names the tenant", at)
		}
		if rt.tenants, err = compileTenants(at, re.Tenants, tenantHeader); err != nil {
			return nil, err
		}
	}
	policies, err := compilePolicies(at, re.Policies)
	if err != nil {
		return nil, err
	}
	// NewLimiter checks what compilePolicies leaves (Limit × Window too
	// large, say); its errors start "policies[i]: ". The store's own check
	// (a memory store's WithMaxKeys too small for a sliding log) is about
	// the policies together.
	if rt.limiter, err = core.NewLimiter(store, policies); err != nil {
		if strings.HasPrefix(err.Error(), "policies[") {
			return nil, fmt.Errorf("%s.%w", at, err)
		}
		return nil, fmt.Errorf("%s.policies: %w", at, err)
	}
	return rt, nil
}

func compilePolicies(at string, entries []policyEntry) ([]core.Policy, error) {
	switch {
	case len(entries) == 0:
		return nil, fmt.Errorf("%s.policies: must list at least one policy", at)
	case len(entries) > core.MaxPolicies:
		return nil, fmt.Errorf("%s.policies: at most %d policies, got %d", at, core.MaxPolicies, len(entries))
	}
	out := make([]core.Policy, len(entries))
	names := map[string]int{}
	for j, pe := range entries {
		pat := fmt.Sprintf("%s.policies[%d]", at, j)
		switch {
		case pe.Limit == nil:
			return nil, fmt.Errorf("%s.limit: required", pat)
		case *pe.Limit <= 0:
			return nil, fmt.Errorf("%s.limit: must be > 0, got %d", pat, *pe.Limit)
		case *pe.Limit > core.MaxLimit:
			return nil, fmt.Errorf("%s.limit: must be at most %d, got %d", pat, int64(core.MaxLimit), *pe.Limit)
		case pe.Window == "":
			return nil, fmt.Errorf("%s.window: required (a duration such as \"1s\" or \"1m\")", pat)
		}
		w, err := time.ParseDuration(pe.Window)
		switch {
		case err != nil:
			return nil, fmt.Errorf("%s.window: %q is not a duration such as \"1s\" or \"1m\"", pat, pe.Window)
		case w <= 0:
			return nil, fmt.Errorf("%s.window: must be > 0, got %q", pat, pe.Window)
		case w%time.Millisecond != 0:
			return nil, fmt.Errorf("%s.window: must be a whole number of milliseconds, got %q", pat, pe.Window)
		}
		if err := headerfmt.ValidatePolicyName(pe.Name); err != nil {
			return nil, fmt.Errorf("%s.name: %w", pat, err)
		}
		p := core.Per(*pe.Limit, w).Named(pe.Name)
		if pe.Name == "" {
			// The name a Limiter would give it, known here so that the
			// duplicate check below names it.
			p = p.Named(policyname.Default(w))
		}
		if pe.Algorithm != "" {
			a, err := core.ParseAlgorithm(pe.Algorithm)
			if err != nil {
				return nil, fmt.Errorf("%s.algorithm: %q is not sliding-window, fixed-window or sliding-log", pat, pe.Algorithm)
			}
			p = p.Using(a)
		}
		if k, dup := names[p.Name]; dup {
			return nil, fmt.Errorf("%s.name: %q is also the name of policies[%d] (name one of them)", pat, p.Name, k)
		}
		names[p.Name] = j
		out[j] = p
	}
	return out, nil
}

func parseMode(s string) (observe bool, err error) {
	switch s {
	case "", modeEnforce:
		return false, nil
	case modeObserve:
		return true, nil
	}
	return false, fmt.Errorf("%q is not %q or %q", s, modeObserve, modeEnforce)
}

// keyFunc builds a key strategy.
func keyFunc(s, tenantHeader string, ip keyfuncs.KeyFunc) (keyfuncs.KeyFunc, error) {
	switch s {
	case "", "ip":
		return ip, nil
	case "bearer":
		return keyfuncs.BearerToken(ip), nil
	case "route":
		return keyfuncs.Route, nil
	case "tenant":
		if tenantHeader == "" {
			return nil, fmt.Errorf("%q needs tenant_header", s)
		}
		return keyfuncs.Header(tenantHeader, ip), nil
	}
	if name, ok := strings.CutPrefix(s, "header:"); ok && httptoken.Valid(name) {
		return keyfuncs.Header(name, ip), nil
	}
	return nil, fmt.Errorf("%q is not ip, header:NAME, bearer, tenant or route", s)
}

// scopePrefix is the prefix of the keys of route name, so that routes
// never share counts. A ':' in the name is doubled: the prefix then ends
// at the first lone ':', since no key strategy's key starts with one
// (every strategy's key starts with its namespace), and route "a" keyed
// by a header whose value is "ip:192.0.2.1" cannot reach the counts of
// route "a:hdr:x" keyed by address. Names without ':' keep the plain
// "name:" prefix.
func scopePrefix(name string) string {
	return strings.ReplaceAll(name, ":", "::") + ":"
}

// hasInvisible reports whether s holds white space (a no-break space too,
// easily pasted from a web page or a chat), a control character or an
// invisible format character (a zero-width space, a byte order mark, a
// soft hyphen, a bidirectional mark, as pasted text brings them along),
// none of which a route pattern or a route name ever needs. The joiners
// U+200C and U+200D are allowed: Persian and Indic words, and emoji, are
// spelt with them.
func hasInvisible(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsControl(r) ||
			unicode.Is(unicode.Cf, r) && r != '\u200c' && r != '\u200d'
	}) >= 0
}
