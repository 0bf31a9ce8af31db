package memory

import (
	"github.com/ratewindow/ratewindow/core/internal/algo"
)

// fixedCell is algo.FixedWindowState in 12 bytes (16 with padding); counts
// fit in 32 bits because core.MaxLimit does.
type fixedCell struct {
	start int64
	count uint32
}

func (c fixedCell) state() algo.FixedWindowState {
	return algo.FixedWindowState{Start: c.start, Count: int64(c.count)}
}

func toFixedCell(s algo.FixedWindowState) fixedCell {
	return fixedCell{start: s.Start, count: uint32(s.Count)}
}

// slidingCell is algo.SlidingWindowState in 16 bytes.
type slidingCell struct {
	start      int64
	prev, curr uint32
}

func (c slidingCell) state() algo.SlidingWindowState {
	return algo.SlidingWindowState{Start: c.start, Prev: int64(c.prev), Curr: int64(c.curr)}
}

func toSlidingCell(s algo.SlidingWindowState) slidingCell {
	return slidingCell{start: s.Start, prev: uint32(s.Prev), curr: uint32(s.Curr)}
}
