package logging_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/logging"
)

func TestChain(t *testing.T) {
	var calls []string
	record := func(name string) func(ratewindow.Event) {
		return func(ev ratewindow.Event) { calls = append(calls, name+":"+ev.Outcome.String()) }
	}

	assert.Nil(t, logging.Chain())
	assert.Nil(t, logging.Chain(nil, nil))

	one := logging.Chain(nil, record("only"))
	require.NotNil(t, one)
	one(ratewindow.Event{Outcome: ratewindow.Denied})
	assert.Equal(t, []string{"only:denied"}, calls)

	calls = nil
	hooks := []func(ratewindow.Event){record("a"), nil, record("b"), record("c")}
	chained := logging.Chain(hooks...)
	hooks[0] = record("replaced") // Chain keeps its own copy
	chained(ratewindow.Event{Outcome: ratewindow.WouldDeny})
	assert.Equal(t, []string{"a:would_deny", "b:would_deny", "c:would_deny"}, calls)
}
