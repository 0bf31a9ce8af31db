package config_test

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// An interval in the wrong unit (time.Duration(5), meant as seconds, is
// 5ns) must not make Watch read the file back to back and keep a CPU
// busy: it waits at least 10ms between reads. Each reload here finds new
// content (the callback writes the next version), so the callback counts
// the reads; over the time Watch ran there can be at most one per 10ms.
func TestWatchTinyIntervalDoesNotSpin(t *testing.T) {
	path := file(t, limits(1, "enforce", "", 100))
	var reads atomic.Int64
	s, err := config.Load(path, quiet(), config.WithOnReload(func(err error) {
		n := reads.Add(1)
		// Not write: this runs on Watch's goroutine, where FailNow must not.
		tmp := path + ".next"
		if err := os.WriteFile(tmp, []byte(limits(int((n+1)%2)+1, "enforce", "", 100)), 0o600); err != nil {
			t.Error(err)
		} else if err := os.Rename(tmp, path); err != nil {
			t.Error(err)
		}
	}))
	require.NoError(t, err)
	write(t, path, limits(2, "enforce", "", 100))

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	start := time.Now()
	go func() { s.Watch(ctx, 5); close(done) }()
	time.Sleep(300 * time.Millisecond) // the span observed, not a wait for an event
	cancel()
	<-done
	ran := time.Since(start)
	most := int64(ran/(10*time.Millisecond)) + 1
	n := reads.Load()
	assert.LessOrEqual(t, n, most, fmt.Sprintf("%d reads in %v", n, ran))
	assert.Positive(t, n, "Watch applied the edits")
}
