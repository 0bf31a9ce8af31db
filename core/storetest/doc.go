// Package storetest is the conformance suite every core.Store must pass.
//
// Run it from a test in the store's package:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) core.Store { return memory.New() })
//	}
//
// newStore must return a fresh, empty store each time it is called (a Redis
// store can use a new key prefix).
//
// The suite checks hand-computed sequences for each algorithm, then replays
// random sequences of (time, key, policies, cost) against an oracle written
// straight from the definitions (every charge kept in a list; RetryAfter and
// ResetAfter found by trying every millisecond), comparing every field of
// every policy state, also with the largest limit and costs, and with a
// policy's limit changing between calls (its counts kept). It also checks
// all-or-nothing charging, Peek, Reset, key isolation, time running
// backward, honest RetryAfter with one policy and with several,
// concurrent callers, and that a call outside the contract (no policy,
// more than core.MaxPolicies, a cost below one) is refused with an error,
// never a panic.
package storetest
