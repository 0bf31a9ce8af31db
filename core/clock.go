package core

import "time"

// Clock tells the time. Limiters take one so tests can run on a clock that
// moves only when told.
type Clock interface {
	Now() time.Time
}
