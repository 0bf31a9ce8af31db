package keyfuncs

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

type fwdElem struct {
	forValue string
	ok       bool
}

func fwdElements(s string) []fwdElem {
	var out []fwdElem
	for s != "" {
		var item string
		item, s = lastElement(s)
		if trimOWS(item) == "" {
			continue
		}
		p := fwdParser{s: item}
		v, ok := p.element()
		out = append([]fwdElem{{v, ok}}, out...)
	}
	return out
}

// Elements split at commas outside quoted strings, escaped quotes honoured,
// so one bad element never splits into several; a malformed element is one
// unparsable entry.
func TestForwardedSkipsMalformedElement(t *testing.T) {
	tests := []struct {
		in   string
		want []fwdElem
	}{
		{`a==1;b="x,\"y,z", for=192.0.2.1`, []fwdElem{{"", false}, {"192.0.2.1", true}}},
		{`for=192.0.2.9;x="a, for=6.6.6.6";=bad, for=192.0.2.1`, []fwdElem{{"", false}, {"192.0.2.1", true}}},
		{`for=192.0.2.9 junk "q,q" , for=192.0.2.1`, []fwdElem{{"", false}, {"192.0.2.1", true}}},
		{`for=192.0.2.9;x="open`, []fwdElem{{"", false}}},
		{`for=192.0.2.9;x="a\\", for=192.0.2.1`, []fwdElem{{"192.0.2.9", true}, {"192.0.2.1", true}}},
		{`x="a\"b", for=192.0.2.1`, []fwdElem{{"", false}, {"192.0.2.1", true}}},
		{`for=192.0.2.1 trailing`, []fwdElem{{"", false}}},
		{`for=192.0.2.1;for=192.0.2.2`, []fwdElem{{"", false}}},
		{`proto=https`, []fwdElem{{"", false}}},
		{`for="[2001:db8::1]:80";proto=https;by="[::1]"`, []fwdElem{{"[2001:db8::1]:80", true}}},
		{`;;for=192.0.2.1;;`, []fwdElem{{"192.0.2.1", true}}},
		{`,for=192.0.2.1`, []fwdElem{{"192.0.2.1", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, fwdElements(tt.in))
		})
	}
}

// escaped counts the backslashes before a quote, up to the start of the
// line: an odd number escapes it.
func TestEscaped(t *testing.T) {
	for _, tt := range []struct {
		line string
		want bool
	}{
		{`"`, false},
		{`\"`, true},
		{`\\"`, false},
		{`a\\\"`, true},
		{`a\\"`, false},
		{`\a"`, false},
	} {
		assert.Equal(t, tt.want, escaped(tt.line, len(tt.line)-1), tt.line)
	}
}
