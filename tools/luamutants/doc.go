// Command luamutants mutation-tests the Redis store's Lua scripts: it
// breaks them one small change at a time and checks that the tests of
// core/redisstore notice.
//
// Each mutant (see mutants.go) is one textual change to one source file of
// the scripts (core/redisstore/*.lua): an operator flipped, a bound moved
// by one, an expiry shortened or dropped, an argument index shifted, a
// denial that charges. For each, the program assembles the scripts from
// the mutated sources with the store's own generator
// (core/redisstore/internal/scriptgen), in a temporary directory, and runs
// the package's tests with the assembled scripts in place of the
// checked-in ones (go test -overlay, which the //go:embed of the scripts
// honours): the worktree is never modified. A mutant is caught when the
// tests fail (or time out), and survives when they pass.
//
// The tests need the Redis servers that scripts/test starts; run it from
// the repository root through that script:
//
//	./scripts/test --exec go run ./tools/luamutants
//
// Flags: -run selects mutants by a regular expression on their names,
// -timeout bounds the tests of one mutant, -skip names the tests left out
// (by default the slow ones that exercise topologies, not the scripts'
// arithmetic), -list prints the mutants without running them, -out writes
// the results as a Markdown table. Before any mutant, the unmutated
// scripts run through the same tests, which must pass.
//
// It is not part of scripts/test: a full run takes about half an hour on
// two cores. docs/redis-scripts.md lists the mutants and the results.
package main
