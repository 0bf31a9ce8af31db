package headers_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

var sink string

func discard(_, value string) { sink = value }

func BenchmarkWriteIETFTwoPolicies(b *testing.B) {
	w := headers.Writer{}
	b.ReportAllocs()
	for b.Loop() {
		w.Write(discard, deniedDecision, t0)
		headerfmt.WriteRetryAfter(discard, deniedDecision)
	}
}

func BenchmarkWriteIETFAllPolicies(b *testing.B) {
	w := headers.Writer{AllPolicies: true}
	b.ReportAllocs()
	for b.Loop() {
		w.Write(discard, allowedDecision, t0)
	}
}

func BenchmarkWriteDraft7(b *testing.B) {
	w := headers.Writer{Mode: headers.Draft7}
	b.ReportAllocs()
	for b.Loop() {
		w.Write(discard, allowedDecision, t0)
	}
}

func BenchmarkWriteDraft6(b *testing.B) {
	w := headers.Writer{Mode: headers.Draft6}
	b.ReportAllocs()
	for b.Loop() {
		w.Write(discard, allowedDecision, t0)
	}
}

// Two header values are two strings: that is the whole budget.
func TestWriteAllocations(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	for _, w := range []headers.Writer{{}, {AllPolicies: true}, {Mode: headers.Draft7}} {
		allocs := testing.AllocsPerRun(100, func() { w.Write(discard, allowedDecision, t0) })
		assert.LessOrEqual(t, allocs, 2.0, w.Mode)
	}
	// The policy field comes from the cache and small numbers are
	// preformatted by strconv: the separate fields cost nothing.
	allocs := testing.AllocsPerRun(100, func() { headers.Writer{Mode: headers.Draft6}.Write(discard, allowedDecision, t0) })
	assert.Zero(t, allocs, "draft-6")
	allocs = testing.AllocsPerRun(100, func() {
		headers.Writer{}.Write(discard, deniedDecision, t0)
		headerfmt.WriteRetryAfter(discard, deniedDecision)
	})
	assert.LessOrEqual(t, allocs, 2.0, "a denial writes three fields; Retry-After under 100 s costs nothing")
}
