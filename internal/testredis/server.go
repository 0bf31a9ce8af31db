package testredis

import (
	"context"
	"errors"
	"fmt"
	mrand "math/rand/v2"
	"net"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Instance is a private redis-server started by Server for one test.
type Instance struct {
	// Addr is the server's loopback host:port.
	Addr string

	dir    string // its working directory, where SAVE writes dump.rdb
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
		port, err := freePort()
		if err != nil {
			lastErr = err
			continue
		}
		s, err := start(bin, t.TempDir(), port, conf, args, answersPing)
		if err == nil {
			t.Cleanup(s.Stop)
			return s
		}
		lastErr = err
	}
	t.Fatalf("testredis: start redis-server: %v", lastErr)
	return nil
}

// answersPing is start's readiness rule for a new server: PING succeeds.
func answersPing(err error) bool { return err == nil }

// start runs one server on port with dir as its working directory and
// waits (at most 5 s) until its answer to PING (nil, or the error) is one
// ready accepts, and the server that answers is that process.
func start(bin, dir string, port int, conf, extra []string, ready func(error) bool) (*Instance, error) {
	args := append([]string{}, conf...)
	args = append(args, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", dir)
	cmd := exec.Command(bin, append(args, extra...)...)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &Instance{Addr: net.JoinHostPort("127.0.0.1", strconv.Itoa(port)), dir: dir, cmd: cmd, exited: make(chan struct{})}
	go func() { _ = cmd.Wait(); close(s.exited) }()

	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	var err error
	for time.Now().Before(deadline) {
		select {
		case <-s.exited:
			return nil, fmt.Errorf("redis-server on port %d exited at start", port)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err = c.Ping(ctx).Err()
		// Another server may answer there: it holds the port, and this
		// one is about to exit.
		ours := ready(err) && serves(ctx, c, cmd.Process.Pid, dir)
		cancel()
		if ours {
			return s, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.Stop()
	return nil, fmt.Errorf("redis-server on port %d did not answer within 5s: %v", port, err)
}

// serves reports whether the server that answers c is the process pid,
// by its INFO (process_id) or, if the server refuses INFO (a test renamed
// it), by its working directory, dir (CONFIG GET dir). If it refuses
// both, it cannot tell, and says yes.
func serves(ctx context.Context, c *redis.Client, pid int, dir string) bool {
	info, err := c.Info(ctx, "server").Result()
	if err == nil {
		return strings.Contains(info, "process_id:"+strconv.Itoa(pid)+"\r\n")
	}
	if !refused(err) {
		return false
	}
	conf, err := c.ConfigGet(ctx, "dir").Result()
	if err == nil {
		real, rerr := filepath.EvalSymlinks(dir) // Redis reports its getcwd
		return conf["dir"] == dir || rerr == nil && conf["dir"] == real
	}
	return refused(err)
}

// refused reports whether err is the server's answer (it has no such
// command), not a failure to reach it.
func refused(err error) bool {
	var answer redis.Error
	return errors.As(err, &answer)
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

// Restart writes the server's dataset to disk (SAVE), stops the server and
// starts a redis-server on that dataset at the same address (waiting up to
// 10 s for the port if another process holds it meanwhile), with the extra
// redis-server arguments args, stopped in t.Cleanup. It returns the new
// server as soon as it answers PING, with PONG or with LOADING: a server
// restarted on many keys with "--key-load-delay" (microseconds per key; it
// can be changed by CONFIG SET while the server loads) and a small
// "--loading-process-events-interval-bytes" answers every command LOADING
// until its dataset is loaded, as a Redis restarted with persistence does.
func (s *Instance) Restart(t testing.TB, args ...string) *Instance {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := redis.NewClient(&redis.Options{Addr: s.Addr, MaxRetries: -1})
	err := c.Save(ctx).Err()
	_ = c.Close()
	if err != nil {
		t.Fatalf("testredis: save before restart: %v", err)
	}
	s.Stop()
	return s.startAgain(t, args)
}

// startAgain starts a redis-server on the stopped server's dataset and
// address, with the extra arguments args (see Restart).
func (s *Instance) startAgain(t testing.TB, args []string) *Instance {
	t.Helper()
	_, p, err := net.SplitHostPort(s.Addr)
	if err != nil {
		t.Fatalf("testredis: restart %s: %v", s.Addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil {
		t.Fatalf("testredis: restart %s: %v", s.Addr, err)
	}
	loading := func(err error) bool { return err == nil || redis.HasErrorPrefix(err, "LOADING") }
	// Another process may hold the port for a moment (freePort's probe
	// binds it; a server of another test may try it and give up): the
	// new server then exits at once, and is started again, for up to 10 s.
	deadline := time.Now().Add(10 * time.Second)
	for {
		n, err := start(ServerPath(t), s.dir, port, nil, args, loading)
		if err == nil {
			t.Cleanup(n.Stop)
			return n
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("testredis: restart %s: %v", s.Addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Client returns a new client of the instance, closed by t.Cleanup.
func (s *Instance) Client(t testing.TB) *redis.Client {
	t.Helper()
	c := redis.NewClient(&redis.Options{Addr: s.Addr})
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Freeze stops the server's process (SIGSTOP) until thaw is called
// (SIGCONT), which t.Cleanup does too: a Redis that keeps its connections
// open and answers nothing, not even a PING, as a host that hangs. What
// its clients send meanwhile is run once it is thawed.
func (s *Instance) Freeze(t testing.TB) (thaw func()) {
	t.Helper()
	if err := s.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatalf("testredis: freeze %s: %v", s.Addr, err)
	}
	var once sync.Once
	thaw = func() { once.Do(func() { _ = s.cmd.Process.Signal(syscall.SIGCONT) }) }
	t.Cleanup(thaw)
	return thaw
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
