//go:build unix

package config_test

import (
	"context"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
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
	hungFIFO(t, path)
	watchThenStop(t, s)
}

// watchThenStop runs s.Watch with a 1ms tick until a tick has started a
// read, then cancels its context, and fails the test unless Watch returns
// within 5s.
func watchThenStop(t *testing.T, s *config.Set) {
	t.Helper()
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

// hungFIFO turns the file at path into a named pipe that nobody writes, so
// that a read of it blocks in open, and returns the pipe's second name:
// release opens that name for writing, writes content and closes, which
// ends a read blocked on the pipe. release is also run at cleanup.
func hungFIFO(t *testing.T, path string) (release func(content string)) {
	t.Helper()
	require.NoError(t, os.Remove(path))
	require.NoError(t, syscall.Mkfifo(path, 0o600))
	pipe := path + ".pipe"
	require.NoError(t, os.Link(path, pipe))
	var once sync.Once
	release = func(content string) {
		once.Do(func() {
			// O_RDWR never blocks: a reader blocked in open is let go,
			// reads content, then EOF once this end is closed.
			w, err := os.OpenFile(pipe, os.O_RDWR, 0)
			if err != nil {
				return
			}
			_, _ = w.WriteString(content)
			time.Sleep(50 * time.Millisecond) // the reader has opened
			w.Close()
		})
	}
	t.Cleanup(func() { release("") })
	return release
}

// A direct Reload does not wait behind a read that hangs in another
// Reload (Watch's): it reads the file itself. Here the hung read is on a
// named pipe that has since been replaced by a regular file.
func TestReloadDoesNotWaitForAnotherHungRead(t *testing.T) {
	path := file(t, limits(3, "enforce", "", 100))
	var applied atomic.Int64
	s, err := config.Load(path, quiet(), config.WithOnReload(func(err error) {
		if err == nil {
			applied.Add(1)
		}
	}))
	require.NoError(t, err)
	release := hungFIFO(t, path)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go s.Watch(ctx, time.Millisecond)
	time.Sleep(100 * time.Millisecond) // a tick has started the read, which hangs

	write(t, path, limits(1, "enforce", "", 100))
	done := make(chan error, 1)
	go func() { done <- s.Reload() }()
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal("Reload waited more than 5s behind another Reload's hung read")
	}
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 1, 429: 1}, statuses(h, 2, "/search", "c1", ""), "the new file applied")
	require.Equal(t, int64(1), applied.Load())

	// The hung read returns the old content at last: it started before
	// the read that was applied, so it is dropped.
	release(limits(3, "enforce", "", 100))
	time.Sleep(500 * time.Millisecond)
	assert.Equal(t, int64(1), applied.Load(), "older content is never applied over newer")
	assert.Equal(t, 429, get(h, "/search", "c1", ""), "the new limit still")
}
