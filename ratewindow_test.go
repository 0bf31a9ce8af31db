package ratewindow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow"
)

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		o    ratewindow.Outcome
		name string
	}{
		{ratewindow.Allowed, "allowed"},
		{ratewindow.Denied, "denied"},
		{ratewindow.WouldDeny, "would_deny"},
		{ratewindow.StoreErrorPassed, "store_error_passed"},
		{ratewindow.StoreErrorRejected, "store_error_rejected"},
		{ratewindow.Skipped, "skipped"},
		{ratewindow.Outcome(99), "unknown"},
	} {
		assert.Equal(t, c.name, c.o.String())
	}
}
