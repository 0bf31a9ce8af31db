package httpbench

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestServers starts every server on loopback and checks that it answers
// 200 "ok" and that the limited ones really run their limiter (it writes
// its rate-limit header).
func TestServers(t *testing.T) {
	client := &http.Client{Timeout: 5 * time.Second}
	names := map[string]bool{}
	for _, s := range Servers() {
		t.Run(s.Name, func(t *testing.T) {
			require.False(t, names[s.Name], "names are unique")
			names[s.Name] = true
			if s.Floor != "" {
				assert.True(t, names[s.Floor], "the floor %q comes first", s.Floor)
				assert.Equal(t, strings.HasSuffix(s.Name, "-noheader"), strings.HasSuffix(s.Floor, "-noheader"))
			}
			var header string // the header the server's limiter writes
			switch {
			case strings.Contains(s.Name, "ratewindow"):
				header = "RateLimit-Policy"
			case s.Floor != "":
				header = "X-RateLimit-Limit"
			}
			for _, h := range getOK(t, client, s, 3) {
				if header != "" {
					assert.NotEmpty(t, h.Get(header), "header %s", header)
				} else {
					assert.Empty(t, h.Get("RateLimit-Policy"))
				}
			}
		})
	}
}

// getOK starts s on loopback, sends it n GET requests, checks that each is
// answered 200 "ok", stops it and returns the responses' headers.
func getOK(t *testing.T, client *http.Client, s Server, n int) []http.Header {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	stop, err := s.Start(ln)
	require.NoError(t, err)
	defer func() { require.NoError(t, stop()) }()
	var out []http.Header
	for range n {
		resp, err := client.Get("http://" + ln.Addr().String() + "/")
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		require.NoError(t, resp.Body.Close())
		assert.Equal(t, http.StatusOK, resp.StatusCode)
		assert.Equal(t, "ok\n", string(body))
		out = append(out, resp.Header)
	}
	return out
}

// TestFieldFloors: the field floors answer like the bare server, with the
// fields ratewindow's middleware writes on its first request (up to t,
// which depends on the algorithm and the time).
func TestFieldFloors(t *testing.T) {
	client := &http.Client{Timeout: 5 * time.Second}
	get := func(s Server) http.Header { return getOK(t, client, s, 1)[0] }
	servers := map[string]Server{}
	for _, s := range Servers() {
		servers[s.Name] = s
	}
	for _, floor := range FieldFloors() {
		t.Run(floor.Name, func(t *testing.T) {
			framework, _, _ := strings.Cut(floor.Name, "-")
			for _, alg := range algorithms {
				want := get(servers[framework+"-ratewindow-"+alg.name])
				got := get(floor)
				for _, name := range []string{"RateLimit-Policy", "RateLimit"} {
					require.NotEmpty(t, want.Get(name))
					assert.Equal(t, anyT.ReplaceAllString(want.Get(name), ";t=N"), anyT.ReplaceAllString(got.Get(name), ";t=N"),
						"%s vs %s", name, alg.name)
				}
			}
		})
	}
}

// anyT matches the t parameter of a RateLimit item.
var anyT = regexp.MustCompile(`;t=[0-9]+`)

// TestControl: the control answers exactly as the bare server it is
// compared with (but for the Date), and the report can tell it apart.
func TestControl(t *testing.T) {
	client := &http.Client{Timeout: 5 * time.Second}
	c := Control()
	require.Equal(t, "nethttp-bare", c.Floor)
	var floor Server
	for _, s := range Servers() {
		require.NotEqual(t, c.Name, s.Name)
		if s.Name == c.Floor {
			floor = s
		}
	}
	require.NotNil(t, floor.Start, "the control's floor is a server of the comparison")
	want, got := getOK(t, client, floor, 1)[0], getOK(t, client, c, 1)[0]
	want.Del("Date")
	got.Del("Date")
	assert.Equal(t, want, got)
}
