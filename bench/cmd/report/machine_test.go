package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRedisVersion(t *testing.T) {
	assert.Equal(t, "7.0.15", redisVersion("Redis server v=7.0.15 sha=00000000:0 malloc=jemalloc-5.3.0 bits=64 build=abc"))
	assert.Equal(t, "", redisVersion("command not found"))
}

func TestCPUModel(t *testing.T) {
	p := filepath.Join(t.TempDir(), "cpuinfo")
	require.NoError(t, os.WriteFile(p, []byte("processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R) Processor\n\nprocessor\t: 1\nmodel name\t: other\n"), 0o644))
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	assert.Equal(t, "Intel(R) Xeon(R) Processor", cpuModel(f))
}

func TestBenchDir(t *testing.T) {
	root := t.TempDir()
	bench := filepath.Join(root, "bench")
	require.NoError(t, os.MkdirAll(bench, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(bench, "go.mod"), []byte("module github.com/ratewindow/ratewindow/bench\n\ngo 1.26\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "go.mod"), []byte("module github.com/ratewindow/ratewindow\n"), 0o644))

	got, err := benchDir(bench)
	require.NoError(t, err)
	assert.Equal(t, bench, got)
	_, err = benchDir(root)
	assert.Error(t, err, "the library's own module is not the bench module")

	t.Chdir(root)
	got, err = benchDir("")
	require.NoError(t, err)
	assert.Equal(t, bench, got, "found under ./bench from the repository root")
}

func TestBusyNote(t *testing.T) {
	assert.Empty(t, busyNote(machine{CPUs: 2, Load: "0.40 1.00 1.00"}))
	assert.Empty(t, busyNote(machine{CPUs: 2, Load: ""}))
	assert.Empty(t, busyNote(machine{CPUs: 2, Load: "x y z"}))
	assert.Contains(t, busyNote(machine{CPUs: 2, Load: "6.00 5.00 4.00"}), "load average 6.00 on 2 CPUs")
}

func TestInDir(t *testing.T) {
	assert.Equal(t, "/m/bench/RESULTS.md", inDir("/m/bench", "RESULTS.md"))
	assert.Equal(t, "/tmp/x.md", inDir("/m/bench", "/tmp/x.md"))
}
