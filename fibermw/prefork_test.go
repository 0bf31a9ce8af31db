//go:build linux

package fibermw_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/redis/go-redis/v9"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/core/redisstore"
	"github.com/ratewindow/ratewindow/fibermw"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

// A Prefork app runs in processes of its own: the test binary, started
// again with these variables set, serves a Fiber app with Prefork instead
// of running tests (TestMain). Fiber's master starts its children the same
// way, so every child builds its own limiter, as a real main would.
const (
	envPreforkAddr   = "RATEWINDOW_TEST_PREFORK_ADDR"   // 127.0.0.1:port to serve on
	envPreforkStore  = "RATEWINDOW_TEST_PREFORK_STORE"  // "memory" or "redis"
	envPreforkPrefix = "RATEWINDOW_TEST_PREFORK_PREFIX" // the Redis store's key prefix

	preforkLimit    = 5 // per minute, for every client
	preforkChildren = 2 // GOMAXPROCS of the master, which starts one child per proc
)

func TestMain(m *testing.M) {
	if addr := os.Getenv(envPreforkAddr); addr != "" {
		os.Exit(servePrefork(addr))
	}
	os.Exit(m.Run())
}

// servePrefork serves GET /pid (unlimited) and GET /limited, each
// answering (denials too) with the serving process's id in X-Pid, until it
// is killed.
func servePrefork(addr string) int {
	var store core.Store = memory.New()
	if os.Getenv(envPreforkStore) == "redis" {
		rdb := redis.NewClient(&redis.Options{Addr: os.Getenv(testredis.EnvAddr)})
		s, err := redisstore.New(rdb, redisstore.WithPrefix(os.Getenv(envPreforkPrefix)))
		if err != nil {
			fmt.Fprintln(os.Stderr, "prefork server:", err)
			return 2
		}
		store = s
	}
	l, err := core.NewLimiter(store, []core.Policy{core.PerMinute(preforkLimit)})
	if err != nil {
		fmt.Fprintln(os.Stderr, "prefork server:", err)
		return 2
	}
	limit, err := fibermw.New(l)
	if err != nil {
		fmt.Fprintln(os.Stderr, "prefork server:", err)
		return 3
	}
	pid := strconv.Itoa(os.Getpid())
	ok := func(c *fiber.Ctx) error { return c.SendString("ok") }
	app := fiber.New(fiber.Config{Prefork: true, DisableStartupMessage: true})
	app.Use(func(c *fiber.Ctx) error {
		c.Set("X-Pid", pid)
		return c.Next()
	})
	app.Get("/pid", ok)
	app.Get("/limited", limit, ok)
	if err := app.Listen(addr); err != nil {
		fmt.Fprintln(os.Stderr, "prefork server:", err)
		return 1
	}
	return 0
}

// preforkServer is a running Prefork app: its master, and the children
// the master started, in one process group of their own.
type preforkServer struct {
	url    string
	client *http.Client
	cmd    *exec.Cmd
	out    *bytes.Buffer // what the processes print; read it once exited is closed
	exited chan struct{}
}

// startPrefork starts a Prefork app on a free loopback port, with env
// added to its environment, and stops the whole process group when the
// test ends.
func startPrefork(t *testing.T, env ...string) *preforkServer {
	t.Helper()
	ln, err := net.Listen("tcp4", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())

	s := &preforkServer{
		url: "http://" + addr,
		// A new connection per request: the kernel hands each one to a
		// child by a hash of its addresses, as it does for real clients.
		client: &http.Client{
			Timeout:   5 * time.Second,
			Transport: &http.Transport{DisableKeepAlives: true},
		},
		out:    new(bytes.Buffer),
		exited: make(chan struct{}),
	}
	s.cmd = exec.Command(os.Args[0], "-test.run=^$")
	s.cmd.Env = append(os.Environ(), env...)
	s.cmd.Env = append(s.cmd.Env, envPreforkAddr+"="+addr, "GOMAXPROCS="+strconv.Itoa(preforkChildren))
	s.cmd.Stdout = s.out
	s.cmd.Stderr = s.out
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	s.cmd.WaitDelay = 5 * time.Second
	require.NoError(t, s.cmd.Start())
	go func() {
		_ = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(s.stop)
	return s
}

// stop kills the master and its children and waits for them, after which
// s.out can be read.
func (s *preforkServer) stop() {
	// The group's id is the master's pid (Setpgid): this ends the master
	// and the children it started, and nothing else.
	_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
	<-s.exited
}

// get sends GET path on a new connection and returns the status and the
// id of the process that answered.
func (s *preforkServer) get(path string) (int, string, error) {
	resp, err := s.client.Get(s.url + path)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, "", err
	}
	return resp.StatusCode, resp.Header.Get("X-Pid"), nil
}

// waitChildren waits until every child answers (each one's pid seen on
// /pid), or fails with what the processes printed.
func (s *preforkServer) waitChildren(t *testing.T) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	seen := map[string]bool{}
	for len(seen) < preforkChildren {
		select {
		case <-s.exited:
			t.Fatalf("the Prefork app exited before its children answered:\n%s", s.out)
		case <-ctx.Done():
			s.stop()
			t.Fatalf("%d of %d children answered within 30 s:\n%s", len(seen), preforkChildren, s.out)
		case <-time.After(20 * time.Millisecond):
		}
		code, pid, err := s.get("/pid")
		if err == nil && code == http.StatusOK {
			seen[pid] = true
		}
	}
}

// spend sends n requests to /limited from one client (127.0.0.1, the key)
// and returns how many were admitted, and by which child (pid) each
// request was answered: "admitted/answered".
func (s *preforkServer) spend(t *testing.T, n int) (int, map[string]string) {
	t.Helper()
	admitted := 0
	ok, answered := map[string]int{}, map[string]int{}
	for range n {
		code, pid, err := s.get("/limited")
		require.NoError(t, err)
		answered[pid]++
		switch code {
		case http.StatusOK:
			admitted++
			ok[pid]++
		case http.StatusTooManyRequests:
		default:
			t.Fatalf("GET /limited: status %d", code)
		}
	}
	byChild := map[string]string{}
	for pid, n := range answered {
		byChild[pid] = fmt.Sprintf("%d/%d", ok[pid], n)
	}
	require.Len(t, byChild, preforkChildren, "not every child answered: %v", byChild)
	return admitted, byChild
}

// requestsPerChild is how many requests each child gets, on average, in
// spend: enough that every child, if it counted alone, would admit its
// full limit (a child getting fewer than preforkLimit of 30 requests split
// by a hash is a chance below one in a million).
const requestsPerChild = 15

// With a memory store, each Prefork child would count alone, and one
// client spread over the children by the kernel would get the limit once
// per child: every child's fibermw.New refuses it, and the app does not
// start.
func TestPreforkRefusesMemoryStore(t *testing.T) {
	s := startPrefork(t, envPreforkStore+"=memory")
	select {
	case <-s.exited:
	case <-time.After(30 * time.Second):
		s.stop()
		t.Fatalf("the Prefork app still runs after 30 s:\n%s", s.out)
	}
	assert.Contains(t, s.out.String(), "Prefork child")
	assert.Contains(t, s.out.String(), "core/redisstore")
}

// With a store the children share, the client gets the limit once.
func TestPreforkSharedStoreHoldsLimit(t *testing.T) {
	testredis.Standalone(t) // fails the test unless Redis answers
	s := startPrefork(t, envPreforkStore+"=redis", envPreforkPrefix+"="+testredis.Prefix(t))
	s.waitChildren(t)
	admitted, byChild := s.spend(t, requestsPerChild*preforkChildren)
	t.Logf("limit %d per client; %d children admitted %d (admitted/answered by pid: %v)", preforkLimit, preforkChildren, admitted, byChild)
	assert.Equal(t, preforkLimit, admitted, "admitted by child: %v", byChild)
}
