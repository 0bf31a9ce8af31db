package logging_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
)

// jsonLogger returns a logger writing JSON lines at level and above into
// the returned buffer.
func jsonLogger(level slog.Level) (*slog.Logger, *bytes.Buffer) {
	var buf bytes.Buffer
	return slog.New(slog.NewJSONHandler(&buf, &slog.HandlerOptions{Level: level})), &buf
}

// records parses the JSON lines of buf.
func records(t *testing.T, buf *bytes.Buffer) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(buf.Bytes()), []byte("\n")) {
		if len(line) == 0 {
			continue
		}
		var r map[string]any
		require.NoError(t, json.Unmarshal(line, &r), "%s", line)
		out = append(out, r)
	}
	return out
}

var errDown = errors.New("test store: down")

// downStore is a core.Store that always fails.
type downStore struct{}

func (downStore) Take(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errDown
}

func (downStore) Peek(context.Context, string, []core.Policy, int64, time.Time) (core.Result, error) {
	return core.Result{}, errDown
}

func (downStore) Reset(context.Context, string, []core.Policy) error { return errDown }
