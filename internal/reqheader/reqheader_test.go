package reqheader

import (
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestHost(t *testing.T) {
	r := httptest.NewRequest("GET", "http://a.example/x", nil)
	r.Header.Add("X-Forwarded-For", "192.0.2.1")
	r.Header.Add("X-Forwarded-For", "192.0.2.2")
	assert.Empty(t, r.Header.Get("Host"), "net/http keeps Host out of the map")
	for _, name := range []string{"Host", "host", "HOST"} {
		assert.Equal(t, "a.example", Get(r, name))
		assert.Equal(t, []string{"a.example"}, Values(r, name))
	}
	assert.Equal(t, "192.0.2.1", Get(r, "x-forwarded-for"))
	assert.Equal(t, []string{"192.0.2.1", "192.0.2.2"}, Values(r, "X-Forwarded-For"))
	assert.Empty(t, Get(r, "Hostname"))
	assert.Nil(t, Values(r, "Hosts"))

	r.Host = ""
	assert.Empty(t, Get(r, "Host"))
	assert.Nil(t, Values(r, "Host"), "no Host, no value")
}

// Over HTTP/2, net/http leaves a host field sent beside :authority in
// Request.Header, and serves the request for Request.Host (the
// :authority): the Host field is that, whatever the header map holds.
func TestHostIsRequestHostOverAStrayField(t *testing.T) {
	r := httptest.NewRequest("GET", "https://a.example/x", nil)
	r.Header["Host"] = []string{"x1.example", "x2.example"}
	for _, name := range []string{"Host", "host"} {
		assert.Equal(t, "a.example", Get(r, name))
		assert.Equal(t, []string{"a.example"}, Values(r, name))
	}
	r.Host = ""
	assert.Empty(t, Get(r, "Host"), "a stray field names no host")
	assert.Nil(t, Values(r, "Host"))
}
