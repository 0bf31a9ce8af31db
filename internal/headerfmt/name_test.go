package headerfmt_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

func TestValidatePolicyNames(t *testing.T) {
	err := headerfmt.ValidatePolicyNames([]core.Policy{core.PerSecond(1).Named("tier-é"), core.PerMinute(5).Named("tier-ü")})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.Contains(t, err.Error(), `"tier-é"`)
	assert.Contains(t, err.Error(), `"tier-ü"`)

	for _, ok := range [][]core.Policy{
		{core.PerSecond(1).Named("tier-é"), core.PerMinute(5).Named("tier-a")},
		{core.PerSecond(1).Named(`a"b`), core.PerMinute(5).Named(`a\b`)},
		{core.PerSecond(1), core.PerMinute(5)},
		nil,
	} {
		assert.NoError(t, headerfmt.ValidatePolicyNames(ok))
	}
}
