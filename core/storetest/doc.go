// Package storetest is the conformance suite every core.Store must pass.
//
// Run it from a test in the store's package:
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) core.Store { return memory.New() })
//	}
//
// newStore must return a fresh, empty store each time it is called (a Redis
// store can use a new key prefix). The suite passes the store instants
// near a fixed one and checks the decisions made on them, so a store that
// can read a clock of its own must be run in a mode that decides on the
// instants passed (the Redis store with redisstore.WithClientTime). A test
// that moves them (to put them ahead of a server's clock, say) must move
// them by a whole number of weeks, which keeps them aligned to the windows
// whose exact results it checks.
//
// The suite checks hand-computed sequences for each algorithm, then replays
// random sequences of (time, key, policies, cost) against an oracle written
// straight from the definitions (every charge kept in a list; RetryAfter and
// ResetAfter found by trying every millisecond), comparing every field of
// every policy state, also with the largest limit and costs, and with a
// policy's limit changing between calls (its counts kept). It also checks
// all-or-nothing charging; Peek (it charges nothing, and one from a clock
// ahead, or racing with Takes, changes nothing); Reset (of the given
// policies only); key isolation (prefixes, separators, bytes that are not
// UTF-8, long keys that differ in their last byte); policy identity (the
// counts of a key belong to a policy's Name, Window and Algorithm, whatever
// the other policies of the call); 3000 keys, and a sliding log of 1500
// requests, kept whole; windows of a week and of ten years
// kept through days without a call; instants between milliseconds; time
// running backward (a sliding log stepped back by less than a window is
// kept where it is, one stepped back further is moved to now; a key's
// counts kept across a step back after other keys were served at an
// instant where they still counted); honest
// RetryAfter with one policy and with several; concurrent callers, at one
// instant and at each new window; and that a call outside the contract
// (no policy, more than core.MaxPolicies, a cost below one) is refused
// with an error, never a panic, while one just inside it
// (core.MaxPolicies policies, a cost of a whole limit) is decided.
//
// A store that bounds its memory by forgetting keys must be given room
// for a few thousand keys to pass.
package storetest
