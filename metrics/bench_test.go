package metrics_test

import (
	"testing"

	"github.com/ratewindow/ratewindow/metrics"
)

// BenchmarkObserve measures the hook's cost per request once the series
// are resolved: serial, and from every P at once on one hot route.
func BenchmarkObserve(b *testing.B) {
	c, err := metrics.New()
	if err != nil {
		b.Fatal(err)
	}
	ev := allowedEvent("/items/{id}", 5) // near the limit: both counters move
	c.Observe(ev)
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			c.Observe(ev)
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		b.RunParallel(func(pb *testing.PB) {
			for pb.Next() {
				c.Observe(ev)
			}
		})
	})
}
