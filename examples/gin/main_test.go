package main

import (
	"testing"

	"github.com/gin-gonic/gin"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/exampletest"
)

func init() { gin.SetMode(gin.TestMode) }

func TestRoutes(t *testing.T) {
	h, err := newRouter()
	require.NoError(t, err)
	exampletest.CheckServer(t, h)
}
