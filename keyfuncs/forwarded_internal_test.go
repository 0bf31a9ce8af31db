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
	p := fwdParser{s: s}
	var out []fwdElem
	for p.more() {
		v, ok := p.element()
		out = append(out, fwdElem{v, ok})
	}
	return out
}

// A malformed element is skipped up to the next comma outside quotes, with
// escaped quotes honoured, so one bad element never splits into several.
func TestForwardedSkipsMalformedElement(t *testing.T) {
	tests := []struct {
		in   string
		want []fwdElem
	}{
		{`a==1;b="x,\"y,z", for=192.0.2.1`, []fwdElem{{"", false}, {"192.0.2.1", true}}},
		{`for=192.0.2.9;x="a, for=6.6.6.6";=bad, for=192.0.2.1`, []fwdElem{{"", false}, {"192.0.2.1", true}}},
		{`for=192.0.2.9 junk "q,q" , for=192.0.2.1`, []fwdElem{{"", false}, {"192.0.2.1", true}}},
		{`for=192.0.2.9;x="open`, []fwdElem{{"", false}}},
		{`for="[2001:db8::1]:80";proto=https;by="[::1]"`, []fwdElem{{"[2001:db8::1]:80", true}}},
		{`;;for=192.0.2.1;;`, []fwdElem{{"192.0.2.1", true}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			assert.Equal(t, tt.want, fwdElements(tt.in))
		})
	}
}
