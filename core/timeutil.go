package core

import "time"

// millis converts a count of milliseconds to a Duration.
func millis(ms int64) time.Duration { return time.Duration(ms) * time.Millisecond }

// windowStart returns the start of the epoch-aligned window of length w
// (milliseconds) that holds now.
func windowStart(now, w int64) int64 { return now - ((now%w)+w)%w }
