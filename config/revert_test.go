package config_test

import (
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A broken edit that is undone (the file put back to the running content,
// or a deleted file restored) is reported with nil: a callback that set a
// "config broken" gauge on the error must hear that it is over, though
// nothing new is applied.
func TestUndoneBrokenEditReportsRecovery(t *testing.T) {
	good := limits(3, "enforce", "", 100)
	path := file(t, good)
	var reported []error
	s, err := config.Load(path,
		quiet(),
		config.WithOnReload(func(err error) { reported = append(reported, err) }))
	require.NoError(t, err)

	write(t, path, good[:40])
	require.Error(t, s.Reload())
	require.Len(t, reported, 1)
	require.Error(t, reported[0])

	write(t, path, good)
	require.NoError(t, s.Reload())
	require.Len(t, reported, 2, "the undo is reported")
	assert.NoError(t, reported[1])
	require.NoError(t, s.Reload())
	assert.Len(t, reported, 2, "and only once")

	require.NoError(t, os.Remove(path))
	require.Error(t, s.Reload())
	write(t, path, good)
	require.NoError(t, s.Reload())
	require.Len(t, reported, 4)
	assert.ErrorIs(t, reported[2], os.ErrNotExist)
	assert.NoError(t, reported[3], "a restored file is reported too")
}
