package testredis

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
)

// FillUp sets the server's maxmemory to half of what it already uses, with
// the noeviction policy, so that it refuses every write with OOM (a plain
// SET is checked to be refused). admin is a client of that one server.
func FillUp(t testing.TB, admin redis.UniversalClient) {
	t.Helper()
	ctx := context.Background()
	if err := admin.ConfigSet(ctx, "maxmemory-policy", "noeviction").Err(); err != nil {
		t.Fatalf("testredis: fill up: %v", err)
	}
	info, err := admin.Info(ctx, "memory").Result()
	if err != nil {
		t.Fatalf("testredis: fill up: %v", err)
	}
	var used int64
	for _, line := range strings.Split(info, "\r\n") {
		if v, ok := strings.CutPrefix(line, "used_memory:"); ok {
			if _, err := fmt.Sscan(v, &used); err != nil {
				t.Fatalf("testredis: fill up: used_memory %q: %v", v, err)
			}
		}
	}
	if used <= 0 {
		t.Fatalf("testredis: fill up: no used_memory in INFO")
	}
	if err := admin.ConfigSet(ctx, "maxmemory", fmt.Sprint(used/2)).Err(); err != nil {
		t.Fatalf("testredis: fill up: %v", err)
	}
	if err := admin.Set(ctx, "filler", "x", 0).Err(); !redis.HasErrorPrefix(err, "OOM") {
		t.Fatalf("testredis: fill up: a plain SET is not refused: %v", err)
	}
}
