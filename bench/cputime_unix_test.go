//go:build unix

package bench

import "syscall"

// cpuTime returns the CPU time (user + system) the process has used, in
// nanoseconds, or 0 when it cannot be read.
func cpuTime() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
