package keyfuncs_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// A list of trusted ranges that together hold every address of a family
// trusts every address as surely as "0.0.0.0/0" does: every entry of a
// forwarding chain is skipped, and the leftmost, which the client wrote,
// becomes its key. Such a list is refused at construction, however it is
// cut up, and the error names the field.
func TestNewClientIPRefusesRangesCoveringEveryAddress(t *testing.T) {
	for _, list := range [][]string{
		{"0.0.0.0/1", "128.0.0.0/1"},
		{"128.0.0.0/1", "10.0.0.0/8", "0.0.0.0/2", "64.0.0.0/2"},
		{"::ffff:0.0.0.0/97", "::ffff:128.0.0.0/97"},
		{"0.0.0.0/1", "::ffff:128.0.0.0/97"},
		{"::/1", "8000::/1"},
		{"8000::/2", "::/1", "c000::/2", "2001:db8::1"},
		// Overlapping ranges, and ranges given with host bits set.
		{"0.0.0.0/1", "0.0.0.0/2", "127.255.255.255/1", "192.0.0.0/2", "128.0.0.1/2"},
	} {
		t.Run(strings.Join(list, " "), func(t *testing.T) {
			f, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: list})
			require.Error(t, err, "a list trusting every address was accepted")
			assert.Nil(t, f)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "ClientIPConfig.TrustedProxies")
		})
	}
}

// Lists that leave even one address out, or cover one family only in
// part, are proxies' ranges like any other and are accepted; so are lists
// that cover much of both families.
func TestNewClientIPAcceptsRangesWithAGap(t *testing.T) {
	for _, list := range [][]string{
		{"0.0.0.0/1", "128.0.0.0/2", "192.0.0.0/3", "224.0.0.0/4", "240.0.0.0/5", "248.0.0.0/6", "252.0.0.0/7", "254.0.0.0/8", "255.0.0.0/9"},
		{"0.0.0.1/32", "0.0.0.2/31", "0.0.0.4/30", "0.0.0.8/29", "0.0.0.16/28", "0.0.0.32/27", "0.0.0.64/26", "0.0.0.128/25", "0.0.1.0/24", "0.0.2.0/23", "0.0.4.0/22", "0.0.8.0/21", "0.0.16.0/20", "0.0.32.0/19", "0.0.64.0/18", "0.0.128.0/17", "0.1.0.0/16", "0.2.0.0/15", "0.4.0.0/14", "0.8.0.0/13", "0.16.0.0/12", "0.32.0.0/11", "0.64.0.0/10", "0.128.0.0/9", "1.0.0.0/8", "2.0.0.0/7", "4.0.0.0/6", "8.0.0.0/5", "16.0.0.0/4", "32.0.0.0/3", "64.0.0.0/2", "128.0.0.0/1"},
		{"0.0.0.0/1", "8000::/1"},
		{"::/1", "8000::/2", "c000::/3", "e000::/4", "ffff:ffff:ffff:ffff:ffff:ffff:ffff:fffe/127"},
		{"10.0.0.0/8", "10.0.0.0/16", "10.1.2.3"},
	} {
		t.Run(strings.Join(list, " "), func(t *testing.T) {
			_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: list})
			require.NoError(t, err)
		})
	}
}
