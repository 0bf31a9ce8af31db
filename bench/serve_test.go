package bench

import (
	"bytes"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/bench/httpbench"
)

// BenchmarkServe runs every server of the HTTP comparison in process, the
// whole server included (request parsing, the response head, the
// framework's own header handling), over an in-memory connection that
// sends b.N pipelined keep-alive GET requests and discards the answers. It
// is the wrk comparison without the kernel and without the load
// generator's own CPU: the difference to the floor row is the per-request
// cost the middleware adds to the server. The "-bare-fields" rows
// (httpbench.FieldFloors) split that cost: what the framework spends on two
// more response fields, and what the middleware spends on its own work.
func BenchmarkServe(b *testing.B) {
	for _, s := range append(httpbench.Servers(), httpbench.FieldFloors()...) {
		b.Run(s.Name, func(b *testing.B) {
			ln := newMemListener()
			stop, err := s.Start(ln)
			require.NoError(b, err)
			defer func() { require.NoError(b, stop()) }()
			// Warm up the key and the server's pools.
			serveRequests(b, ln, 100)
			b.ReportAllocs()
			b.ResetTimer()
			cpu := startCPU()
			serveRequests(b, ln, b.N)
			cpu.report(b)
		})
	}
}

// serveRequests hands the server one connection carrying n requests and
// waits until it has answered them all.
func serveRequests(b *testing.B, ln *memListener, n int) {
	c := &memConn{total: n, left: n, done: make(chan struct{})}
	ln.conns <- c
	select {
	case <-c.done:
	case <-time.After(time.Minute):
		b.Fatal("server did not finish the requests")
	}
	require.Equal(b, n, c.answers, "answers")
}

var statusOK = []byte("HTTP/1.1 200 ")

var pipelinedRequest = []byte("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: bench\r\n\r\n")

// memConn is a connection whose reads are n copies of pipelinedRequest,
// one at a time, then EOF; it counts the responses written.
type memConn struct {
	total   int // requests to send
	left    int // requests not yet read
	off     int // offset into the request being read
	answers int
	tail    [16]byte // the end of the last write, for a status line split across writes
	ntail   int
	once    sync.Once
	done    chan struct{}
}

func (c *memConn) Read(p []byte) (int, error) {
	if c.left == 0 {
		return 0, io.EOF
	}
	n := copy(p, pipelinedRequest[c.off:])
	c.off += n
	if c.off == len(pipelinedRequest) {
		c.off = 0
		c.left--
	}
	return n, nil
}

// Write counts responses by their status lines ("HTTP/1.1 200").
func (c *memConn) Write(p []byte) (int, error) {
	// Status lines wholly inside p, then one that straddles the tail
	// kept from the previous write and p.
	c.answers += bytes.Count(p, statusOK)
	if c.ntail > 0 {
		var joint [32]byte
		j := append(joint[:0], c.tail[:c.ntail]...)
		j = append(j, p[:min(len(p), len(statusOK)-1)]...)
		c.answers += bytes.Count(j, statusOK)
	}
	c.ntail = copy(c.tail[:len(statusOK)-1], p[max(0, len(p)-(len(statusOK)-1)):])
	if c.answers >= c.total {
		c.finish()
	}
	return len(p), nil
}

func (c *memConn) finish() { c.once.Do(func() { close(c.done) }) }

func (c *memConn) Close() error                     { return nil }
func (c *memConn) LocalAddr() net.Addr              { return serverAddr }
func (c *memConn) RemoteAddr() net.Addr             { return clientAddr }
func (c *memConn) SetDeadline(time.Time) error      { return nil }
func (c *memConn) SetReadDeadline(time.Time) error  { return nil }
func (c *memConn) SetWriteDeadline(time.Time) error { return nil }

// memListener hands out the connections sent on conns.
type memListener struct {
	conns  chan *memConn
	closed chan struct{}
	once   sync.Once
}

func newMemListener() *memListener {
	return &memListener{conns: make(chan *memConn), closed: make(chan struct{})}
}

func (l *memListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.closed:
		return nil, net.ErrClosed
	}
}

func (l *memListener) Close() error {
	l.once.Do(func() { close(l.closed) })
	return nil
}

func (l *memListener) Addr() net.Addr { return serverAddr }

// The addresses of every memConn, made once: a TCP connection's are too.
var (
	serverAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	clientAddr = &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 40000}
)
