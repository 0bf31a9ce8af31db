package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"unicode/utf8"
)

// file is the JSON document.
type file struct {
	TenantHeader   string       `json:"tenant_header"`
	TrustedProxies []string     `json:"trusted_proxies"`
	Routes         []routeEntry `json:"routes"`
}

type routeEntry struct {
	Name     string            `json:"name"`
	Match    []string          `json:"match"`
	Key      string            `json:"key"`
	Policies []policyEntry     `json:"policies"`
	Mode     string            `json:"mode"`
	Tenants  map[string]string `json:"tenants"`
}

type policyEntry struct {
	Name      string `json:"name"`
	Limit     *int64 `json:"limit"`
	Window    string `json:"window"`
	Algorithm string `json:"algorithm"`
}

// decode reads one JSON document. Unknown fields are errors, so a typo
// ("windw") cannot silently drop a setting, and so are keys given twice.
// Every mistake of shape (an unknown field, a key given twice, a value of
// the wrong JSON type) is reported with the field's place in the file.
func decode(data []byte) (*file, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	var doc json.RawMessage
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			// "parse: EOF" would not say that nothing was there: a file
			// truncated to be rewritten in place, read before the write.
			return nil, errors.New(`parse: the file is empty (or only white space); want a JSON object with "routes"`)
		}
		return nil, syntaxError(data, err)
	}
	end := dec.InputOffset()
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		rest := bytes.TrimLeft(data[end:], " \t\r\n")
		line, col := position(data, int64(len(data)-len(rest)))
		return nil, fmt.Errorf("parse: unexpected data after the JSON document at line %d, column %d", line, col)
	}
	tdec := json.NewDecoder(bytes.NewReader(doc))
	tdec.UseNumber()
	raw, err := readTree(tdec)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if err := checkShape(raw, reflect.TypeFor[file](), ""); err != nil {
		return nil, err
	}
	// Unmarshal of the document: a Decoder would copy it whole into its
	// buffer once more. checkShape has refused every unknown field.
	var f file
	if err := json.Unmarshal(doc, &f); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return &f, nil
}

// syntaxError is err, an error of decoding data as JSON, with the line and
// column where it was found: "invalid character '}'" alone leaves an
// operator to search a long file for a stray comma.
func syntaxError(data []byte, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		// Offset counts the bytes read, the offending one included.
		line, col := position(data, se.Offset-1)
		if se.Offset == 1 && bytes.HasPrefix(data, []byte("\uFEFF")) {
			// 'ï' at line 1, column 1 shows nothing an editor shows.
			return fmt.Errorf("parse: %w at line 1, column 1: the file starts with a byte order mark (save it as UTF-8 without BOM)", err)
		}
		if se.Offset == 1 && (bytes.HasPrefix(data, []byte{0xff, 0xfe}) || bytes.HasPrefix(data, []byte{0xfe, 0xff})) {
			// Windows PowerShell's "> limits.json" writes UTF-16 with
			// its byte order mark, which an editor shows as nothing.
			return fmt.Errorf("parse: %w at line 1, column 1: the file is UTF-16 (save it as UTF-8)", err)
		}
		return fmt.Errorf("parse: %w at line %d, column %d", err, line, col)
	case errors.Is(err, io.ErrUnexpectedEOF):
		// A bracket or a string left open: a file cut short, perhaps
		// read while it was being written in place.
		line, col := position(data, int64(len(data)))
		return fmt.Errorf("parse: %w at line %d, column %d: the file ends inside the JSON document (cut short?)", err, line, col)
	}
	return fmt.Errorf("parse: %w", err)
}

// position gives the line and column (both from 1) of the byte at offset
// off of data. The column counts characters, as an editor does, not
// bytes: "検索" before the mistake would move a byte count six columns
// on, not two.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = 1 + utf8.RuneCount(before[bytes.LastIndexByte(before, '\n')+1:])
	return line, col
}
