package testredis

import (
	"context"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Instance is a private redis-server started by Server for one test.
type Instance struct {
	// Addr is the server's loopback host:port.
	Addr string

	cmd    *exec.Cmd
	exited chan struct{}
	once   sync.Once
}

// Server starts a redis-server of the test's own on a free loopback port,
// without persistence, and stops it in t.Cleanup. Use it when the test must
// stop the server (Stop) to see how code copes; the shared servers from
// ./scripts/test must never be stopped.
func Server(t testing.TB) *Instance {
	t.Helper()
	return ServerWith(t)
}

// ServerWith is Server with extra redis-server arguments, such as
// "--maxmemory", "2mb".
func ServerWith(t testing.TB, args ...string) *Instance {
	t.Helper()
	return spawn(t, nil, args)
}

// spawn starts "redis-server conf --port P ... args" (conf may be empty)
// on a free port of 10000-21999, so that a cluster bus port (P+10000)
// stays below the kernel's ephemeral range, trying up to 5 ports.
func spawn(t testing.TB, conf []string, args []string) *Instance {
	t.Helper()
	bin := ServerPath(t)
	var lastErr error
	for range 5 {
		s, err := start(bin, t.TempDir(), conf, args)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("testredis: start redis-server: %v", lastErr)
	return nil
}

// start runs one server and waits (at most 5 s) until it answers PING.
func start(bin, dir string, conf, extra []string) (*Instance, error) {
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	args := append([]string{}, conf...)
	args = append(args, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", dir)
	cmd := exec.Command(bin, append(args, extra...)...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Instance{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()

	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("redis-server on port %d exited at start", port)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err = c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("redis-server on port %d did not answer within 5s: %v", port, err)
}

// freePort returns a port of 10000-21999 where, like on the port 10000
// above it, nothing listens on loopback.
func freePort() (int, error) {
	for range 50 {
		p := 10000 + mrand.IntN(12000)
		if portFree(p) && portFree(p+10000) {
			return p, nil
		}
	}
	return 0, fmt.Errorf("no free loopback port pair in 10000-31999")
}

func portFree(p int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

// Client returns a new client of the instance, closed by t.Cleanup.
func (s *Instance) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Stop kills the server and waits for it to exit. It is safe to call more
// than once.
func (s *Instance) Stop() {
	s.once.Do(func() {
		_ = s.cmd.Process.Kill()
		<-s.exited
	})
}

// SingleNodeCluster starts a redis-server of the test's own with cluster
// support, as the one master of a cluster that serves all 16384 slots,
// and waits (at most 5 s) until it reports cluster_state:ok. Reached
// through a plain client it stands for an endpoint that shows one
// address but enforces Cluster's slot rule (a proxy in front of every
// slot): a command or script on keys of one slot runs, one whose keys
// span slots is refused with CROSSSLOT before it runs, and no key is ever
// answered MOVED. It stops in t.Cleanup.
func SingleNodeCluster(t testing.TB) *Instance {
	t.Helper()
	s := ServerWith(t, "--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf")
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Do(ctx, "CLUSTER", "ADDSLOTSRANGE", 0, 16383).Err(); err != nil {
		t.Fatalf("testredis: addslots: %v", err)
	}
	waitFor(t, ctx, "cluster_state:ok on the single-node cluster", func() bool {
		info, err := c.ClusterInfo(ctx).Result()
		return err == nil && strings.Contains(info, "cluster_state:ok")
	})
	return s
}
