package middleware

import (
	"net/http"
	"net/textproto"

	"github.com/ratewindow/ratewindow/headers"
)

// Canonical forms of the fields the flow writes, computed once so setting
// them on an http.Header does not canonicalise (and allocate) per request.
var (
	canonPolicy          = textproto.CanonicalMIMEHeaderKey(headers.FieldPolicy)
	canonRateLimit       = textproto.CanonicalMIMEHeaderKey(headers.FieldRateLimit)
	canonLimit           = textproto.CanonicalMIMEHeaderKey(headers.FieldLimit)
	canonRemaining       = textproto.CanonicalMIMEHeaderKey(headers.FieldRemaining)
	canonReset           = textproto.CanonicalMIMEHeaderKey(headers.FieldReset)
	canonLegacyLimit     = textproto.CanonicalMIMEHeaderKey(headers.FieldLegacyLimit)
	canonLegacyRemaining = textproto.CanonicalMIMEHeaderKey(headers.FieldLegacyRemaining)
	canonLegacyReset     = textproto.CanonicalMIMEHeaderKey(headers.FieldLegacyReset)
)

// CanonicalHeaderKey is textproto.CanonicalMIMEHeaderKey, without the work
// for the rate-limit fields.
func CanonicalHeaderKey(name string) string {
	switch name {
	case headers.FieldPolicy:
		return canonPolicy
	case headers.FieldRateLimit:
		return canonRateLimit
	case headers.FieldLimit:
		return canonLimit
	case headers.FieldRemaining:
		return canonRemaining
	case headers.FieldReset:
		return canonReset
	case headers.FieldLegacyLimit:
		return canonLegacyLimit
	case headers.FieldLegacyRemaining:
		return canonLegacyRemaining
	case headers.FieldLegacyReset:
		return canonLegacyReset
	case headers.FieldRetryAfter, "Content-Type":
		return name
	}
	return textproto.CanonicalMIMEHeaderKey(name)
}

// HeaderSetter sets fields on an http.Header like Header.Set, but hands
// out the one-element value slices from a shared block: the rate-limit
// fields of one response cost one allocation instead of one each. Use one
// HeaderSetter per response and Reset it before reuse (the header map keeps
// the old block).
type HeaderSetter struct{ block []string }

// Set replaces the field name of h with value.
func (s *HeaderSetter) Set(h http.Header, name, value string) {
	if len(s.block) == cap(s.block) {
		s.block = make([]string, 0, 4)
	}
	n := len(s.block)
	s.block = append(s.block, value)
	// Full slice expression: an Add by someone else copies, never
	// overwrites the next field's value.
	h[CanonicalHeaderKey(name)] = s.block[n : n+1 : n+1]
}

// Reset forgets the block, so the next Set starts a new one.
func (s *HeaderSetter) Reset() { s.block = nil }
