//go:build unix

package config_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A Watch that has returned changes nothing any more: the Reload it
// started on a file whose read hangs must not apply what that read
// finally returns. A caller that stopped watching (a test, a server
// switching to another file) expects the configuration to stay.
func TestWatchAppliesNothingAfterItReturned(t *testing.T) {
	path := file(t, limits(3, "enforce", "", 100))
	applied := make(chan struct{}, 10)
	s, err := config.Load(path, quiet(), config.WithOnReload(func(err error) {
		if err == nil {
			applied <- struct{}{}
		}
	}))
	require.NoError(t, err)
	release := hungFIFO(t, path)

	watchThenStop(t, s)
	release(limits(1, "enforce", "", 100)) // the hung read now returns a valid, new file
	select {
	case <-applied:
		t.Fatal("a file was applied after Watch returned")
	case <-time.After(time.Second):
	}
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 3, 429: 1}, statuses(h, 4, "/search", "c1", ""), "the limit of the file Load read")
}
