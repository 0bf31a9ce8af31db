package config

import "github.com/ratewindow/ratewindow/core/memory"

// Check parses and compiles data as Load does a file's content, on a
// memory store, for the fuzz target.
func Check(data []byte) error {
	s := &Set{path: "fuzz.json"}
	s.opts.store = memory.New()
	_, err := s.build(data)
	return err
}
