//go:build !race

package topkeys_test

const raceEnabled = false
