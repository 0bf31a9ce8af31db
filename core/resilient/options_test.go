package resilient_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/resilient"
)

func TestNewRejectsBadConfig(t *testing.T) {
	tests := []struct {
		name    string
		primary core.Store
		opts    []resilient.Option
		field   string
	}{
		{"nil primary", nil, nil, "primary"},
		{"nil primary in an interface", (*resilient.Store)(nil), nil, "primary"},
		{"zero threshold", memory.New(), []resilient.Option{resilient.WithFailureThreshold(0)}, "WithFailureThreshold"},
		{"zero interval", memory.New(), []resilient.Option{resilient.WithOpenInterval(0)}, "WithOpenInterval"},
		{"negative interval", memory.New(), []resilient.Option{resilient.WithOpenInterval(-1)}, "WithOpenInterval"},
		{"zero replicas", memory.New(), []resilient.Option{resilient.WithFallback(0)}, "WithFallback"},
		{"negative replicas", memory.New(), []resilient.Option{resilient.WithFallback(-2)}, "WithFallback"},
		{"zero local keys", memory.New(), []resilient.Option{resilient.WithLocalMaxKeys(0)}, "WithLocalMaxKeys"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := resilient.New(tt.primary, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, s)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), tt.field)
		})
	}
}

func TestNewDefaults(t *testing.T) {
	s, err := resilient.New(memory.New(), nil, resilient.WithFallback(1), resilient.WithDenyCache())
	require.NoError(t, err)
	assert.Equal(t, resilient.Closed, s.State())
	assert.Equal(t, resilient.Stats{}, s.Stats())
}

func TestStateString(t *testing.T) {
	assert.Equal(t, "closed", resilient.Closed.String())
	assert.Equal(t, "open", resilient.Open.String())
	assert.Equal(t, "half-open", resilient.HalfOpen.String())
	assert.Equal(t, "State(9)", resilient.State(9).String())
}
