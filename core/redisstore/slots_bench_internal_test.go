//go:build unix

package redisstore

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// BenchmarkBatchForm compares the ways a standalone store can send
// concurrent calls to one Redis, from GOMAXPROCS×32 goroutines over 1024
// keys: batches as one call of the batch script ("script", the default),
// batches as a pipeline of the requests' own script calls ("slotted",
// what a store sends once Redis answered CROSSSLOT), or every call in a
// round trip of its own ("alone"). It reports the CPU time per decision
// of this process (cpu-ns/op) and of redis-server (redis-cpu-ns/op),
// steadier than ns/op on a shared machine, and the decisions per EVALSHA.
func BenchmarkBatchForm(b *testing.B) {
	for _, form := range []string{"script", "slotted", "alone"} {
		b.Run(form, func(b *testing.B) {
			c := testredis.Standalone(b)
			s, err := New(c, WithPrefix(testredis.Prefix(b)))
			require.NoError(b, err)
			s.batch.slotted.Store(form == "slotted")
			if form == "alone" {
				s.batch.mode = batchOff
			}
			ps, err := policytest.Validate([]core.Policy{core.Per(1_000_000, time.Minute)})
			require.NoError(b, err)
			keys := make([]string, 1024)
			for i := range keys {
				keys[i] = fmt.Sprintf("user:%07d", i)
			}
			ctx := context.Background()
			now := time.Now()
			var next atomic.Int64
			client, server, calls := processCPU(), serverCPU(b, c), evalCalls(b, c)
			b.SetParallelism(32)
			b.RunParallel(func(pb *testing.PB) {
				i := int(next.Add(1)) * 7919
				for pb.Next() {
					if _, err := s.Take(ctx, keys[i%len(keys)], ps, 1, now); err != nil {
						b.Error(err)
						return
					}
					i++
				}
			})
			b.ReportMetric(float64(processCPU()-client)/float64(b.N), "cpu-ns/op")
			b.ReportMetric(float64(serverCPU(b, c)-server)/float64(b.N), "redis-cpu-ns/op")
			b.ReportMetric(float64(b.N)/float64(evalCalls(b, c)-calls), "decisions/call")
		})
	}
}

// processCPU returns the CPU time (user + system) this process has used,
// in nanoseconds.
func processCPU() int64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}

// serverCPU returns the CPU time (user + system) redis-server has used, in
// nanoseconds, from INFO cpu.
func serverCPU(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "cpu").Result()
	require.NoError(b, err)
	var total float64
	for _, line := range strings.Split(info, "\n") {
		name, value, ok := strings.Cut(strings.TrimSpace(line), ":")
		if ok && (name == "used_cpu_sys" || name == "used_cpu_user") {
			v, err := strconv.ParseFloat(value, 64)
			require.NoError(b, err)
			total += v
		}
	}
	return int64(total * 1e9)
}

// evalCalls returns how many EVALSHA calls redis-server ran (INFO
// commandstats).
func evalCalls(b *testing.B, c *redis.Client) int64 {
	info, err := c.Info(context.Background(), "commandstats").Result()
	require.NoError(b, err)
	for _, line := range strings.Split(info, "\n") {
		if v, ok := strings.CutPrefix(strings.TrimSpace(line), "cmdstat_evalsha:calls="); ok {
			v, _, _ = strings.Cut(v, ",")
			n, err := strconv.ParseInt(v, 10, 64)
			require.NoError(b, err)
			return n
		}
	}
	return 0
}
