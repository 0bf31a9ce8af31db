package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// storeDir is core/redisstore, where the sources and scripts/ live.
const storeDir = "../.."

// TestScriptsUpToDate fails when a checked-in script differs from what
// its sources generate now: run go generate in core/redisstore.
func TestScriptsUpToDate(t *testing.T) {
	src := os.DirFS(storeDir)
	entries, err := os.ReadDir(filepath.Join(storeDir, outDir))
	require.NoError(t, err)
	assert.Len(t, entries, len(drivers), "scripts/ holds exactly the generated scripts")
	for _, d := range drivers {
		want, err := compose(src, d)
		require.NoError(t, err)
		got, err := os.ReadFile(filepath.Join(storeDir, outDir, d))
		require.NoError(t, err)
		assert.True(t, want == string(got), "scripts/%s is stale: run go generate in core/redisstore", d)
	}
}

func TestComposedScripts(t *testing.T) {
	src := os.DirFS(storeDir)
	for _, driver := range drivers {
		script, err := compose(src, driver)
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(script, "#!lua\n"), "%s: the shebang is the first line", driver)
		flat := unindent(script)
		for _, line := range strings.Split(script, "\n") {
			_, _, ok := placeholder(line)
			assert.False(t, ok, "%s: placeholder left: %q", driver, line)
		}
		for _, file := range []string{"fixedwindow.lua", "slidingwindow.lua", "slidinglog.lua"} {
			b := fileBlocks(t, file)
			assert.Len(t, b, 2, "%s: an eval and a charge block", file)
			for _, name := range []string{"eval", "charge"} {
				for _, part := range aroundPlaceholders(b[name]) {
					assert.True(t, strings.Contains(flat, unindent(part)), "%s: block %s of %s", driver, name, file)
				}
			}
		}
		for name, block := range fileBlocks(t, "keyform.lua") {
			for _, part := range aroundPlaceholders(block) {
				assert.True(t, strings.Contains(flat, unindent(part)), "%s: block %s of keyform.lua", driver, name)
			}
		}
		for name, block := range fileBlocks(t, "servertime.lua") {
			assert.True(t, strings.Contains(flat, unindent(block)), "%s: block %s of servertime.lua", driver, name)
		}
	}
}

func TestComposeErrors(t *testing.T) {
	_, err := blocks("x.lua", "-- @eval\n")
	assert.Error(t, err, "a block line needs a colon")
	_, _, ok := placeholder("  -- @eval slidinglog.lua\n")
	assert.True(t, ok)
	_, _, ok = placeholder("-- @eval: the block itself")
	assert.False(t, ok)

	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "d.lua"), []byte("-- @nope b.lua\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "b.lua"), []byte("-- @eval: x\nlocal x = 1\n"), 0o644))
	_, err = compose(os.DirFS(dir), "d.lua")
	assert.ErrorContains(t, err, "no block @nope in b.lua")
}

// TestNestedPlaceholders: a block's own placeholders are expanded, indented
// under it; a block that names itself is an error, not an endless script.
func TestNestedPlaceholders(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("d.lua", "x()\n  -- @outer a.lua\n")
	write("a.lua", "-- @outer: calls inner\ny()\nif z then\n  -- @inner b.lua\nend\n-- @loop: names itself\n  -- @loop a.lua\n")
	write("b.lua", "-- @inner: the innermost\nw()\n")
	got, err := compose(os.DirFS(dir), "d.lua")
	require.NoError(t, err)
	want := "x()\n" +
		"  do -- a.lua\n    -- @outer: calls inner\n    y()\n    if z then\n" +
		"      do -- b.lua\n        -- @inner: the innermost\n        w()\n      end\n" +
		"    end\n  end\n"
	assert.Equal(t, header("d.lua", []string{"a.lua", "b.lua"})+want, got)

	b, err := blocks("x.lua", "-- @a: first\n-- @b y.lua\n-- @c: second\n")
	require.NoError(t, err, "a placeholder at the start of a line is not a block line")
	assert.Equal(t, map[string]string{"a": "-- @a: first\n-- @b y.lua\n", "c": "-- @c: second\n"}, b)

	write("d.lua", "-- @loop a.lua\n")
	_, err = compose(os.DirFS(dir), "d.lua")
	assert.ErrorContains(t, err, "nested more than")
}

// aroundPlaceholders splits a block at its own placeholder lines: the
// parts a composed script holds as they are.
func aroundPlaceholders(block string) []string {
	var parts []string
	var b strings.Builder
	for _, l := range strings.SplitAfter(block, "\n") {
		if _, _, ok := placeholder(l); ok {
			parts = append(parts, b.String())
			b.Reset()
			continue
		}
		b.WriteString(l)
	}
	return append(parts, b.String())
}

func fileBlocks(t *testing.T, file string) map[string]string {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(storeDir, file))
	require.NoError(t, err)
	b, err := blocks(file, string(src))
	require.NoError(t, err)
	return b
}

// unindent drops every line's leading spaces.
func unindent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " ")
	}
	return strings.Join(lines, "\n")
}
