package config_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// The file as editors and deploys leave it on the way: truncated, half
// written, deleted, recreated, and swapped by a symlink as Kubernetes
// does for a ConfigMap (limits.json -> ..data/limits.json, ..data ->
// a fresh directory, replaced by rename). Every step that is not a whole
// valid file is reported and changes nothing; every whole one is applied.
func TestReloadThroughEditsAndSwaps(t *testing.T) {
	dir := t.TempDir()
	version := func(name, content string) {
		require.NoError(t, os.Mkdir(filepath.Join(dir, name), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name, "limits.json"), []byte(content), 0o600))
	}
	swap := func(name string) {
		tmp := filepath.Join(dir, "..data_tmp")
		require.NoError(t, os.Symlink(name, tmp))
		require.NoError(t, os.Rename(tmp, filepath.Join(dir, "..data")))
	}
	version("v1", limits(5, "enforce", "", 100))
	require.NoError(t, os.Symlink("v1", filepath.Join(dir, "..data")))
	path := filepath.Join(dir, "limits.json")
	require.NoError(t, os.Symlink(filepath.Join("..data", "limits.json"), path))

	var reported []error
	s, err := config.Load(path,
		quiet(),
		config.WithOnReload(func(err error) { reported = append(reported, err) }))
	require.NoError(t, err)
	h := server(t, s)
	assert.Equal(t, map[int]int{200: 2}, statuses(h, 2, "/search", "c", ""))

	// A ConfigMap update: a new directory, the ..data link swapped.
	version("v2", limits(3, "enforce", "", 100))
	swap("v2")
	require.NoError(t, s.Reload())
	assert.Equal(t, []error{nil}, reported)
	assert.Equal(t, map[int]int{200: 1, 429: 1}, statuses(h, 2, "/search", "c", ""), "limit 3, count 2 kept")

	// An editor writing in place, through the link: truncated, then half
	// written, then whole.
	inPlace := filepath.Join(dir, "v2", "limits.json")
	whole := limits(4, "enforce", "", 100)
	for _, partial := range []string{"", whole[:len(whole)/2], whole[:len(whole)-1]} {
		require.NoError(t, os.WriteFile(inPlace, []byte(partial), 0o600))
		require.Error(t, s.Reload(), "%q", partial)
		assert.Equal(t, 429, get(h, "/search", "c", ""), "the running configuration is kept")
	}
	require.NoError(t, os.WriteFile(inPlace, []byte(whole), 0o600))
	require.NoError(t, s.Reload())
	assert.Equal(t, map[int]int{200: 1, 429: 1}, statuses(h, 2, "/search", "c", ""), "limit 4")

	// The link's target deleted, then recreated.
	require.NoError(t, os.Remove(inPlace))
	assert.ErrorIs(t, s.Reload(), os.ErrNotExist)
	assert.Equal(t, 429, get(h, "/search", "c", ""))
	require.NoError(t, os.WriteFile(inPlace, []byte(limits(6, "enforce", "", 100)), 0o600))
	require.NoError(t, s.Reload())
	assert.Equal(t, map[int]int{200: 2, 429: 1}, statuses(h, 3, "/search", "c", ""), "limit 6")

	last := reported[len(reported)-1]
	assert.NoError(t, last)
	errs := 0
	for _, err := range reported {
		if err != nil {
			errs++
		}
	}
	assert.Equal(t, 4, errs, "each broken state reported once")
}
