package keyfuncs_test

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// spellings returns ways a proxy or a peer address can write a: upper and
// lower case, leading zeros, the fully expanded form, a zone, brackets
// and a port, and for IPv4 the IPv4-mapped and NAT64 forms.
func spellings(a netip.Addr, rng *rand.Rand) []string {
	if a.Is4() {
		s := a.String()
		return []string{s, s + ":8080", "::ffff:" + s, "::FFFF:" + s, "[::ffff:" + s + "]:1", "64:ff9b::" + s, "[64:FF9B::" + s + "]:443"}
	}
	b := a.As16()
	var full, zeros []string
	for i := 0; i < 16; i += 2 {
		full = append(full, fmt.Sprintf("%02X%02x", b[i], b[i+1]))
		zeros = append(zeros, fmt.Sprintf("%04x", uint16(b[i])<<8|uint16(b[i+1])))
	}
	s := a.String()
	return []string{
		s, strings.ToUpper(s), strings.Join(full, ":"), strings.Join(zeros, ":"),
		s + "%eth" + fmt.Sprint(rng.IntN(9)), "[" + strings.ToUpper(s) + "]:" + fmt.Sprint(1+rng.IntN(65535)),
		"[" + strings.Join(zeros, ":") + "%25x]",
	}
}

// However a proxy spells a client's address, and wherever it writes it
// (X-Forwarded-For, Forwarded, X-Real-IP, or as the peer itself), the
// client has one key: a client whose proxy chain spells it differently, or
// who reaches the server both directly and through a proxy, never gets a
// quota per spelling. IPv6 clients of one /64 share it.
func TestClientIPOneKeyPerClientHoweverSpelt(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	xff, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: proxies})
	require.NoError(t, err)
	fwd, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: proxies, Headers: []string{"Forwarded"}})
	require.NoError(t, err)
	real, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: proxies, Headers: []string{"X-Real-IP"}})
	require.NoError(t, err)

	for range 300 {
		a := randomAddr(rng)
		want := wantKey(a, 64)
		if a.Is6() {
			// Another address of the same /64 is the same client.
			b := a.As16()
			b[15] ^= byte(1 + rng.IntN(255))
			a2 := netip.AddrFrom16(b)
			require.Equal(t, want, wantKey(a2, 64))
		}
		for _, s := range spellings(a, rng) {
			quoted := forwardedFor(s)
			for name, got := range map[string]func() (string, error){
				"peer": func() (string, error) {
					peer := s
					if !strings.HasPrefix(s, "[") && strings.Count(s, ":") > 1 {
						peer = "[" + s + "]:1"
					}
					return keyfuncs.RemoteIP(req(peer))
				},
				"X-Forwarded-For": func() (string, error) {
					return xff(req("10.0.0.1:1", "X-Forwarded-For", "198.51.100.200, "+s+", 10.0.0.2"))
				},
				"Forwarded": func() (string, error) {
					return fwd(req("10.0.0.1:1", "Forwarded", "for=198.51.100.200, for="+quoted+";proto=https, for=10.0.0.2"))
				},
				"X-Real-IP": func() (string, error) {
					return real(req("10.0.0.1:1", "X-Real-IP", s))
				},
			} {
				k, err := got()
				require.NoError(t, err, "%s %q", name, s)
				require.Equal(t, want, k, "%s %q", name, s)
			}
		}
	}
}

// forwardedFor writes address s as RFC 7239 wants a for= value: a bare
// IPv4 address as a token, anything with a colon quoted, and an IPv6
// address in brackets.
func forwardedFor(s string) string {
	switch {
	case !strings.Contains(s, ":"):
		return s
	case strings.HasPrefix(s, "[") || strings.Count(s, ":") == 1:
		return `"` + s + `"`
	}
	return `"[` + s + `]"`
}
