package resilient

import (
	"context"
	"errors"

	"github.com/ratewindow/ratewindow/core"
)

// ErrCircuitOpen is the error Take, Peek and Reset return while the breaker
// is open (or half-open with its probe in flight) and no fallback is
// configured: the primary store was not called at all. It is returned as
// is, so a refused call allocates nothing; test for it with errors.Is.
var ErrCircuitOpen = errors.New("resilient: circuit open, primary store not called")

// outcome classifies the end of one primary call for the breaker.
type outcome uint8

const (
	success outcome = iota // the primary answered
	failure                // the primary failed: counts towards opening
	neutral                // the caller's fault: neither success nor failure
)

// classify decides how a primary call's error counts. Caller mistakes (an
// invalid cost, an empty key, a bad configuration) and a request the caller
// itself cancelled say nothing about the primary's health. A deadline that
// ran out does: a store too slow to answer is a failing store.
func classify(ctx context.Context, err error) outcome {
	switch {
	case err == nil:
		return success
	case errors.Is(err, core.ErrInvalidCost), errors.Is(err, core.ErrEmptyKey), errors.Is(err, core.ErrInvalidConfig):
		return neutral
	case errors.Is(ctx.Err(), context.Canceled):
		return neutral
	}
	return failure
}
