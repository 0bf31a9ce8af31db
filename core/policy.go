package core

import (
	"fmt"
	"hash/maphash"
	"math"
	"time"

	"github.com/ratewindow/ratewindow/internal/policyname"
)

// MaxPolicies is the largest number of policies one Limiter evaluates
// together (say, per second, per minute, per hour and per day). A Decision
// carries every policy's state inline (see Decision.States), so it never
// allocates.
const MaxPolicies = 4

// MaxLimit is the largest Limit a policy may have (2^32 − 1): the memory
// store keeps counts in 32 bits. Count larger units (KB rather than bytes)
// to go further.
const MaxLimit = 1<<32 - 1

// maxWindow is the longest Window a policy may have, about 97 years: every
// wait a Decision reports (at most three windows, after a clock step back)
// must fit in a time.Duration.
const maxWindow = time.Duration(math.MaxInt64/3) / time.Millisecond * time.Millisecond

// maxExactProduct bounds 2·Limit·Window(ms) so that the sliding-window
// arithmetic is exact both in int64 (Go) and in float64 (Redis Lua).
const maxExactProduct = 1 << 53

// Policy allows Limit units of cost per Window, counted by Algorithm.
//
// Window is a whole number of milliseconds, at least one and at most about
// 97 years (so that every wait a Decision reports fits in a
// time.Duration). Name identifies the policy in headers and metrics; when
// empty, Limiter names the policy after its Window, such as "1m" or
// "500ms". Two policies with the same Name, Window and Algorithm share
// their counts for a key, which is what lets a Limiter change a policy's
// Limit at run time without losing state.
type Policy struct {
	Name      string
	Limit     int64
	Window    time.Duration
	Algorithm Algorithm

	fp fingerprintCache // set by validatePolicies
}

// fingerprintCache is a Policy's Fingerprint and the fields it was
// computed from: a copy whose Name, Window or Algorithm was changed since
// (they are exported) does not match it, and computes its own.
type fingerprintCache struct {
	sum uint64
	of  policyID
}

// policyID is what a Fingerprint hashes.
type policyID struct {
	name      string
	window    time.Duration
	algorithm Algorithm
}

// Per returns a policy of limit units per window on the default algorithm.
func Per(limit int64, window time.Duration) Policy {
	return Policy{Limit: limit, Window: window}
}

// PerSecond returns a policy of limit units per second.
func PerSecond(limit int64) Policy { return Per(limit, time.Second) }

// PerMinute returns a policy of limit units per minute.
func PerMinute(limit int64) Policy { return Per(limit, time.Minute) }

// PerHour returns a policy of limit units per hour.
func PerHour(limit int64) Policy { return Per(limit, time.Hour) }

// Named returns a copy of p with the given name.
func (p Policy) Named(name string) Policy { p.Name = name; return p }

// Using returns a copy of p counted by algorithm a.
func (p Policy) Using(a Algorithm) Policy { p.Algorithm = a; return p }

// validate reports the first problem with p, wrapping ErrInvalidConfig.
// The message names p only if it has a Name: an unnamed policy's default
// name comes from the Window being checked.
func (p Policy) validate() error {
	at := ""
	if p.Name != "" {
		at = fmt.Sprintf("policy %q: ", p.Name)
	}
	switch {
	case p.Limit <= 0:
		return fmt.Errorf("%w: %sLimit must be positive, got %d", ErrInvalidConfig, at, p.Limit)
	case p.Limit > MaxLimit:
		return fmt.Errorf("%w: %sLimit must be at most %d, got %d", ErrInvalidConfig, at, int64(MaxLimit), p.Limit)
	case p.Window < time.Millisecond:
		return fmt.Errorf("%w: %sWindow must be at least 1ms, got %v", ErrInvalidConfig, at, p.Window)
	case p.Window > maxWindow:
		return fmt.Errorf("%w: %sWindow must be at most %v (three windows must fit in a time.Duration), got %v", ErrInvalidConfig, at, maxWindow, p.Window)
	case p.Window%time.Millisecond != 0:
		return fmt.Errorf("%w: %sWindow must be a whole number of milliseconds, got %v", ErrInvalidConfig, at, p.Window)
	case !p.Algorithm.valid():
		return fmt.Errorf("%w: %sunknown Algorithm %v", ErrInvalidConfig, at, p.Algorithm)
	case p.Limit > maxExactProduct/2/p.Window.Milliseconds():
		return fmt.Errorf("%w: %sLimit × Window too large (%d per %v); keep 2·Limit·Window(ms) under 2^53", ErrInvalidConfig, at, p.Limit, p.Window)
	}
	return nil
}

// String describes the policy, e.g. "burst: 10 per 1s (sliding-window)".
func (p Policy) String() string {
	return fmt.Sprintf("%s: %d per %v (%v)", p.Name, p.Limit, p.Window, p.Algorithm)
}

var fingerprintSeed = maphash.MakeSeed()

// Fingerprint identifies the policy's counters within one process: it
// hashes Name, Window and Algorithm (not Limit, so a limit can change
// without losing counts). It is not stable across processes; stores that
// persist state use the policy's fields instead.
//
// A Limiter's policies carry it computed; a copy whose Name, Window or
// Algorithm was changed since computes its own. That of a policy with none
// of the three set (never a valid one) is 0.
func (p Policy) Fingerprint() uint64 {
	// An unvalidated policy's cache is zero: it matches only the policy
	// without Name, Window and Algorithm, whose fingerprint is 0.
	if p.fp.of == (policyID{p.Name, p.Window, p.Algorithm}) {
		return p.fp.sum // cached by validatePolicies: the hot path
	}
	return p.fingerprint()
}

func (p *Policy) fingerprint() uint64 {
	if (policyID{p.Name, p.Window, p.Algorithm}) == (policyID{}) {
		return 0 // as the zero cache says (see Fingerprint)
	}
	var h maphash.Hash
	h.SetSeed(fingerprintSeed)
	h.WriteString(p.Name)
	var b [9]byte
	w := uint64(p.Window)
	for i := 0; i < 8; i++ {
		b[i] = byte(w >> (8 * i))
	}
	b[8] = byte(p.Algorithm)
	h.Write(b[:])
	return h.Sum64()
}

// validatePolicies checks a set of policies for a Limiter and returns a
// normalised copy with default names filled in.
func validatePolicies(policies []Policy) ([]Policy, error) {
	if len(policies) == 0 {
		return nil, fmt.Errorf("%w: no policies", ErrInvalidConfig)
	}
	if len(policies) > MaxPolicies {
		return nil, fmt.Errorf("%w: %d policies, at most %d", ErrInvalidConfig, len(policies), MaxPolicies)
	}
	out := make([]Policy, len(policies))
	seen := make(map[string]int, len(policies))
	for i, p := range policies {
		unnamed := p.Name == ""
		if err := p.validate(); err != nil {
			return nil, fmt.Errorf("policies[%d]: %w", i, err)
		}
		if unnamed {
			p.Name = policyname.Default(p.Window)
		}
		if j, dup := seen[p.Name]; dup {
			if unnamed || policies[j].Name == "" {
				return nil, fmt.Errorf("%w: policies[%d] and policies[%d] are both named %q (a policy without a Name is named after its Window); give one a Name", ErrInvalidConfig, j, i, p.Name)
			}
			return nil, fmt.Errorf("%w: policies[%d] and policies[%d] are both named %q", ErrInvalidConfig, j, i, p.Name)
		}
		seen[p.Name] = i
		p.fp = fingerprintCache{p.fingerprint(), policyID{p.Name, p.Window, p.Algorithm}}
		out[i] = p
	}
	return out, nil
}

// checkCost validates a request's cost against every policy.
func checkCost(policies []Policy, cost int64) error {
	if cost <= 0 {
		return fmt.Errorf("%w: cost must be positive, got %d", ErrInvalidCost, cost)
	}
	for i := range policies {
		if cost > policies[i].Limit {
			return fmt.Errorf("%w: cost %d exceeds the limit %d of policy %q", ErrInvalidCost, cost, policies[i].Limit, policies[i].Name)
		}
	}
	return nil
}
