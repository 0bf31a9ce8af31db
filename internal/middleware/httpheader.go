package middleware

import (
	"fmt"
	"net/http"
	"net/textproto"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/headers"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

// headerWriter is w as the flow holds it, or an error wrapping
// core.ErrInvalidConfig for an unknown Mode.
func headerWriter(w headers.Writer) (headerfmt.Writer, error) {
	hw := headerfmt.Writer{
		Mode:            headerfmt.Mode(w.Mode),
		AllPolicies:     w.AllPolicies,
		LegacyEpoch:     w.LegacyEpoch,
		PartitionKey:    w.PartitionKey,
		PartitionSecret: w.PartitionSecret,
	}
	if !hw.Mode.Valid() {
		return headerfmt.Writer{}, fmt.Errorf("%w: headers: Writer.Mode: unknown mode %v", core.ErrInvalidConfig, w.Mode)
	}
	return hw, nil
}

// Canonical forms of the fields the flow writes, computed once so setting
// them on an http.Header does not canonicalise (and allocate) per request.
var (
	canonPolicy          = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldPolicy)
	canonRateLimit       = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldRateLimit)
	canonLimit           = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldLimit)
	canonRemaining       = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldRemaining)
	canonReset           = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldReset)
	canonLegacyLimit     = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldLegacyLimit)
	canonLegacyRemaining = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldLegacyRemaining)
	canonLegacyReset     = textproto.CanonicalMIMEHeaderKey(headerfmt.FieldLegacyReset)
)

// CanonicalHeaderKey is textproto.CanonicalMIMEHeaderKey, without the work
// for the rate-limit fields.
func CanonicalHeaderKey(name string) string {
	switch name {
	case headerfmt.FieldPolicy:
		return canonPolicy
	case headerfmt.FieldRateLimit:
		return canonRateLimit
	case headerfmt.FieldLimit:
		return canonLimit
	case headerfmt.FieldRemaining:
		return canonRemaining
	case headerfmt.FieldReset:
		return canonReset
	case headerfmt.FieldLegacyLimit:
		return canonLegacyLimit
	case headerfmt.FieldLegacyRemaining:
		return canonLegacyRemaining
	case headerfmt.FieldLegacyReset:
		return canonLegacyReset
	case headerfmt.FieldRetryAfter, "Content-Type":
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
