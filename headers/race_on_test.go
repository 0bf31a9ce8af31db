//go:build race

package headers_test

const raceEnabled = true
