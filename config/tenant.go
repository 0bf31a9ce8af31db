package config

import (
	"context"
	"fmt"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// tenantKey is the key the "tenant" key strategy gives a request's tenant
// (keyfuncs.Header on tenant_header, without a fallback): the header's
// value trimmed, and a Host field's in one spelling. Per-tenant modes are
// looked up by it, so a tenant's mode applies to every spelling of the
// tenant that shares its quota: a client that sends "ACME.example:443"
// as its Host is acme.example for its mode as for its counts.
func tenantKey(header string) keyfuncs.KeyFunc {
	return keyfuncs.Header(header, nil)
}

// compileTenants checks a route's tenants and keys them by tenantKey. A
// name that gives no key (only white space) is an error, and so are two
// names that give one key: which mode applied would depend on how the
// client spells its tenant.
func compileTenants(at string, tenants map[string]string, header string) (map[string]bool, error) {
	key := tenantKey(header)
	out := make(map[string]bool, len(tenants))
	names := make(map[string]string, len(tenants)) // key → the name that gave it
	for t, m := range tenants {
		if t == "" {
			return nil, fmt.Errorf("%s.tenants: a tenant name must not be empty", at)
		}
		obs, err := parseMode(m)
		if err != nil {
			return nil, fmt.Errorf("%s.tenants[%q]: %w", at, t, err)
		}
		k, err := key(tenantName{header: header, value: t})
		if err != nil {
			return nil, fmt.Errorf("%s.tenants[%q]: names no tenant (%s reads it as empty)", at, t, header)
		}
		if other, dup := names[k]; dup {
			a, b := min(t, other), max(t, other) // the same error whatever the map's order
			return nil, fmt.Errorf("%s.tenants[%q]: the same tenant as %q (%s reads both as one); give it once", at, b, a, header)
		}
		names[k] = t
		out[k] = obs
	}
	return out, nil
}

// tenantName is a request whose only field is the tenant header, with a
// tenant name from the file as its value.
type tenantName struct{ header, value string }

func (n tenantName) Method() string     { return "" }
func (n tenantName) Path() string       { return "" }
func (n tenantName) Route() string      { return "" }
func (n tenantName) RemoteAddr() string { return "" }

func (n tenantName) Context() context.Context { return context.Background() }

func (n tenantName) Header(name string) string {
	if name == n.header {
		return n.value
	}
	return ""
}

func (n tenantName) HeaderValues(name string) []string {
	if name == n.header {
		return []string{n.value}
	}
	return nil
}
