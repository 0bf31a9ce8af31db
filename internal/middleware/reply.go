package middleware

import (
	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/internal/httptoken"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// guarded holds a handler of the user's own to ratewindow.Response's
// contract, so that every framework answers alike whatever it does:
//
//   - The first Send is the answer and a later one is dropped (net/http,
//     Gin and Echo would write both bodies under the first status, Fiber
//     the second body and status), as is a field set after it (Fiber
//     would send it, the others drop it), and one whose name is not a
//     field name (see reply.SetHeader).
//   - A status no final response has (outside 200-599) is replaced by
//     status: net/http and Echo panic on one outside 100-999, Gin and
//     Fiber answer 200 or a malformed status line, and a 1xx is no answer.
//   - A handler that sends nothing still stops the request: it is
//     answered status, with no body, where each framework would answer
//     200 OK, a stopped request that looked served.
//
// The default responses keep the contract, and are not wrapped.
func guarded(h ratewindow.Handler, status int) ratewindow.Handler {
	return func(w ratewindow.Response, x keyfuncs.Request, ev ratewindow.Event) {
		r := &reply{w: w, status: status}
		h(r, x, ev)
		if !r.sent {
			w.Send(status, nil)
		}
	}
}

// reply is the Response a guarded handler writes to.
type reply struct {
	w      ratewindow.Response
	status int // the default response's
	sent   bool
}

// SetHeader drops a field set after Send, and one whose name is no
// token (RFC 9110's field-name): Fiber would write such a name as given,
// so a CR LF in it would end the field and start one of the handler's
// choosing; net/http, Gin and Echo drop it.
func (r *reply) SetHeader(name, value string) {
	if !r.sent && httptoken.Valid(name) {
		r.w.SetHeader(name, value)
	}
}

// Send sends the first answer, a status no final response has replaced
// by the default response's (see guarded), and drops any later one.
func (r *reply) Send(status int, body []byte) {
	if r.sent {
		return
	}
	r.sent = true
	if status < 200 || status > 599 {
		status = r.status
	}
	r.w.Send(status, body)
}
