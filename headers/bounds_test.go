package headers_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
)

// A decision with as many policies as a Decision holds states for is a
// limiter's, every policy of it written.
func TestWriterMaxPolicies(t *testing.T) {
	d := &core.Decision{Allowed: true, Index: 0}
	for i := range core.MaxPolicies {
		d.Policies = append(d.Policies, core.PerMinute(int64(10*(i+1))).Named(string(rune('a'+i))))
	}
	for i := range d.States() {
		d.States()[i] = core.PolicyState{Allowed: true, Remaining: int64(i), ResetAfter: time.Second}
	}
	h, set := capture()
	headers.Writer{AllPolicies: true}.Write(set, d, t0)
	assert.Equal(t, `"a";q=10;w=60, "b";q=20;w=60, "c";q=30;w=60, "d";q=40;w=60`, get(h, "RateLimit-Policy"))
	assert.Equal(t, `"a";r=0;t=1, "b";r=1;t=1, "c";r=2;t=1, "d";r=3;t=1`, get(h, "RateLimit"))
}

// A hand-made decision whose Index is just past its policies binds the
// first, rather than indexing past them.
func TestWriterIndexPastPolicies(t *testing.T) {
	d := decision(true, 0,
		core.PolicyState{Allowed: true, Remaining: 3, ResetAfter: time.Second},
		core.PolicyState{Allowed: true, Remaining: 590, ResetAfter: time.Minute})
	d.Index = len(d.Policies)
	h, set := capture()
	headers.Writer{}.Write(set, d, t0)
	assert.Equal(t, `"burst";r=3;t=1`, get(h, "RateLimit"))
}

// Every printable ASCII character but '"' and '\' is written as is in a
// policy name, '~' (the last) included.
func TestWriterNameKeepsPrintableASCII(t *testing.T) {
	p := core.PerMinute(5).Named(" a~!z")
	d := &core.Decision{Allowed: true, Policies: []core.Policy{p}}
	d.States()[0] = core.PolicyState{Allowed: true, Remaining: 4, ResetAfter: time.Second}
	h, set := capture()
	headers.Writer{}.Write(set, d, t0)
	assert.Equal(t, `" a~!z";q=5;w=60`, get(h, "RateLimit-Policy"))
}
