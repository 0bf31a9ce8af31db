package algo

import "time"

// millis converts a count of milliseconds to a Duration.
func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// windowStart returns the start of the epoch-aligned window of length w
// (milliseconds) that holds now.
func windowStart(now, w int64) int64 {
	r := now % w
	if r < 0 {
		r += w
	}
	return now - r
}

// windowFrom returns the start of the window holding now, given start, the
// (aligned) start of a window already seen: unless now has left that
// window, no division is needed. A now before start is taken as start, as
// time never runs backwards for a state.
func windowFrom(start, now, w int64) int64 {
	if now < start+w {
		return start
	}
	return windowStart(now, w)
}
