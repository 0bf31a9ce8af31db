package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
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
		return nil, fmt.Errorf("parse: %w", err)
	}
	if err := dec.Decode(&struct{}{}); !errors.Is(err, io.EOF) {
		return nil, errors.New("parse: unexpected data after the JSON document")
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
	dec = json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var f file
	if err := dec.Decode(&f); err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	return &f, nil
}
