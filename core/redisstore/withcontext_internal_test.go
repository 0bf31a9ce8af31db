package redisstore

import (
	"context"
	"net"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// passedDeadline is a context at the instant between its deadline and
// the firing of its timer: the deadline has passed, and Err is still nil.
type passedDeadline struct {
	context.Context
	d time.Time
}

func (c passedDeadline) Deadline() (time.Time, bool) { return c.d, true }

// A round trip cut by the connection's deadline, which go-redis sets to
// the context's, may return before the context's own timer has fired: its
// "i/o timeout" still matches context.DeadlineExceeded. Before, it did
// not: on a Redis that answered LOADING slowly, 2 of 60 calls cut that way
// failed with a bare "read tcp ...: i/o timeout".
func TestWithContextAtThePassedDeadline(t *testing.T) {
	timeout := &net.OpError{Op: "read", Net: "tcp", Err: os.ErrDeadlineExceeded}
	ctx := passedDeadline{context.Background(), time.Now().Add(-time.Microsecond)}
	err := withContext(ctx, timeout)
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	assert.ErrorIs(t, err, os.ErrDeadlineExceeded, "the client's error is kept")
	assert.Equal(t, "context deadline exceeded: read tcp: i/o timeout", err.Error())

	// Before its deadline, a context that is not done changes nothing.
	ctx.d = time.Now().Add(time.Hour)
	assert.Same(t, error(timeout), withContext(ctx, timeout))
}
