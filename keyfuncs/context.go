package keyfuncs

import (
	"fmt"
	"reflect"
	"strconv"
)

// FromContext keys requests by a value that earlier middleware stored in the
// request context under ctxKey, typically a user or organisation id set by
// authentication. The value may be a string, a fmt.Stringer or any integer
// type, named types included (type userID int64); a String method wins.
// When it is missing, nil (also a nil pointer), empty or of another type,
// the key comes from fallback; a nil fallback gives ErrNoKey. A ctxKey that
// no context can hold, nil or of a type that is not comparable, is a
// mistake: every request then fails with an error wrapping ErrNoKey and
// core.ErrInvalidConfig.
//
// The key is "ctx:", a name for ctxKey, ':' and the value, e.g.
// "ctx:example.com/app/auth.userKey:42" (':' and '%' in the name written
// %XX), so user 42 and organisation 42 (under another context key) never
// share a quota. The name is the type of ctxKey, named by its package's
// import path, with its value when that is a string, bool or number:
// context key types of one name in two packages of one name (two "auth"
// libraries) get two namespaces. Distinct context keys of one other type
// (two pointers, say) share a namespace, and so do two types of one name
// declared inside two functions of one package. Versions before the
// import path was used named the package alone ("ctx:auth.userKey:42"):
// upgrading from one resets the counts of FromContext keys once.
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
	if ctxKey == nil || !reflect.TypeOf(ctxKey).Comparable() {
		return failing(misconfigured("FromContext: the context key %#v can hold no value (context.WithValue takes only a non-nil, comparable key)", ctxKey))
	}
	ns := tagContext + escapeBytes(contextKeyName(ctxKey), ":") + ":"
	return func(r Request) (string, error) {
		if k, ok := contextString(r.Context().Value(ctxKey)); ok && k != "" {
			return boundTagged(ns, k), nil
		}
		return orFallback(r, fallback)
	}
}

// contextKeyName names a context key in a way that is the same in every
// process: its type, and its value when that is a plain scalar.
func contextKeyName(k any) string {
	t := reflect.TypeOf(k)
	switch reflect.ValueOf(k).Kind() {
	case reflect.Bool, reflect.String,
		reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return fmt.Sprintf("%s(%v)", typeName(t), k)
	}
	return typeName(t)
}

// typeName names t by its package's import path, not the package's name
// as %T does: two packages named auth, each with a type key, must give
// two names. A pointer, slice, array, map or channel type is named after
// its elements; a predeclared or other unnamed type by its text ("string",
// "struct {}").
func typeName(t reflect.Type) string {
	if t == nil {
		return "<nil>"
	}
	if t.Name() != "" {
		if t.PkgPath() == "" {
			return t.Name() // predeclared: string, int, error
		}
		return t.PkgPath() + "." + t.Name()
	}
	switch t.Kind() {
	case reflect.Pointer:
		return "*" + typeName(t.Elem())
	case reflect.Slice:
		return "[]" + typeName(t.Elem())
	case reflect.Array:
		return "[" + strconv.Itoa(t.Len()) + "]" + typeName(t.Elem())
	case reflect.Map:
		return "map[" + typeName(t.Key()) + "]" + typeName(t.Elem())
	case reflect.Chan:
		return t.ChanDir().String() + " " + typeName(t.Elem())
	}
	return t.String()
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
	// A named string or integer type without a String method (type
	// userID int64) is a string or an integer too.
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.String:
		return rv.String(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return strconv.FormatInt(rv.Int(), 10), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return strconv.FormatUint(rv.Uint(), 10), true
	}
	return "", false
}
