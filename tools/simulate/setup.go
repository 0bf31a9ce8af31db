package main

import (
	"fmt"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// setup is everything that decides the output: the policy and the size of
// the random workloads. The command (and the test that checks docs/ is up
// to date) uses defaultSetup; other tests use smaller ones.
type setup struct {
	Limit   int64  // L: requests admitted per window
	Window  int64  // W in milliseconds
	Seed    uint64 // seed of the random workloads
	Clients int    // clients in each random workload
	Windows int64  // length of each random workload, in windows
}

// defaultSetup is the configuration of `go run ./tools/simulate`.
func defaultSetup() setup {
	return setup{Limit: 100, Window: 10_000, Seed: 8, Clients: 25, Windows: 12}
}

// algorithms are the algorithms compared, the exact reference last.
var algorithms = [...]core.Algorithm{core.FixedWindow, core.SlidingWindow, core.SlidingLog}

// reference is the index in algorithms of the exact one, the sliding log.
const reference = len(algorithms) - 1

// validate reports a setup the workloads cannot be built from.
func (s setup) validate() error {
	switch {
	case s.Limit < 4 || s.Limit > 100_000:
		return fmt.Errorf("simulate: Limit must be between 4 and 100000, got %d", s.Limit)
	case s.Window < 1000 || s.Window%1000 != 0:
		return fmt.Errorf("simulate: Window must be a whole number of seconds, got %d ms", s.Window)
	case s.Clients < 1:
		return fmt.Errorf("simulate: Clients must be positive, got %d", s.Clients)
	case s.Windows < 1:
		return fmt.Errorf("simulate: Windows must be positive, got %d", s.Windows)
	}
	return nil
}

// policy is the policy every limiter of the simulation enforces.
func (s setup) policy(alg core.Algorithm) core.Policy {
	return core.Per(s.Limit, time.Duration(s.Window)*time.Millisecond).Using(alg)
}

// short is the length of the short rolling interval also reported: W/10.
func (s setup) short() int64 { return s.Window / 10 }
