package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// checkShape checks that v, a JSON value read by readTree, fits the type t
// of the file's structs: every object key a field, given once, every value
// of the field's JSON type. encoding/json reports such mistakes without the
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
		o, ok := v.(object)
		if !ok {
			return shapeError(path, "an object", v)
		}
		set := map[string]string{} // field name → the key that set it
		for _, m := range o {
			f, ok := jsonField(t, m.key)
			if !ok {
				return fieldError(path, fmt.Errorf("unknown field %q", m.key))
			}
			if k, dup := set[f.Name]; dup {
				if k == m.key {
					return fieldError(path, fmt.Errorf("%q is given twice", m.key))
				}
				return fieldError(path, fmt.Errorf("%q is given twice (as %q too)", m.key, k))
			}
			set[f.Name] = m.key
			if err := checkShape(m.value, f.Type, join(path, m.key)); err != nil {
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
		o, ok := v.(object)
		if !ok {
			return shapeError(path, "an object", v)
		}
		set := map[string]bool{}
		for _, m := range o {
			if set[m.key] {
				return fieldError(path, fmt.Errorf("%q is given twice", m.key))
			}
			set[m.key] = true
			if err := checkShape(m.value, t.Elem(), path+"["+strconv.Quote(m.key)+"]"); err != nil {
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
			if errors.Is(err, strconv.ErrRange) {
				// An integer all the same: "must be an integer" would
				// send the operator looking for a decimal point.
				return fmt.Errorf("%s: %s is out of range (too many digits)", path, n)
			}
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

// fieldError puts path, if any, in front of err.
func fieldError(path string, err error) error {
	if path == "" {
		return err
	}
	return fmt.Errorf("%s: %w", path, err)
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
	case object:
		kind = "an object"
	default:
		kind = fmt.Sprintf("%T", got)
	}
	if path == "" {
		path = "the document"
	}
	return fmt.Errorf("%s: must be %s, got %s", path, want, kind)
}

// object is a JSON object with its members in the order of the file,
// duplicates kept, so that checkShape can find them.
type object []member

type member struct {
	key   string
	value any
}

// readTree reads one JSON value from dec, made with UseNumber: objects
// as object, arrays as []any, numbers as json.Number. The value must have
// been checked as valid JSON already (which bounds its nesting).
func readTree(dec *json.Decoder) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch tok {
	case json.Delim('{'):
		o := object{}
		for dec.More() {
			k, err := dec.Token()
			if err != nil {
				return nil, err
			}
			v, err := readTree(dec)
			if err != nil {
				return nil, err
			}
			key, _ := k.(string)
			o = append(o, member{key: key, value: v})
		}
		_, err = dec.Token() // '}'
		return o, err
	case json.Delim('['):
		a := []any{}
		for dec.More() {
			v, err := readTree(dec)
			if err != nil {
				return nil, err
			}
			a = append(a, v)
		}
		_, err = dec.Token() // ']'
		return a, err
	}
	return tok, nil
}
