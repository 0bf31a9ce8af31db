// Package nilness tells a nil inside an interface value apart from a
// usable one.
package nilness

import "reflect"

// IsNil reports whether v is nil or holds a nil pointer, map, slice,
// func or channel: such as the *redisstore.Store of a constructor whose
// error was ignored, which compares unequal to nil as a core.Store yet
// fails on its first call.
func IsNil(v any) bool {
	if v == nil {
		return true
	}
	switch rv := reflect.ValueOf(v); rv.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return rv.IsNil()
	}
	return false
}
