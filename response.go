package ratewindow

import "github.com/ratewindow/ratewindow/keyfuncs"

// Response is the part of a framework's response a Handler may use. Each
// adapter implements it over its native response.
type Response interface {
	// SetHeader sets a response header field, replacing any value. Call
	// it before Send: a field set after Send is dropped, as is one whose
	// name is not a valid field name.
	SetHeader(name, value string)
	// Send writes the status and the body. Only the first call counts.
	// A status outside 200-599 (no final response has one) is replaced
	// by the status of the default response the Handler replaces (429,
	// 503 or 400); a Handler that never calls Send has its request
	// answered with that status and no body.
	Send(status int, body []byte)
}

// Handler writes the response to a request the middleware stops: a denial
// (WithDenyHandler), a limiter failure under fail-closed
// (WithErrorHandler) or a request it cannot classify
// (WithUnclassifiedHandler). Every adapter holds it to Response's
// contract alike: the first Send is the answer, a status outside 200-599
// becomes the default response's, and a Handler that sends nothing still
// stops the request. The request and response are valid only during the
// call.
type Handler func(w Response, r keyfuncs.Request, ev Event)
