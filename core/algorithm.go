package core

import "fmt"

// Algorithm selects how a Policy counts requests. The zero value is
// SlidingWindow.
type Algorithm uint8

const (
	// SlidingWindow is the sliding window counter: two epoch-aligned
	// buckets, the previous one weighted by its overlap with the rolling
	// window. It is the default (zero value).
	SlidingWindow Algorithm = iota
	// FixedWindow counts in epoch-aligned windows [k·W, (k+1)·W).
	FixedWindow
	// SlidingLog keeps one record per admitted request (its instant and a
	// running total of units): exact in real time, with memory per key
	// bounded by the requests admitted in a window, whatever their cost.
	SlidingLog
)

// String returns the algorithm's name as used in flags and docs:
// "sliding-window", "fixed-window" or "sliding-log".
func (a Algorithm) String() string {
	switch a {
	case SlidingWindow:
		return "sliding-window"
	case FixedWindow:
		return "fixed-window"
	case SlidingLog:
		return "sliding-log"
	}
	return fmt.Sprintf("Algorithm(%d)", uint8(a))
}

// valid reports whether a is one of the known algorithms.
func (a Algorithm) valid() bool { return a <= SlidingLog }

// ParseAlgorithm returns the Algorithm named s ("sliding-window",
// "fixed-window" or "sliding-log").
func ParseAlgorithm(s string) (Algorithm, error) {
	for _, a := range []Algorithm{SlidingWindow, FixedWindow, SlidingLog} {
		if a.String() == s {
			return a, nil
		}
	}
	return 0, fmt.Errorf("%w: unknown algorithm %q (want sliding-window, fixed-window or sliding-log)", ErrInvalidConfig, s)
}
