// Package keytest is the keyfuncs.Request of the module's tests: a request
// built from plain fields.
package keytest

import (
	"context"
	"net/textproto"
)

// Request is a keyfuncs.Request built from plain fields.
//
// Header names in Headers are matched case-insensitively, as HTTP does.
type Request struct {
	// MethodValue is returned by Method.
	MethodValue string
	// PathValue is returned by Path.
	PathValue string
	// RouteValue is returned by Route ("" when there is no pattern).
	RouteValue string
	// RemoteAddrValue is returned by RemoteAddr, e.g. "192.0.2.1:1234".
	RemoteAddrValue string
	// Headers maps a header name to its values, one entry per repeated
	// header line.
	Headers map[string][]string
	// Ctx is returned by Context; nil means context.Background().
	Ctx context.Context
}

// Method implements keyfuncs.Request.
func (r *Request) Method() string { return r.MethodValue }

// Path implements keyfuncs.Request.
func (r *Request) Path() string { return r.PathValue }

// Route implements keyfuncs.Request.
func (r *Request) Route() string { return r.RouteValue }

// RemoteAddr implements keyfuncs.Request.
func (r *Request) RemoteAddr() string { return r.RemoteAddrValue }

// Header implements keyfuncs.Request.
func (r *Request) Header(name string) string {
	if v := r.HeaderValues(name); len(v) > 0 {
		return v[0]
	}
	return ""
}

// HeaderValues implements keyfuncs.Request.
func (r *Request) HeaderValues(name string) []string {
	if v, ok := r.Headers[name]; ok {
		return v
	}
	canon := textproto.CanonicalMIMEHeaderKey(name)
	if v, ok := r.Headers[canon]; ok {
		return v
	}
	for k, v := range r.Headers {
		if textproto.CanonicalMIMEHeaderKey(k) == canon {
			return v
		}
	}
	return nil
}

// Context implements keyfuncs.Request.
func (r *Request) Context() context.Context {
	if r.Ctx == nil {
		return context.Background()
	}
	return r.Ctx
}
