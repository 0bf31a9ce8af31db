package redisenv

import (
	"fmt"
	"net"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// recorder is a testing.TB that records Skip and Fatal instead of acting
// on them.
type recorder struct {
	testing.TB
	skipped, failed bool
	msg             string
}

func (r *recorder) Helper() {}
func (r *recorder) Skip(args ...any) {
	r.skipped, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatal(args ...any) {
	r.failed, r.msg = true, fmt.Sprint(args...)
	runtime.Goexit()
}
func (r *recorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }

func runRecorded(t *testing.T, f func(tb testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() { defer close(done); f(r) }()
	<-done
	return r
}

// TestUnsetSkipsOrFailsUnderCI: without the variable a caller skips, and
// under CI=true it fails.
func TestUnsetSkipsOrFailsUnderCI(t *testing.T) {
	for _, tt := range []struct {
		ci                  string
		wantSkip, wantFatal bool
	}{{"", true, false}, {"false", true, false}, {"true", false, true}} {
		t.Run("CI="+tt.ci, func(t *testing.T) {
			t.Setenv(EnvClusterAddrs, "")
			t.Setenv("CI", tt.ci)
			r := runRecorded(t, func(tb testing.TB) { ClusterAddrs(tb) })
			assert.Equal(t, tt.wantSkip, r.skipped)
			assert.Equal(t, tt.wantFatal, r.failed)
			assert.Contains(t, r.msg, EnvClusterAddrs)
		})
	}
}

func TestClusterAddrsSplits(t *testing.T) {
	t.Setenv(EnvClusterAddrs, " 127.0.0.1:1, 127.0.0.1:2,,")
	assert.Equal(t, []string{"127.0.0.1:1", "127.0.0.1:2"}, ClusterAddrs(t))
}

// TestStandaloneFailsWhenUnreachable: a named server that does not answer
// fails the caller, never skips it.
func TestStandaloneFailsWhenUnreachable(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := ln.Addr().String()
	require.NoError(t, ln.Close())
	t.Setenv(EnvAddr, dead)
	r := runRecorded(t, func(tb testing.TB) { Standalone(tb, 0) })
	assert.True(t, r.failed)
	assert.False(t, r.skipped)
}

func TestPrefixIsUnique(t *testing.T) {
	assert.NotEqual(t, Prefix(t), Prefix(t))
}
