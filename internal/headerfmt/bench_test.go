package headerfmt

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
)

var sinkLen int

// BenchmarkWriteBytes is the draft-8 work of one allowed response of a
// limiter with one policy, for an adapter that takes bytes (Fiber): the
// policy field from the cache, RateLimit formatted per call.
func BenchmarkWriteBytes(b *testing.B) {
	ps, err := policytest.Validate([]core.Policy{core.PerHour(1_000_000_000)})
	require.NoError(b, err)
	d := core.Decision{Allowed: true, Policies: ps, Remaining: 999_999_999, ResetAfter: time.Hour, Limit: 1_000_000_000}
	d.States()[0] = core.PolicyState{Allowed: true, Remaining: 999_999_999, ResetAfter: time.Hour}
	var w Writer
	set := func(_, v string) { sinkLen += len(v) }
	setBytes := func(_ string, v []byte) { sinkLen += len(v) }
	b.ReportAllocs()
	for b.Loop() {
		w.Write(set, setBytes, &d, "", time.Time{})
	}
}
