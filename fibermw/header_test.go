package fibermw

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/valyala/fasthttp"
	"github.com/valyala/fasthttp/fasthttputil"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// rawExchange serves the given raw requests, in order on one connection,
// through app on an in-memory listener and returns the raw responses.
func rawExchange(t *testing.T, app *fiber.App, n int) []string {
	t.Helper()
	ln := fasthttputil.NewInmemoryListener()
	done := make(chan error, 1)
	go func() { done <- app.Listener(ln) }()
	defer func() {
		require.NoError(t, app.Shutdown())
		<-done
	}()
	conn, err := ln.Dial()
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second)))
	br := bufio.NewReader(conn)
	var out []string
	for range n {
		_, err := conn.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n"))
		require.NoError(t, err)
		var head strings.Builder
		length := 0
		for {
			line, err := br.ReadString('\n')
			require.NoError(t, err)
			head.WriteString(line)
			if v, ok := strings.CutPrefix(strings.ToLower(line), "content-length: "); ok {
				length, err = strconv.Atoi(strings.TrimSpace(v))
				require.NoError(t, err)
			}
			if line == "\r\n" {
				break
			}
		}
		_, err = io.CopyN(io.Discard, br, int64(length))
		require.NoError(t, err)
		out = append(out, head.String())
	}
	return out
}

// The flow's fields are stored as c.Set would store them: normalised by
// default, as written when the app disables normalising, so fasthttp's own
// lookups find them either way. Users' own headers are not touched.
func TestFieldsSpelledAsSetWould(t *testing.T) {
	for _, disable := range []bool{false, true} {
		l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1)})
		require.NoError(t, err)
		limit, err := New(l, ratewindow.WithHeaders(headers.Writer{Mode: headers.Legacy}),
			// The in-memory connection has no IP address.
			ratewindow.WithKeyFunc(func(keyfuncs.Request) (string, error) { return "k", nil }))
		require.NoError(t, err)
		app := fiber.New(fiber.Config{DisableStartupMessage: true, DisableHeaderNormalizing: disable})
		var seen []string
		app.Get("/", limit, func(c *fiber.Ctx) error {
			seen = append(seen, string(c.Response().Header.Peek("X-RateLimit-Limit")))
			c.Set("x-own-header", "1")
			return c.SendString("ok")
		})
		heads := rawExchange(t, app, 2)
		assert.Equal(t, []string{"1"}, seen, "fasthttp's lookup finds the field")
		require.Contains(t, heads[1], "HTTP/1.1 429", heads[1])
		if disable {
			assert.Contains(t, heads[0], "\r\nX-RateLimit-Limit: 1\r\n")
			assert.Contains(t, heads[0], "\r\nx-own-header: 1\r\n")
		} else {
			assert.Contains(t, heads[0], "\r\nX-Ratelimit-Limit: 1\r\n")
			assert.Contains(t, heads[0], "\r\nX-Own-Header: 1\r\n")
		}
		assert.Contains(t, heads[1], "\r\nRetry-After: ")
		assert.Equal(t, 1, strings.Count(heads[0], "-Limit:"), heads[0])
	}
}

// The middleware's per-request work allocates nothing for a returning
// client: the peer address is read as an address, not formatted and
// parsed, its key comes from the key cache, the field names are not
// normalised per request, and the RateLimit value is handed to fasthttp as
// bytes.
func TestAllocsPerRequest(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector allocates")
	}
	l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerHour(1_000_000_000)})
	require.NoError(t, err)
	limit, err := New(l)
	require.NoError(t, err)
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Get("/", limit, func(c *fiber.Ctx) error { return c.SendString("ok") })
	h := app.Handler()
	var req fasthttp.Request
	req.Header.SetMethod(fiber.MethodGet)
	req.SetRequestURI("/")
	var ctx fasthttp.RequestCtx
	ctx.Init(&req, &net.TCPAddr{IP: net.IPv4(192, 0, 2, 1), Port: 1234}, nil)
	allocs := testing.AllocsPerRun(200, func() {
		ctx.Response.Reset()
		ctx.ResetUserValues() // as fasthttp does per request
		h(&ctx)
	})
	assert.Zero(t, allocs)
	// Every run was decided (AllocsPerRun runs once more to warm up): a
	// run the middleware passed on undecided would cost nothing, and
	// prove nothing.
	assert.Contains(t, string(ctx.Response.Header.Peek("RateLimit")), "r=999999799;")
}

// A deny handler may write a value it took from the request into one of
// the flow's fields. A CR or LF in it must not end the field and start
// another (a Set-Cookie of the client's choosing): the adapter turns them
// into spaces, as c.Set and net/http do, whatever the name.
func TestFieldValuesCannotSplitTheHead(t *testing.T) {
	for _, disable := range []bool{false, true} {
		l, err := core.NewLimiter(memory.New(), []core.Policy{core.PerMinute(1)})
		require.NoError(t, err)
		limit, err := New(l,
			ratewindow.WithKeyFunc(func(keyfuncs.Request) (string, error) { return "k", nil }),
			ratewindow.WithDenyHandler(func(w ratewindow.Response, _ keyfuncs.Request, _ ratewindow.Event) {
				w.SetHeader("Retry-After", "5\r\nSet-Cookie: a=1")
				w.SetHeader("RateLimit", "x\nSet-Cookie: b=1")
				w.SetHeader("RateLimit-Policy", "p\rSet-Cookie: d=1")
				w.SetHeader("X-Other", "5\r\nSet-Cookie: c=1")
				w.Send(http.StatusTooManyRequests, nil)
			}))
		require.NoError(t, err)
		app := fiber.New(fiber.Config{DisableStartupMessage: true, DisableHeaderNormalizing: disable})
		app.Get("/", limit, func(c *fiber.Ctx) error { return nil })
		heads := rawExchange(t, app, 2)
		require.Contains(t, heads[1], "HTTP/1.1 429", heads[1])
		assert.NotContains(t, heads[1], "\nSet-Cookie", heads[1])
		assert.NotContains(t, heads[1], "\rSet-Cookie", heads[1])
		assert.Contains(t, heads[1], "\r\nRetry-After: 5  Set-Cookie: a=1\r\n", heads[1])
	}
}
