//go:build race

package fibermw

const raceEnabled = true
