// Package auth is one of two packages of the same name with context keys
// of the same type names, as two authentication libraries may have: the
// keyfuncs tests check that FromContext keeps their keys apart.
package auth

// Key is a context key type.
type Key struct{}

// UserKey is a context key of pointer type, declared as net/http declares
// its own.
var UserKey = &contextKey{"user"}

type contextKey struct{ name string }
