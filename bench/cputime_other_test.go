//go:build !unix

package bench

// cpuTime is not measured on this system.
func cpuTime() int64 { return 0 }
