package headerfmt

import (
	"sync/atomic"

	"github.com/ratewindow/ratewindow/core"
)

// policySet is what the RateLimit-Policy fields need of one set of policies, formatted
// once: the whole RateLimit-Policy value and each policy's name as an
// sf-string. Nearly every response of a limiter repeats the same set, and
// formatting it (escaping every name) was about half of the middleware's
// time per request.
type policySet struct {
	policies []core.Policy // a copy, to check a hit against
	field    string        // the RateLimit-Policy value
	// draftField is the RateLimit-Policy value of drafts 06 and 07.
	draftField string
	names      []string // policy i's name, sf-string encoded
}

// policySets caches recent policy sets, one per slot. A hit is checked
// field by field against the decision's policies, so a stale entry is never
// written, whoever built the decision.
var policySets [64]atomic.Pointer[policySet]

// policySetFor returns the formatted set of v's policies (a limiter's:
// v.cached).
func policySetFor(v *decisionView) *policySet {
	ps := v.policies
	slot := &policySets[(ps[0].Fingerprint()^uint64(len(ps)))&uint64(len(policySets)-1)]
	if e := slot.Load(); e != nil && samePolicies(e.policies, ps) {
		return e
	}
	e := newPolicySet(v)
	slot.Store(e)
	return e
}

// samePolicies reports whether a and b write the same fields.
func samePolicies(a, b []core.Policy) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || a[i].Limit != b[i].Limit || a[i].Window != b[i].Window {
			return false
		}
	}
	return true
}

func newPolicySet(v *decisionView) *policySet {
	e := &policySet{
		policies:   append([]core.Policy(nil), v.policies...),
		field:      string(appendPolicyField(nil, v, nil)),
		draftField: string(appendDraftPolicyField(nil, v)),
		names:      make([]string, v.len()),
	}
	for i := range e.names {
		e.names[i] = string(appendString(nil, policyName(v, i)))
	}
	return e
}
