package memory_test

import (
	"testing"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) core.Store { return memory.New() })
}

func TestConformanceOneShard(t *testing.T) {
	storetest.Run(t, func(t *testing.T) core.Store { return memory.New(memory.WithShards(1)) })
}
