//go:build race

package keyfuncs_test

const raceEnabled = true
