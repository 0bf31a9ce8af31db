package config

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
)

// checkShape checks that v, a JSON value decoded with UseNumber, fits the
// type t of the file's structs: every object key a field, every value of
// the field's JSON type. encoding/json reports such mistakes without the
// index of the route or policy they are in ("routes.policies.window"), or
// without any place at all (an unknown field); the error here names the
// field as the other checks do: routes[1].policies[0].window.
func checkShape(v any, t reflect.Type, path string) error {
	if v == nil {
		return nil // null leaves the field unset, as encoding/json does
	}
	switch t.Kind() {
	case reflect.Pointer:
		return checkShape(v, t.Elem(), path)
	case reflect.Struct:
		m, ok := v.(map[string]any)
		if !ok {
			return shapeError(path, "an object", v)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			f, ok := jsonField(t, k)
			if !ok {
				if path == "" {
					return fmt.Errorf("unknown field %q", k)
				}
				return fmt.Errorf("%s: unknown field %q", path, k)
			}
			if err := checkShape(m[k], f.Type, join(path, k)); err != nil {
				return err
			}
		}
	case reflect.Slice:
		a, ok := v.([]any)
		if !ok {
			return shapeError(path, "an array", v)
		}
		for i, e := range a {
			if err := checkShape(e, t.Elem(), path+"["+strconv.Itoa(i)+"]"); err != nil {
				return err
			}
		}
	case reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			return shapeError(path, "an object", v)
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if err := checkShape(m[k], t.Elem(), path+"["+strconv.Quote(k)+"]"); err != nil {
				return err
			}
		}
	case reflect.String:
		if _, ok := v.(string); !ok {
			return shapeError(path, "a string", v)
		}
	case reflect.Int64:
		n, ok := v.(json.Number)
		if !ok {
			return shapeError(path, "an integer", v)
		}
		if _, err := strconv.ParseInt(string(n), 10, 64); err != nil {
			return fmt.Errorf("%s: must be an integer, got %s", path, n)
		}
	}
	return nil
}

// jsonField finds the field of struct t that encoding/json decodes key
// into: its tag name, else one equal under case folding.
func jsonField(t reflect.Type, key string) (reflect.StructField, bool) {
	var folded reflect.StructField
	found := false
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == key {
			return f, true
		}
		if !found && strings.EqualFold(name, key) {
			folded, found = f, true
		}
	}
	return folded, found
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// shapeError says that the value at path is not of the kind wanted.
func shapeError(path, want string, got any) error {
	var kind string
	switch g := got.(type) {
	case string:
		kind = "a string " + strconv.Quote(g)
	case json.Number:
		kind = "the number " + string(g)
	case bool:
		kind = "a boolean"
	case []any:
		kind = "an array"
	case map[string]any:
		kind = "an object"
	default:
		kind = fmt.Sprintf("%T", got)
	}
	if path == "" {
		path = "the document"
	}
	return fmt.Errorf("%s: must be %s, got %s", path, want, kind)
}
