package main

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/google/pprof/profile"
)

const (
	// libraryPrefix starts the function names of ratewindow's library.
	libraryPrefix = "github.com/ratewindow/ratewindow/"
	// benchPrefix starts those of this module: the handlers the
	// middleware wraps, and the bare servers.
	benchPrefix = "github.com/ratewindow/ratewindow/bench/"
)

// ownShare returns the share of a CPU profile's time spent in ratewindow's
// library and what it calls, apart from the handler it wraps: the samples
// with a frame of the library and none of this module. It counts the
// middleware's allocations and runtime calls, not the garbage collection
// they cause later, nor the framework's writing of the fields it sets.
func ownShare(data []byte) (float64, error) {
	p, err := profile.Parse(bytes.NewReader(data))
	if err != nil {
		return 0, fmt.Errorf("parse profile: %w", err)
	}
	v := -1
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			v = i
		}
	}
	if v < 0 {
		return 0, fmt.Errorf("not a CPU profile")
	}
	var own, total int64
	for _, s := range p.Sample {
		total += s.Value[v]
		var lib, bench bool
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				switch {
				case strings.HasPrefix(name, benchPrefix):
					bench = true
				case strings.HasPrefix(name, libraryPrefix):
					lib = true
				}
			}
		}
		if lib && !bench {
			own += s.Value[v]
		}
	}
	if total == 0 {
		return 0, fmt.Errorf("empty profile")
	}
	return float64(own) / float64(total), nil
}
