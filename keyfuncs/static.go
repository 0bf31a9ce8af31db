package keyfuncs

import (
	"context"
	"net/textproto"
)

// StaticRequest is a Request built from plain fields, for tests (yours and
// ours) and for callers that already hold the values.
//
// Header names in Headers are matched case-insensitively, as HTTP does.
type StaticRequest struct {
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

// Method implements Request.
func (r *StaticRequest) Method() string { return r.MethodValue }

// Path implements Request.
func (r *StaticRequest) Path() string { return r.PathValue }

// Route implements Request.
func (r *StaticRequest) Route() string { return r.RouteValue }

// RemoteAddr implements Request.
func (r *StaticRequest) RemoteAddr() string { return r.RemoteAddrValue }

// Header implements Request.
func (r *StaticRequest) Header(name string) string {
	if v := r.HeaderValues(name); len(v) > 0 {
		return v[0]
	}
	return ""
}

// HeaderValues implements Request.
func (r *StaticRequest) HeaderValues(name string) []string {
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

// Context implements Request.
func (r *StaticRequest) Context() context.Context {
	if r.Ctx == nil {
		return context.Background()
	}
	return r.Ctx
}
