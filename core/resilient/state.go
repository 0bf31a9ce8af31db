package resilient

import "strconv"

// State is the circuit breaker's state.
type State int32

// The breaker's states.
const (
	// Closed: calls go to the primary store; consecutive failures are
	// counted.
	Closed State = iota
	// Open: the primary failed too often; calls are not made until the open
	// interval has passed. Each one fails at once with ErrCircuitOpen (or is
	// decided by the fallback, if configured).
	Open
	// HalfOpen: the open interval has passed and one probe call is on its
	// way to the primary. Its success closes the breaker; its failure opens
	// it again. Other calls meanwhile are treated as in Open, for an open
	// interval at most: a probe that has not answered by then is given up,
	// and the next call goes as a new probe.
	HalfOpen
)

// String returns "closed", "open" or "half-open".
func (s State) String() string {
	switch s {
	case Closed:
		return "closed"
	case Open:
		return "open"
	case HalfOpen:
		return "half-open"
	}
	return "State(" + strconv.Itoa(int(s)) + ")"
}
