package testredis

import (
	"os"
	"strings"
	"testing"
)

// Names of the environment variables that ./scripts/test exports.
const (
	EnvAddr         = "RATEWINDOW_REDIS_ADDR"
	EnvClusterAddrs = "RATEWINDOW_REDIS_CLUSTER_ADDRS"
	EnvServer       = "RATEWINDOW_REDIS_SERVER"
)

// Addr returns the standalone server's host:port.
func Addr(t testing.TB) string {
	t.Helper()
	return lookup(t, EnvAddr)
}

// ClusterAddrs returns the host:port of every cluster master.
func ClusterAddrs(t testing.TB) []string {
	t.Helper()
	var addrs []string
	for _, a := range strings.Split(lookup(t, EnvClusterAddrs), ",") {
		if a = strings.TrimSpace(a); a != "" {
			addrs = append(addrs, a)
		}
	}
	if len(addrs) == 0 {
		t.Fatalf("testredis: %s holds no address", EnvClusterAddrs)
	}
	return addrs
}

// ServerPath returns the path of the redis-server binary.
func ServerPath(t testing.TB) string {
	t.Helper()
	return lookup(t, EnvServer)
}

// lookup returns the variable's value, or skips (fails under CI=true) when
// it is unset.
func lookup(t testing.TB, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v != "" {
		return v
	}
	msg := "testredis: " + name + " is not set; run ./scripts/test, which starts Redis and sets it"
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}
