package keyfuncs

import (
	"strings"

	"github.com/ratewindow/ratewindow/internal/httptoken"
)

// fwdParser reads one element of an RFC 7239 Forwarded field value:
//
//	Forwarded: for=192.0.2.43, for="[2001:db8:cafe::17]:4711";proto=https
//
// Elements are separated by commas (split off by lastElement), parameters by
// semicolons, and values are tokens or quoted strings (which may hold commas
// and semicolons).
type fwdParser struct {
	s string
}

// element parses the whole input as one element and returns its for=
// value, unquoted. ok is false when the element has no for= parameter,
// more than one, or is malformed in any way.
func (p *fwdParser) element() (forValue string, ok bool) {
	found := false
	for {
		p.s = trimOWS(p.s)
		if p.s == "" {
			break
		}
		if p.s[0] == ';' {
			p.s = p.s[1:]
			continue
		}
		name, value, good := p.pair()
		if !good || strings.EqualFold(name, "for") && found {
			return "", false
		}
		if strings.EqualFold(name, "for") {
			found, forValue = true, value
		}
		if p.s = trimOWS(p.s); p.s != "" && p.s[0] != ';' {
			return "", false // junk after a value
		}
	}
	if !found {
		return "", false
	}
	return forValue, true
}

// pair consumes name=value.
func (p *fwdParser) pair() (name, value string, ok bool) {
	i := 0
	for i < len(p.s) && httptoken.Char(p.s[i]) {
		i++
	}
	if i == 0 || i >= len(p.s) || p.s[i] != '=' {
		return "", "", false
	}
	name, p.s = p.s[:i], p.s[i+1:]
	if p.s != "" && p.s[0] == '"' {
		v, rest, ok := unquote(p.s)
		if !ok {
			return "", "", false
		}
		p.s = rest
		return name, v, true
	}
	i = 0
	for i < len(p.s) && httptoken.Char(p.s[i]) {
		i++
	}
	if i == 0 {
		return "", "", false
	}
	value, p.s = p.s[:i], p.s[i:]
	return name, value, true
}

// unquote reads a quoted string at the start of s. Escapes (\x) are only
// resolved when present; addresses never need them, so a value holding one
// is returned with the backslash kept and will not parse as an address.
func unquote(s string) (value, rest string, ok bool) {
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case '"':
			return s[1:i], s[i+1:], true
		}
	}
	return "", "", false
}
