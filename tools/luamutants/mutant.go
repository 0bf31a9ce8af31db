package main

import (
	"bytes"
	"fmt"
)

// A mutant is one textual change to one source file of the scripts: the
// Nth occurrence of Old (counting from 1; 0 when Old must occur exactly
// once) becomes New.
type mutant struct {
	Name     string
	File     string // a file of core/redisstore, such as fixedwindow.lua
	Old, New string
	Nth      int
	What     string // the change, in words
	// Equivalent, when set, argues why the mutant cannot be told apart
	// from the scripts by what a caller or Redis can observe.
	Equivalent string
}

// apply returns src with the mutant's change made.
func (m mutant) apply(src []byte) ([]byte, error) {
	old := []byte(m.Old)
	n := bytes.Count(src, old)
	switch {
	case n == 0:
		return nil, fmt.Errorf("%q is not in %s", m.Old, m.File)
	case m.Nth == 0 && n > 1:
		return nil, fmt.Errorf("%q occurs %d times in %s: give Nth", m.Old, n, m.File)
	case m.Nth > n:
		return nil, fmt.Errorf("%q occurs %d times in %s, not %d", m.Old, n, m.File, m.Nth)
	}
	at := 0
	for i := 1; i < max(m.Nth, 1); i++ {
		at += bytes.Index(src[at:], old) + len(old)
	}
	at += bytes.Index(src[at:], old)
	out := append([]byte{}, src[:at]...)
	out = append(out, m.New...)
	return append(out, src[at+len(old):]...), nil
}
