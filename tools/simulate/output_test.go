package main

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestSVGIsWellFormed(t *testing.T) {
	svg, _, err := generate(smallSetups[0])
	require.NoError(t, err)
	d := xml.NewDecoder(bytes.NewReader(svg))
	elements := map[string]int{}
	var root string
	for {
		tok, err := d.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		if se, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = se.Name.Local
			}
			elements[se.Name.Local]++
		}
	}
	assert.Equal(t, "svg", root)
	assert.Equal(t, len(algorithms), elements["g"], "one panel per algorithm")
	assert.Equal(t, len(algorithms), elements["path"], "one trailing-window line per panel")
}

func TestOutputIsDeterministic(t *testing.T) {
	svg1, md1, err := generate(smallSetups[1])
	require.NoError(t, err)
	svg2, md2, err := generate(smallSetups[1])
	require.NoError(t, err)
	assert.Equal(t, svg1, svg2)
	assert.Equal(t, md1, md2)
}

func TestWriteWritesBothFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "docs")
	s := smallSetups[2]
	require.NoError(t, write(dir, s))
	svg, md, err := generate(s)
	require.NoError(t, err)
	for name, want := range map[string][]byte{svgName: svg, markdownName: md} {
		got, err := os.ReadFile(filepath.Join(dir, name))
		require.NoError(t, err)
		assert.Equal(t, want, got, name)
	}
}

// TestDocsUpToDate renders the checked-in files again with the command's
// own configuration; it fails until `go run ./tools/simulate -out docs` is
// run after a change to the algorithms or to this program.
func TestDocsUpToDate(t *testing.T) {
	runs, err := defaultRuns()
	require.NoError(t, err)
	svg, md := render(defaultSetup(), runs)
	for name, want := range map[string][]byte{svgName: svg, markdownName: md} {
		got, err := os.ReadFile(filepath.Join("..", "..", "docs", name))
		require.NoError(t, err, "docs/%s is missing: run `%s`", name, command)
		assert.True(t, bytes.Equal(want, got), "docs/%s is out of date: run `%s`", name, command)
	}
}
