package redisenv

import (
	"context"
	"fmt"
	"net"
	"os/exec"
	"strconv"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// Server starts a redis-server of the caller's own on a free loopback port,
// empty and without persistence, and returns its host:port. tb.Cleanup
// stops it. Use it where nothing else may share the server (weighing keys
// with INFO used_memory).
func Server(tb testing.TB) string {
	tb.Helper()
	bin := ServerPath(tb)
	var lastErr error
	for range 5 {
		addr, stop, err := start(bin, tb.TempDir())
		if err == nil {
			tb.Cleanup(stop)
			return addr
		}
		lastErr = err
	}
	tb.Fatalf("redisenv: start redis-server: %v", lastErr)
	return ""
}

// start runs one server and waits (at most 5 s) until it answers PING.
func start(bin, dir string) (addr string, stop func(), err error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, fmt.Errorf("pick a port: %w", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	if err := ln.Close(); err != nil {
		return "", nil, fmt.Errorf("pick a port: %w", err)
	}
	cmd := exec.Command(bin, "--port", strconv.Itoa(port), "--bind", "127.0.0.1",
		"--protected-mode", "no", "--save", "", "--appendonly", "no", "--dir", dir)
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	stop = func() {
		_ = cmd.Process.Kill()
		<-exited
	}
	addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(port))

	c := redis.NewClient(&redis.Options{Addr: addr, MaxRetries: -1})
	defer c.Close()
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); {
		select {
		case <-exited:
			return "", nil, fmt.Errorf("redis-server on port %d exited at start", port)
		default:
		}
		ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
		err = c.Ping(ctx).Err()
		cancel()
		if err == nil {
			return addr, stop, nil
		}
		time.Sleep(20 * time.Millisecond)
	}
	stop()
	return "", nil, fmt.Errorf("redis-server on port %d did not answer within 5s: %v", port, err)
}
