// Package inplace holds the seal of the in-place path between core.Limiter
// and core/memory's Store.
//
// A Limiter whose store has the method
//
//	TakeInPlace(r *core.Result, key string, p *core.Policy, cost, nowMillis int64, charge bool, _ inplace.Seal)
//
// answers a one-policy request by letting the store write the policy's
// state straight into the Decision it is building, with no Result copied
// in between. It hides r from escape analysis so that the Decision stays
// on the caller's stack; that is sound only because the store never keeps
// r after the call. Seal is a parameter type no code outside this module
// can name, so no other store can take that path by having a method of the
// same name.
package inplace

// Seal is the last parameter of TakeInPlace. It is empty and costs nothing.
type Seal struct{}
