package main

import (
	"github.com/stretchr/testify/require"
	"testing"

	"github.com/ratewindow/ratewindow/internal/exampletest"
)

func TestRoutes(t *testing.T) {
	h, err := newServer()
	require.NoError(t, err)
	exampletest.CheckServer(t, h)
}
