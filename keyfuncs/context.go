package keyfuncs

import (
	"fmt"
	"reflect"
	"strconv"
)

// FromContext keys requests by a value that earlier middleware stored in the
// request context under ctxKey, typically a user or organisation id set by
// authentication. The value may be a string, a fmt.Stringer or any integer
// type. When it is missing, nil (also a nil pointer), empty or of another
// type, the key comes from fallback; a nil fallback gives ErrNoKey.
//
// The key is "ctx:", a name for ctxKey, ':' and the value, e.g.
// "ctx:main.userKey:42", so user 42 and organisation 42 (under another
// context key) never share a quota. The name is the type of ctxKey, with
// its value when that is a string, bool or number; distinct context keys of
// one other type (two pointers, say) share a namespace.
//
// The context is the request's context.Context (Request.Context): the
// *http.Request's with net/http, Gin (c.Request) and Echo (c.Request()),
// and c.UserContext() with Fiber. Values a framework keeps on its own
// context object, Gin's and Echo's c.Set or Fiber's c.Locals, are not in
// it: the key then silently comes from fallback. Have the authentication
// middleware put the id in the request's context as well
// (c.Request = c.Request.WithContext(ctx) in Gin, c.SetRequest in Echo,
// c.SetUserContext in Fiber).
func FromContext(ctxKey any, fallback KeyFunc) KeyFunc {
	ns := tagContext + escapeBytes(contextKeyName(ctxKey), ":") + ":"
	return func(r Request) (string, error) {
		if k, ok := contextString(r.Context().Value(ctxKey)); ok && k != "" {
			return boundKey(ns+k, maxKeyLen), nil
		}
		return orFallback(r, fallback)
	}
}

// contextKeyName names a context key in a way that is the same in every
// process: its type, and its value when that is a plain scalar.
func contextKeyName(k any) string {
	switch reflect.ValueOf(k).Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return fmt.Sprintf("%T(%v)", k, k)
	}
	return fmt.Sprintf("%T", k)
}

// contextString renders a context value as a key.
func contextString(v any) (string, bool) {
	switch v := v.(type) {
	case string:
		return v, true
	case fmt.Stringer:
		if rv := reflect.ValueOf(v); rv.Kind() == reflect.Pointer && rv.IsNil() {
			return "", false // a typed nil: its String method may not cope
		}
		return v.String(), true
	case int:
		return strconv.FormatInt(int64(v), 10), true
	case int8:
		return strconv.FormatInt(int64(v), 10), true
	case int16:
		return strconv.FormatInt(int64(v), 10), true
	case int32:
		return strconv.FormatInt(int64(v), 10), true
	case int64:
		return strconv.FormatInt(v, 10), true
	case uint:
		return strconv.FormatUint(uint64(v), 10), true
	case uint8:
		return strconv.FormatUint(uint64(v), 10), true
	case uint16:
		return strconv.FormatUint(uint64(v), 10), true
	case uint32:
		return strconv.FormatUint(uint64(v), 10), true
	case uint64:
		return strconv.FormatUint(v, 10), true
	}
	return "", false
}
