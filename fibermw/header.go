package fibermw

import (
	"strings"
	"sync/atomic"

	"github.com/gofiber/fiber/v2"
	"github.com/valyala/fasthttp"
)

// field is a response field the flow writes, with its name in the two
// spellings fasthttp may store: as given (header normalising disabled) and
// normalised ("Ratelimit-Policy"), as ResponseHeader.Set would store it.
type field struct {
	name       string
	exact      []byte
	normalised []byte
}

func newField(name string) field {
	return field{name: name, exact: []byte(name), normalised: fasthttp.AppendNormalizedHeaderKey(nil, name)}
}

// fields are the names the flow sets on every response or on a denial.
var fields = [...]field{
	newField("RateLimit-Policy"),
	newField("RateLimit"),
	newField("RateLimit-Limit"),
	newField("RateLimit-Remaining"),
	newField("RateLimit-Reset"),
	newField("X-RateLimit-Limit"),
	newField("X-RateLimit-Remaining"),
	newField("X-RateLimit-Reset"),
	newField("Retry-After"),
}

// setHeader sets a response field as c.Set does, but for the flow's own
// fields without normalising the name on every request: the name is
// looked up in its stored spelling. Other names, and any value holding a
// CR or LF (which a deny handler may have copied from the request), go
// through c.Set, which turns those into spaces as net/http does: set raw,
// they would end the field and start one of the client's choosing.
func setHeader(c *fiber.Ctx, normalising bool, name, value string) {
	if key := fieldKey(normalising, name); key != nil && !breaksLine(value) {
		var buf [128]byte
		c.Response().Header.SetCanonical(key, append(buf[:0], value...))
		return
	}
	c.Set(name, value)
}

// breaksLine reports whether value holds a CR or LF. Two byte searches
// rather than strings.ContainsAny, which builds a byte set on every call:
// this runs for the RateLimit-Policy value on every response.
func breaksLine(value string) bool {
	return strings.IndexByte(value, '\r') >= 0 || strings.IndexByte(value, '\n') >= 0
}

// setHeaderBytes is setHeader for a value given as bytes.
func setHeaderBytes(c *fiber.Ctx, normalising bool, name string, value []byte) {
	if key := fieldKey(normalising, name); key != nil {
		c.Response().Header.SetCanonical(key, value)
		return
	}
	c.Response().Header.SetBytesV(name, value)
}

// fieldKey is the stored spelling of one of the flow's fields, or nil for
// any other name.
func fieldKey(normalising bool, name string) []byte {
	for i := range fields {
		if f := &fields[i]; f.name == name {
			if normalising {
				return f.normalised
			}
			return f.exact
		}
	}
	return nil
}

// appNormalising remembers, for the last app seen, whether it normalises
// header names (fiber.Config.DisableHeaderNormalizing unset), so the app's
// Config is not copied per request.
type appNormalising struct {
	app         *fiber.App
	normalising bool
}

var lastApp atomic.Pointer[appNormalising]

// normalising reports whether app normalises header names.
func normalising(app *fiber.App) bool {
	if e := lastApp.Load(); e != nil && e.app == app {
		return e.normalising
	}
	cfg := app.Config()
	e := &appNormalising{app: app, normalising: !cfg.DisableHeaderNormalizing}
	lastApp.Store(e)
	return e.normalising
}
