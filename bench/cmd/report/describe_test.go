package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestOrderGroups(t *testing.T) {
	gs := []group{
		{Name: "SlidingLogCost/memory"}, {Name: "Other"}, {Name: "SlidingLogCost/redis"},
		{Name: "RedisSerial/standalone"}, {Name: "MemoryHotKeyParallel/goroutines-8"},
		{Name: "MemoryHotKey"}, {Name: "MemoryHotKeyParallel/goroutines-64"},
	}
	orderGroups(gs)
	var names []string
	for _, g := range gs {
		names = append(names, g.Name)
	}
	assert.Equal(t, []string{
		"MemoryHotKey", "MemoryHotKeyParallel/goroutines-8", "MemoryHotKeyParallel/goroutines-64",
		"SlidingLogCost/memory", "SlidingLogCost/redis", "RedisSerial/standalone", "Other",
	}, names)
}

func TestDescribe(t *testing.T) {
	assert.Contains(t, describe("MemoryHotKey"), "one goroutine")
	assert.Contains(t, describe("MemoryHotKeyParallel/goroutines-64"), "number of goroutines")
	assert.Contains(t, describe("RedisParallel/cluster"), "64 goroutines")
	assert.Empty(t, describe("MemoryHotKeyX"))
}
