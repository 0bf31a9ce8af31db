package ratewindow_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow"
)

func TestOutcome(t *testing.T) {
	for _, c := range []struct {
		o      ratewindow.Outcome
		name   string
		passed bool
	}{
		{ratewindow.Allowed, "allowed", true},
		{ratewindow.Denied, "denied", false},
		{ratewindow.WouldDeny, "would_deny", true},
		{ratewindow.StoreErrorPassed, "store_error_passed", true},
		{ratewindow.StoreErrorRejected, "store_error_rejected", false},
		{ratewindow.Skipped, "skipped", true},
		{ratewindow.Outcome(99), "unknown", true},
	} {
		assert.Equal(t, c.name, c.o.String())
		assert.Equal(t, c.passed, c.o.Passed(), c.name)
	}
}
