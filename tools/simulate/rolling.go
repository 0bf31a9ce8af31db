package main

// maxInWindow returns the largest number of instants of ts (sorted, in
// milliseconds) that lie together in one rolling interval (t − w, t], and
// the first t where that count is reached. Such a maximum is always reached
// with t on an instant of ts, so the interval slides over every one of
// them: two indices, O(len(ts)). It returns 0, 0 for no instants or w ≤ 0.
func maxInWindow(ts []int64, w int64) (most int, at int64) {
	if w <= 0 {
		return 0, 0
	}
	i := 0
	for j, t := range ts {
		for ts[i] <= t-w {
			i++
		}
		if n := j - i + 1; n > most {
			most, at = n, t
		}
	}
	return most, at
}

// step is one point of a step function: from At on, the value is N.
type step struct {
	At int64
	N  int
}

// trailing returns the number of instants of ts (sorted) in (t − w, t] as a
// step function of t: it rises at each instant and falls w later. Only the
// points where it changes are returned, starting from 0 before ts[0].
func trailing(ts []int64, w int64) []step {
	if w <= 0 {
		return nil
	}
	var out []step
	n, out0 := 0, 0 // instants counted so far; index of the next one to leave
	for in := 0; in < len(ts) || out0 < len(ts); {
		// The next event time is the earlier of the next arrival and the
		// next departure; both happen at that time.
		t := ts[out0] + w
		if in < len(ts) && ts[in] < t {
			t = ts[in]
		}
		for in < len(ts) && ts[in] == t {
			n, in = n+1, in+1
		}
		for out0 < len(ts) && ts[out0]+w == t {
			n, out0 = n-1, out0+1
		}
		if len(out) == 0 || out[len(out)-1].N != n {
			out = append(out, step{At: t, N: n})
		}
	}
	return out
}

// perBin counts the instants of ts in each bin [k·bin, (k+1)·bin) of
// [0, length).
func perBin(ts []int64, bin, length int64) []int {
	counts := make([]int, (length+bin-1)/bin)
	for _, t := range ts {
		if k := t / bin; t >= 0 && k < int64(len(counts)) {
			counts[k]++
		}
	}
	return counts
}
