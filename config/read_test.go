package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A file past 16 MiB is refused, at Load and at Reload: a path that
// points by mistake at a log or a device (/dev/zero) must not be read
// whole into memory, every second, by Watch. The big file here is valid
// JSON (a small file padded with blanks), so only the bound refuses it.
func TestHugeFileRefused(t *testing.T) {
	good := limits(3, "enforce", "", 100)
	huge := []byte(good + string(bytes.Repeat([]byte(" "), 16<<20)))
	path := filepath.Join(t.TempDir(), "limits.json")
	require.NoError(t, os.WriteFile(path, huge, 0o600))
	_, err := config.Load(path)
	require.Error(t, err)
	assert.ErrorContains(t, err, "larger than 16 MiB")
	assert.ErrorContains(t, err, path)

	write(t, path, good)
	var reported []error
	s, err := config.Load(path,
		quiet(),
		config.WithOnReload(func(err error) { reported = append(reported, err) }))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, huge, 0o600))
	err = s.Reload()
	require.Error(t, err)
	assert.ErrorContains(t, err, "larger than 16 MiB")
	require.Len(t, reported, 1)

	// Just under the bound is read.
	require.NoError(t, os.WriteFile(path, huge[:16<<20], 0o600))
	require.NoError(t, s.Reload())
}

// A path that becomes a directory is an error that says so, once.
func TestDirectoryRefused(t *testing.T) {
	path := file(t, limits(3, "enforce", "", 100))
	s, err := config.Load(path, quiet())
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	require.NoError(t, os.Mkdir(path, 0o700))
	err = s.Reload()
	require.Error(t, err)
	assert.ErrorContains(t, err, "is a directory")
	_, err = config.Load(path)
	assert.ErrorContains(t, err, "is a directory")
}

// A file that cannot be read is reported once, and again when it fails in
// another way: an operator told "no such file" must also hear that the
// path has become a directory.
func TestChangedReadErrorReported(t *testing.T) {
	path := file(t, limits(3, "enforce", "", 100))
	var reported []error
	s, err := config.Load(path,
		quiet(),
		config.WithOnReload(func(err error) { reported = append(reported, err) }))
	require.NoError(t, err)
	require.NoError(t, os.Remove(path))
	assert.ErrorIs(t, s.Reload(), os.ErrNotExist)
	assert.ErrorIs(t, s.Reload(), os.ErrNotExist)
	require.Len(t, reported, 1, "the same read error, once")
	require.NoError(t, os.Mkdir(path, 0o700))
	err = s.Reload()
	assert.ErrorContains(t, err, "is a directory")
	require.Len(t, reported, 2, "another read error is news")
	assert.Equal(t, err, reported[1])
	require.Error(t, s.Reload())
	assert.Len(t, reported, 2)
}
