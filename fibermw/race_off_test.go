//go:build !race

package fibermw

const raceEnabled = false
