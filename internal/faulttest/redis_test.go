package faulttest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/ratewindow/ratewindow/internal/testredis"
)

// proc is a redis-server of the test's own, on a fixed loopback port so it
// can be stopped and started again where clients expect it.
type proc struct {
	t    testing.TB
	bin  string
	port int
	dir  string
	args []string

	mu     sync.Mutex
	cmd    *exec.Cmd
	exited chan struct{}
}

// startRedis starts a redis-server on a free port (and a free port+10000,
// the cluster bus) and kills it in t.Cleanup. args are extra server
// arguments.
func startRedis(t testing.TB, args ...string) *proc {
	t.Helper()
	p := &proc{t: t, bin: testredis.ServerPath(t), dir: t.TempDir(), args: args}
	t.Cleanup(p.stop)
	for range 20 {
		p.port = 10000 + rand.IntN(12000)
		if !free(p.port) || !free(p.port+10000) {
			continue
		}
		if err := p.launch(); err == nil {
			return p
		}
		p.stop()
	}
	t.Fatalf("faulttest: could not start redis-server")
	return nil
}

// free reports whether nothing listens on 127.0.0.1:port.
func free(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	_ = ln.Close()
	return true
}

func (p *proc) addr() string { return net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port)) }

// launch starts the server and waits (at most 5 s) until it answers PING.
func (p *proc) launch() error {
	args := append([]string{
		"--port", strconv.Itoa(p.port), "--bind", "127.0.0.1", "--protected-mode", "no",
		"--save", "", "--appendonly", "no", "--dir", p.dir, "--enable-debug-command", "local",
	}, p.args...)
	cmd := exec.Command(p.bin, args...)
	if err := cmd.Start(); err != nil {
		return err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	p.mu.Lock()
	p.cmd, p.exited = cmd, exited
	p.mu.Unlock()

	c := redis.NewClient(&redis.Options{Addr: p.addr(), MaxRetries: -1})
	defer c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return fmt.Errorf("redis-server on port %d exited at start", p.port)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err := c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	return fmt.Errorf("redis-server on port %d did not answer within 5s", p.port)
}

// stop kills the server (SIGKILL: a crash, nothing saved) and waits for it
// to exit. Safe to call when it is not running.
func (p *proc) stop() {
	p.mu.Lock()
	cmd, exited := p.cmd, p.exited
	p.cmd = nil
	p.mu.Unlock()
	if cmd == nil {
		return
	}
	_ = cmd.Process.Kill()
	<-exited
}

// restart starts the stopped server again on its port, empty.
func (p *proc) restart() {
	p.t.Helper()
	var err error
	for range 20 { // the port may linger for a moment after the kill
		if err = p.launch(); err == nil {
			return
		}
		p.stop()
		time.Sleep(50 * time.Millisecond)
	}
	p.t.Fatalf("faulttest: restart redis-server on port %d: %v", p.port, err)
}

// client returns a client of the server that bounds every wait by the
// context's deadline, closed in t.Cleanup.
func (p *proc) client(t testing.TB, hooks ...redis.Hook) *redis.Client {
	c := redis.NewClient(&redis.Options{
		Addr:                  p.addr(),
		ContextTimeoutEnabled: true,
		DialTimeout:           time.Second,
		MaxRetries:            -1,
	})
	for _, h := range hooks {
		c.AddHook(h)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// counter is a go-redis hook that counts the commands sent to Redis, in
// all and by name.
type counter struct {
	n      atomic.Int64
	mu     sync.Mutex
	byName map[string]int
}

func (c *counter) saw(cmd redis.Cmder) {
	c.n.Add(1)
	c.mu.Lock()
	if c.byName == nil {
		c.byName = map[string]int{}
	}
	c.byName[cmd.Name()]++
	c.mu.Unlock()
}

// named returns how many commands of that name (lower case) were sent.
func (c *counter) named(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.byName[name]
}

func (c *counter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (c *counter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		c.saw(cmd)
		return next(ctx, cmd)
	}
}

func (c *counter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			c.saw(cmd)
		}
		return next(ctx, cmds)
	}
}

// testClient is a client of an address where no Redis needs to run: for
// constructors that only store it.
func testClient(t testing.TB) *redis.Client {
	c := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1"})
	t.Cleanup(func() { _ = c.Close() })
	return c
}
