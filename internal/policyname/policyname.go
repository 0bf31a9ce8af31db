// Package policyname is the name a Limiter gives a policy that has none,
// shared by core (which fills it in) and the header writer (which writes
// it for a decision whose policies were never named).
package policyname

import (
	"strconv"
	"time"
)

// Default is the name of an unnamed policy of limit per window, e.g.
// "100-per-1m" or "5-per-500ms".
func Default(limit int64, window time.Duration) string {
	return strconv.FormatInt(limit, 10) + "-per-" + shortDuration(window)
}

func shortDuration(d time.Duration) string {
	switch {
	case d >= time.Hour && d%time.Hour == 0:
		return strconv.FormatInt(int64(d/time.Hour), 10) + "h"
	case d >= time.Minute && d%time.Minute == 0:
		return strconv.FormatInt(int64(d/time.Minute), 10) + "m"
	case d >= time.Second && d%time.Second == 0:
		return strconv.FormatInt(int64(d/time.Second), 10) + "s"
	}
	return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
}
