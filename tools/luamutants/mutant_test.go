package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every mutant still finds its text in the scripts' sources, and the names
// are unique: an edit of a script that moves a mutant's text fails here,
// not halfway through a run.
func TestMutantsApply(t *testing.T) {
	names := map[string]bool{}
	for _, m := range mutants {
		assert.False(t, names[m.Name], "duplicate name %s", m.Name)
		names[m.Name] = true
		assert.NotEmpty(t, m.What, m.Name)
		src, err := os.ReadFile(filepath.Join("..", "..", storeDir, m.File))
		require.NoError(t, err, m.Name)
		out, err := m.apply(src)
		if assert.NoError(t, err, m.Name) {
			assert.NotEqual(t, string(src), string(out), m.Name)
		}
	}
}

func TestApplyNth(t *testing.T) {
	m := mutant{Name: "x", File: "f", Old: "a", New: "b", Nth: 2}
	out, err := m.apply([]byte("a a a"))
	require.NoError(t, err)
	assert.Equal(t, "a b a", string(out))
	m.Nth = 0
	_, err = m.apply([]byte("a a"))
	assert.Error(t, err, "ambiguous without Nth")
	m.Nth = 3
	_, err = m.apply([]byte("a a"))
	assert.Error(t, err, "too few occurrences")
	_, err = m.apply([]byte("c"))
	assert.Error(t, err, "absent")
}
