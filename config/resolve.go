package config

import (
	"github.com/ratewindow/ratewindow"
	mwoptions "github.com/ratewindow/ratewindow/internal/options"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// apply is the option Options returns: the middleware resolves each
// request through s, and an earlier option's key, limiter or mode choice
// gives way to it.
func (s *Set) apply(c *mwoptions.Settings[ratewindow.Handler, ratewindow.Event]) {
	c.Resolve = s.resolve
	c.KeyFunc, c.LimiterFunc, c.ObserveOnlyFunc = nil, nil, nil
}

// resolve looks r's route up in the running configuration, once, and
// takes everything from that one snapshot (see mwoptions.Resolve).
func (s *Set) resolve(r keyfuncs.Request, need mwoptions.Need) (mwoptions.Resolved, error) {
	c := s.cur.Load()
	rt := c.lookup(r)
	if rt == nil {
		return mwoptions.Resolved{}, keyfuncs.ErrSkip
	}
	return rt.resolve(c, r, need)
}

// resolve gives r's limiter, and its key and mode as need asks, on route
// rt of configuration c. A request's tenant key is built once at most,
// for its mode and, on a route keyed by tenant, its key alike, and not at
// all when neither is asked for.
func (rt *route) resolve(c *compiled, r keyfuncs.Request, need mwoptions.Need) (mwoptions.Resolved, error) {
	res := mwoptions.Resolved{Limiter: rt.limiter}
	byTenantMode := need.Mode && rt.tenants != nil
	tenant, tenantErr := "", keyfuncs.ErrNoKey
	if byTenantMode || (need.Key && rt.byTenant) {
		tenant, tenantErr = c.tenantKey(r)
	}
	if need.Mode {
		res.ObserveOnly = rt.observe
		if byTenantMode && tenantErr == nil {
			if obs, ok := rt.tenants[tenant]; ok {
				res.ObserveOnly = obs
			}
		}
	}
	if !need.Key {
		return res, nil
	}
	k := tenant
	if tenantErr != nil || !rt.byTenant {
		// Keyed by the strategy, which for "tenant" without a tenant
		// falls back to the client address.
		var err error
		if k, err = rt.key(r); err != nil {
			return res, err
		}
	}
	res.Key = rt.prefix + k
	return res, nil
}
