// Package h2test sends HTTP/2 requests written field by field, as a client
// that does not use net/http's transport can: fields that transport never
// sends together, such as a host field beside the :authority pseudo-field.
package h2test

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// Conn is one HTTP/2 connection to a test server, over TLS. Its requests
// are sent one at a time.
type Conn struct {
	fr     *http2.Framer
	block  bytes.Buffer
	enc    *hpack.Encoder
	stream uint32
}

// Serve starts a TLS test server of h that speaks HTTP/2, and closes it
// when the test ends.
func Serve(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv
}

// Dial opens an HTTP/2 connection to srv, a server started with
// EnableHTTP2 set and StartTLS, and closes it when the test ends.
func Dial(t testing.TB, srv *httptest.Server) *Conn {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tc, err := tls.Dial("tcp", srv.Listener.Addr().String(), &tls.Config{
		RootCAs:    pool,
		ServerName: "example.com", // a name of httptest's certificate
		NextProtos: []string{"h2"},
	})
	require.NoError(t, err)
	t.Cleanup(func() { _ = tc.Close() })
	require.Equal(t, "h2", tc.ConnectionState().NegotiatedProtocol, "the server did not agree to HTTP/2")
	require.NoError(t, tc.SetDeadline(time.Now().Add(30*time.Second)))
	_, err = tc.Write([]byte(http2.ClientPreface))
	require.NoError(t, err)
	c := &Conn{fr: http2.NewFramer(tc, tc), stream: 1}
	c.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.enc = hpack.NewEncoder(&c.block)
	require.NoError(t, c.fr.WriteSettings())
	return c
}

// Do sends a request of the given fields, name and value pairs in order
// (pseudo-fields first, names in lower case), with no body, and returns
// the status of the response.
func (c *Conn) Do(t testing.TB, fields ...string) int {
	t.Helper()
	require.Zero(t, len(fields)%2, "fields come in name, value pairs")
	c.block.Reset()
	for i := 0; i < len(fields); i += 2 {
		require.NoError(t, c.enc.WriteField(hpack.HeaderField{Name: fields[i], Value: fields[i+1]}))
	}
	id := c.stream
	c.stream += 2
	require.NoError(t, c.fr.WriteHeaders(http2.HeadersFrameParam{
		StreamID: id, BlockFragment: c.block.Bytes(), EndStream: true, EndHeaders: true,
	}))
	status := 0
	for {
		f, err := c.fr.ReadFrame()
		require.NoError(t, err)
		switch f := f.(type) {
		case *http2.SettingsFrame:
			if !f.IsAck() {
				require.NoError(t, c.fr.WriteSettingsAck())
			}
		case *http2.MetaHeadersFrame:
			if f.StreamID != id {
				continue
			}
			if s := f.PseudoValue("status"); s != "" {
				status, err = strconv.Atoi(s)
				require.NoError(t, err)
			}
			if f.StreamEnded() {
				return status
			}
		case *http2.DataFrame:
			if n := len(f.Data()); n > 0 {
				require.NoError(t, c.fr.WriteWindowUpdate(0, uint32(n))) // the connection's window
			}
			if f.StreamID == id && f.StreamEnded() {
				return status
			}
		case *http2.RSTStreamFrame:
			require.NotEqual(t, id, f.StreamID, "the server reset the request's stream: %v", f.ErrCode)
		case *http2.GoAwayFrame:
			require.FailNow(t, "the server closed the connection", "%v: %s", f.ErrCode, f.DebugData())
		}
	}
}
