package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// waitLimit bounds every wait on the server process, so a server that
// never prints or never exits fails the test instead of hanging it.
const waitLimit = 20 * time.Second

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	binDir    string
)

func TestMain(m *testing.M) {
	code := m.Run()
	if binDir != "" {
		_ = os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// binary builds the server once per test run.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", "ratewindow-server-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(binDir, "server")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	require.NoError(t, buildErr)
	return binPath
}

// proc is a running server.
type proc struct {
	cmd    *exec.Cmd
	stdout *bufio.Reader
	stderr *syncBuffer
	url    string // the public listener
	admin  string // the admin listener; "" when -admin-addr is ""
	done   chan struct{}
	err    error
}

var (
	listening = regexp.MustCompile(`^listening on (127\.0\.0\.1:[0-9]+)\n$`)
	adminOn   = regexp.MustCompile(`^admin on (127\.0\.0\.1:[0-9]+)\n$`)
)

// start runs the server with args, both listeners on free loopback ports
// unless args say otherwise, and waits for its stdout lines: an optional
// "admin on" line, then "listening on".
func start(t *testing.T, args ...string) *proc {
	t.Helper()
	return startEnv(t, nil, args...)
}

// startEnv is start with the environment variables env ("NAME=value")
// added to the test's (see childEnv).
func startEnv(t *testing.T, env []string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(binary(t), append([]string{"-addr", "127.0.0.1:0", "-admin-addr", "127.0.0.1:0"}, args...)...)
	cmd.Env = childEnv(env)
	// Our own pipe rather than StdoutPipe: Wait does not close it, so
	// everything the server writes can be read after it exits.
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() { _ = r.Close() })
	p := &proc{cmd: cmd, stdout: bufio.NewReader(r), stderr: &syncBuffer{}, done: make(chan struct{})}
	cmd.Stdout, cmd.Stderr = w, p.stderr
	err = cmd.Start()
	_ = w.Close()
	require.NoError(t, err)
	t.Cleanup(func() {
		select {
		case <-p.done:
		default:
			_ = cmd.Process.Kill()
			<-p.done
		}
	})

	line := make(chan string, 2)
	go func() {
		for range 2 {
			s, _ := p.stdout.ReadString('\n')
			line <- s
			if !adminOn.MatchString(s) {
				return
			}
		}
	}()
	for p.url == "" {
		select {
		case s := <-line:
			if m := adminOn.FindStringSubmatch(s); m != nil && p.admin == "" {
				p.admin = "http://" + m[1]
				continue
			}
			m := listening.FindStringSubmatch(s)
			require.NotNil(t, m, "stdout line %q; stderr %q", s, p.stderr.String())
			p.url = "http://" + m[1]
		case <-time.After(waitLimit):
			_ = cmd.Process.Kill()
			t.Fatalf("server printed no \"listening on\" line within %v; stderr %q", waitLimit, p.stderr.String())
		}
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	return p
}

// stop sends sig and returns the exit status and everything the server
// wrote to stdout after its first line.
func (p *proc) stop(t *testing.T, sig syscall.Signal) (int, string) {
	t.Helper()
	rest := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(p.stdout)
		rest <- string(b)
	}()
	client.CloseIdleConnections()
	require.NoError(t, p.cmd.Process.Signal(sig))
	select {
	case <-p.done:
	case <-time.After(waitLimit):
		_ = p.cmd.Process.Kill()
		t.Fatalf("server did not exit within %v of %v", waitLimit, sig)
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(p.err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, p.err)
	}
	return code, <-rest
}

var client = &http.Client{Timeout: waitLimit}

type reply struct {
	status int
	body   string
	header http.Header
}

func get(t *testing.T, url string, header map[string]string) reply {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	require.NoError(t, err)
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return reply{status: resp.StatusCode, body: string(b), header: resp.Header}
}

// statuses sends n requests and returns their statuses.
func statuses(t *testing.T, url string, n int, header map[string]string) []int {
	t.Helper()
	var out []int
	for range n {
		out = append(out, get(t, url, header).status)
	}
	return out
}

// runExit runs the server to completion (for flag errors) and returns its
// status, stdout and stderr.
func runExit(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	return runExitEnv(t, nil, args...)
}

// runExitEnv is runExit with the environment variables env added.
func runExitEnv(t *testing.T, env []string, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	cmd.Env = childEnv(env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-time.After(waitLimit):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("server %v did not exit within %v", args, waitLimit)
	}
	code := 0
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		code = exit.ExitCode()
	} else {
		require.NoError(t, err)
	}
	return code, stdout.String(), stderr.String()
}

// oneLine asserts s is exactly one non-empty line.
func oneLine(t *testing.T, s string) {
	t.Helper()
	assert.True(t, strings.HasSuffix(s, "\n") && strings.Count(s, "\n") == 1 && len(s) > 1, "want one line, got %q", s)
}

// syncBuffer is a bytes.Buffer safe to read while the process writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// roundTrip is get for any goroutine: it returns the status or an error.
func roundTrip(url string, header map[string]string) (int, error) {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	_, err = io.Copy(io.Discard, resp.Body)
	return resp.StatusCode, err
}

// childEnv is the test's environment without the Redis password, which
// only the tests that give one set, plus env.
func childEnv(env []string) []string {
	var out []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, passwordEnv+"=") {
			out = append(out, kv)
		}
	}
	return append(out, env...)
}
