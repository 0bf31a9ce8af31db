package storetest_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/storetest"
)

// mutantEnv names the mutant a child process runs the suite against.
const mutantEnv = "RATEWINDOW_STORETEST_MUTANT"

// The stores the mutants start from pass the suite: a failure of a
// mutant is its fault, not theirs.
func TestConformancePlainStore(t *testing.T) {
	storetest.Run(t, func(*testing.T) core.Store { return newPlain() })
}

func TestConformanceUnbrokenDecorator(t *testing.T) {
	storetest.Run(t, func(*testing.T) core.Store { return &broken{inner: newPlain()} })
}

// A Result's entries past len(policies) are unused (core.Result): a store
// may leave anything there, and still conforms.
func TestConformanceUnusedStatesIgnored(t *testing.T) {
	scribble := func(r core.Result, err error, ps []core.Policy) (core.Result, error) {
		for i := len(ps); i < core.MaxPolicies; i++ {
			r.States[i] = core.PolicyState{Allowed: true, Remaining: 7, ResetAfter: time.Hour, RetryAfter: time.Minute}
		}
		return r, err
	}
	storetest.Run(t, func(*testing.T) core.Store {
		inner := newPlain()
		return &broken{
			inner: inner,
			take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				r, err := inner.Take(ctx, key, ps, cost, now)
				return scribble(r, err, ps)
			},
			peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				r, err := inner.Peek(ctx, key, ps, cost, now)
				return scribble(r, err, ps)
			},
		}
	})
}

var failedCase = regexp.MustCompile(`--- FAIL: TestMutants/([^/\s]+) \(`)

// TestMutants runs the conformance suite against each broken store, in a
// child process (the suite fails its *testing.T, which must not be this
// test's), and requires it to fail, in the case named for the mutant.
// The child runs that case alone.
func TestMutants(t *testing.T) {
	if name := os.Getenv(mutantEnv); name != "" {
		for _, m := range mutants {
			if m.name == name {
				storetest.Run(t, func(*testing.T) core.Store { return m.store() })
				return
			}
		}
		t.Fatalf("no mutant %q", name)
	}
	names := map[string]bool{}
	for _, m := range mutants {
		require.False(t, names[m.name], "two mutants named %s", m.name)
		require.NotEmpty(t, m.catch, "mutant %s names no case to catch it", m.name)
		names[m.name] = true
	}
	exe, err := os.Executable()
	require.NoError(t, err)
	for _, m := range mutants {
		t.Run(m.name, func(t *testing.T) {
			t.Parallel()
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			// Only the case that must catch the mutant runs: the suite
			// fails if it does, and the run stays short.
			cmd := exec.CommandContext(ctx, exe, "-test.run=^TestMutants$/^"+m.catch+"$", "-test.count=1", "-test.timeout=60s")
			cmd.Env = append(os.Environ(), mutantEnv+"="+m.name)
			out, err := cmd.CombinedOutput()
			var exit *exec.ExitError
			require.True(t, errors.As(err, &exit), "the suite passed a store that breaks a promise (err %v):\n%s", err, out)
			var failed []string
			for _, match := range failedCase.FindAllSubmatch(out, -1) {
				failed = append(failed, string(match[1]))
			}
			t.Logf("caught by %v", failed)
			require.True(t, slices.Contains(failed, m.catch), "want a failure in %s, got %v:\n%s", m.catch, failed, out)
		})
	}
}
