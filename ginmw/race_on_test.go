//go:build race

package ginmw

const raceEnabled = true
