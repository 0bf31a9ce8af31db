package headers_test

import (
	"encoding/base64"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// A strict parser for Structured Field Lists (RFC 9651, section 4.2),
// written for these tests from the RFC's parsing algorithms. It accepts
// Integers, Decimals, Strings, Tokens, Byte Sequences and Booleans as bare
// items, with parameters, and inner lists; anything else is an error.

// sfItem is one list member (inner lists are not produced by the writer and
// are rejected by the tests that use sfItem).
type sfItem struct {
	Value  any // int64, float64, string, sfToken, []byte, bool, []sfItem
	Params []sfParam
}

type sfParam struct {
	Key   string
	Value any
}

type sfToken string

// Param returns the value of the parameter named key.
func (it sfItem) Param(key string) (any, bool) {
	for _, p := range it.Params {
		if p.Key == key {
			return p.Value, true
		}
	}
	return nil, false
}

var errSF = errors.New("sf: parse error")

type sfParser struct{ s string }

func (p *sfParser) fail(what string) error {
	return fmt.Errorf("%w: %s at %q", errSF, what, p.s)
}

// parseSFList parses a whole field value as a List.
func parseSFList(field string) ([]sfItem, error) {
	p := &sfParser{s: strings.TrimLeft(field, " ")}
	var out []sfItem
	for p.s != "" {
		it, err := p.member()
		if err != nil {
			return nil, err
		}
		out = append(out, it)
		p.s = strings.TrimLeft(p.s, " \t")
		if p.s == "" {
			return out, nil
		}
		if p.s[0] != ',' {
			return nil, p.fail("expected comma")
		}
		p.s = strings.TrimLeft(p.s[1:], " \t")
		if p.s == "" {
			return nil, p.fail("trailing comma")
		}
	}
	return out, nil
}

func (p *sfParser) member() (sfItem, error) {
	if strings.HasPrefix(p.s, "(") {
		return p.innerList()
	}
	return p.item()
}

func (p *sfParser) innerList() (sfItem, error) {
	p.s = p.s[1:]
	var items []sfItem
	for p.s != "" {
		p.s = strings.TrimLeft(p.s, " ")
		if strings.HasPrefix(p.s, ")") {
			p.s = p.s[1:]
			params, err := p.params()
			return sfItem{Value: items, Params: params}, err
		}
		it, err := p.item()
		if err != nil {
			return sfItem{}, err
		}
		items = append(items, it)
		if p.s == "" || p.s[0] != ' ' && p.s[0] != ')' {
			return sfItem{}, p.fail("bad inner list")
		}
	}
	return sfItem{}, p.fail("unterminated inner list")
}

func (p *sfParser) item() (sfItem, error) {
	v, err := p.bareItem()
	if err != nil {
		return sfItem{}, err
	}
	params, err := p.params()
	return sfItem{Value: v, Params: params}, err
}

func (p *sfParser) params() ([]sfParam, error) {
	var out []sfParam
	for strings.HasPrefix(p.s, ";") {
		p.s = strings.TrimLeft(p.s[1:], " ")
		k, err := p.key()
		if err != nil {
			return nil, err
		}
		var v any = true
		if strings.HasPrefix(p.s, "=") {
			p.s = p.s[1:]
			if v, err = p.bareItem(); err != nil {
				return nil, err
			}
		}
		replaced := false
		for i := range out {
			if out[i].Key == k {
				out[i].Value, replaced = v, true
			}
		}
		if !replaced {
			out = append(out, sfParam{k, v})
		}
	}
	return out, nil
}

func (p *sfParser) key() (string, error) {
	if p.s == "" || !(p.s[0] >= 'a' && p.s[0] <= 'z' || p.s[0] == '*') {
		return "", p.fail("bad key")
	}
	i := 1
	for i < len(p.s) && (p.s[i] >= 'a' && p.s[i] <= 'z' || p.s[i] >= '0' && p.s[i] <= '9' || strings.IndexByte("_-.*", p.s[i]) >= 0) {
		i++
	}
	k := p.s[:i]
	p.s = p.s[i:]
	return k, nil
}

func (p *sfParser) bareItem() (any, error) {
	if p.s == "" {
		return nil, p.fail("missing bare item")
	}
	switch c := p.s[0]; {
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	case c == '"':
		return p.str()
	case c == '*' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		return p.token(), nil
	case c == ':':
		return p.bytes()
	case c == '?':
		if len(p.s) >= 2 && (p.s[1] == '0' || p.s[1] == '1') {
			v := p.s[1] == '1'
			p.s = p.s[2:]
			return v, nil
		}
	}
	return nil, p.fail("unknown bare item")
}

func (p *sfParser) number() (any, error) {
	i := 0
	if p.s[0] == '-' {
		i++
	}
	start, dot := i, -1
	for ; i < len(p.s); i++ {
		c := p.s[i]
		if c == '.' && dot < 0 {
			dot = i
			continue
		}
		if c < '0' || c > '9' {
			break
		}
	}
	num := p.s[:i]
	digits := i - start
	if digits == 0 || num[len(num)-1] == '.' {
		return nil, p.fail("bad number")
	}
	p.s = p.s[i:]
	if dot < 0 {
		if digits > 15 {
			return nil, p.fail("integer too long")
		}
		return strconv.ParseInt(num, 10, 64)
	}
	if dot-start > 12 || i-dot-1 > 3 {
		return nil, p.fail("bad decimal")
	}
	return strconv.ParseFloat(num, 64)
}

func (p *sfParser) str() (string, error) {
	var b strings.Builder
	for i := 1; i < len(p.s); i++ {
		c := p.s[i]
		switch {
		case c == '\\':
			i++
			if i >= len(p.s) || p.s[i] != '"' && p.s[i] != '\\' {
				return "", p.fail("bad escape")
			}
			b.WriteByte(p.s[i])
		case c == '"':
			p.s = p.s[i+1:]
			return b.String(), nil
		case c < 0x20 || c > 0x7e:
			return "", p.fail("bad string character")
		default:
			b.WriteByte(c)
		}
	}
	return "", p.fail("unterminated string")
}

func (p *sfParser) token() sfToken {
	i := 1
	for i < len(p.s) && (isTChar(p.s[i]) || p.s[i] == ':' || p.s[i] == '/') {
		i++
	}
	t := p.s[:i]
	p.s = p.s[i:]
	return sfToken(t)
}

func isTChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

func (p *sfParser) bytes() ([]byte, error) {
	end := strings.IndexByte(p.s[1:], ':')
	if end < 0 {
		return nil, p.fail("unterminated byte sequence")
	}
	enc := p.s[1 : 1+end]
	for i := 0; i < len(enc); i++ {
		c := enc[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '+' || c == '/' || c == '=') {
			return nil, p.fail("bad base64")
		}
	}
	p.s = p.s[end+2:]
	return base64.StdEncoding.DecodeString(enc)
}

// parseSFDict parses a whole field value as a Dictionary: each key's value
// (true for a bare key), in order.
func parseSFDict(field string) ([]string, map[string]any, error) {
	p := &sfParser{s: strings.TrimLeft(field, " ")}
	var keys []string
	out := map[string]any{}
	for p.s != "" {
		k, err := p.key()
		if err != nil {
			return nil, nil, err
		}
		var v any = true
		if strings.HasPrefix(p.s, "=") {
			p.s = p.s[1:]
			it, err := p.member()
			if err != nil {
				return nil, nil, err
			}
			v = it.Value
		} else if _, err := p.params(); err != nil {
			return nil, nil, err
		}
		keys = append(keys, k)
		out[k] = v
		p.s = strings.TrimLeft(p.s, " \t")
		if p.s == "" {
			break
		}
		if p.s[0] != ',' {
			return nil, nil, p.fail("expected comma")
		}
		p.s = strings.TrimLeft(p.s[1:], " \t")
		if p.s == "" {
			return nil, nil, p.fail("trailing comma")
		}
	}
	return keys, out, nil
}
