//go:build unix

package config_test

import (
	"context"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// Watch returns when its context is done even while a read of the file
// hangs: here the path has become a named pipe that nobody writes, whose
// open blocks. A server shutting down waits for Watch, so it must not
// wait for the file.
func TestWatchStopsWhileAReadHangs(t *testing.T) {
	path := file(t, limits(3, "enforce", "", 100))
	s, err := config.Load(path, quiet())
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	// Let the blocked read go at the end: a writer opens and closes.
	t.Cleanup(func() {
		if w, err := os.OpenFile(path, os.O_RDWR, 0); err == nil {
			w.Close()
		}
	})

	ctx, cancel := context.WithCancel(context.Background())
	stopped := make(chan struct{})
	go func() { s.Watch(ctx, time.Millisecond); close(stopped) }()
	time.Sleep(100 * time.Millisecond) // a tick has started the read
	cancel()
	select {
	case <-stopped:
	case <-time.After(5 * time.Second):
		t.Fatal("Watch did not return within 5s of its context being done")
	}
}
