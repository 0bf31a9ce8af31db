// Package policyname is the name a Limiter gives a policy that has none,
// shared by core (which fills it in) and the header writer (which writes
// it for a decision whose policies were never named).
package policyname

import (
	"strconv"
	"time"
)

// Default is the name of an unnamed policy of the given window, e.g. "1m"
// or "500ms". It leaves the Limit out, so the name (and with it the counts
// a store keeps under it) survives a change of the Limit, and the RateLimit
// fields do not carry the limit twice: q already says it.
func Default(window time.Duration) string {
	switch d := window; {
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d >= time.Minute && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d >= time.Second && d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(window.Milliseconds(), 10) + "ms"
}
