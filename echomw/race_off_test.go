//go:build !race

package echomw

const raceEnabled = false
