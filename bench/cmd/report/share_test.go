package main

import (
	"bytes"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestOwnShare checks which samples count as the middleware's: those with
// a frame of the library and none of the bench module (the wrapped
// handler), out of all the samples.
func TestOwnShare(t *testing.T) {
	var id uint64
	fn := func(name string) *profile.Location {
		id++
		f := &profile.Function{ID: id, Name: name}
		return &profile.Location{ID: id, Line: []profile.Line{{Function: f}}}
	}
	p := &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "samples", Unit: "count"}, {Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     10_000_000,
	}
	add := func(ns int64, stack ...string) {
		s := &profile.Sample{Value: []int64{1, ns}}
		for _, name := range stack { // leaf first
			loc := fn(name)
			p.Location = append(p.Location, loc)
			p.Function = append(p.Function, loc.Line[0].Function)
			s.Location = append(s.Location, loc)
		}
		p.Sample = append(p.Sample, s)
	}
	add(30, "runtime.mallocgc", "github.com/ratewindow/ratewindow/internal/middleware.(*Flow).Handle", "net/http.(*conn).serve")
	add(20, "github.com/ratewindow/ratewindow/keyfuncs.(*clientIP).key", "net/http.(*conn).serve")
	add(40, "net/http.Header.Set", "github.com/ratewindow/ratewindow/bench/httpbench.contentTypeHandler",
		"github.com/ratewindow/ratewindow/nethttp.New.wrap.func1.1", "net/http.(*conn).serve")
	add(110, "syscall.Syscall6", "net/http.(*conn).serve")
	var b bytes.Buffer
	require.NoError(t, p.Write(&b))
	share, err := ownShare(b.Bytes())
	require.NoError(t, err)
	assert.InDelta(t, 0.25, share, 1e-9)

	_, err = ownShare([]byte("not a profile"))
	assert.Error(t, err)
}
