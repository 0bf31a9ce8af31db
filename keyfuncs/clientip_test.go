package keyfuncs_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// The addresses used below: 10.0.0.0/8 and 2001:db8:ffff::/48 are our
// proxies; 192.0.2.0/24, 198.51.100.0/24 and 203.0.113.0/24 are clients.
var proxies = []string{"10.0.0.0/8", "2001:db8:ffff::/48", "172.16.5.5"}

func mustClientIP(t testing.TB, cfg keyfuncs.ClientIPConfig) keyfuncs.KeyFunc {
	t.Helper()
	f, err := keyfuncs.NewClientIP(cfg)
	require.NoError(t, err)
	return f
}

func TestNewClientIPConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		cfg   keyfuncs.ClientIPConfig
		field string
	}{
		{"bad cidr", keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/33"}}, "TrustedProxies[0]"},
		{"not an address", keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.1", "proxy.local"}}, "TrustedProxies[1]"},
		{"empty entry", keyfuncs.ClientIPConfig{TrustedProxies: []string{""}}, "TrustedProxies[0]"},
		{"negative hops", keyfuncs.ClientIPConfig{TrustedHops: -1}, "TrustedHops"},
		{"every IPv4 address trusted", keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8", "0.0.0.0/0"}}, "TrustedProxies[1]"},
		{"every IPv6 address trusted", keyfuncs.ClientIPConfig{TrustedProxies: []string{"::/0"}}, "TrustedProxies[0]"},
		{"every IPv4 address trusted, mapped", keyfuncs.ClientIPConfig{TrustedProxies: []string{"::ffff:0.0.0.0/96"}}, "TrustedProxies[0]"},
		{"prefix too long", keyfuncs.ClientIPConfig{IPv6Prefix: 129}, "IPv6Prefix"},
		{"prefix negative", keyfuncs.ClientIPConfig{IPv6Prefix: -8}, "IPv6Prefix"},
		{"empty header name", keyfuncs.ClientIPConfig{Headers: []string{""}}, "Headers[0]"},
		{"header name with space", keyfuncs.ClientIPConfig{Headers: []string{"X-Forwarded-For", "X Real IP"}}, "Headers[1]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := keyfuncs.NewClientIP(tt.cfg)
			require.Error(t, err)
			assert.Nil(t, f)
			assert.ErrorIs(t, err, core.ErrInvalidConfig)
			assert.Contains(t, err.Error(), "ClientIPConfig."+tt.field)
		})
	}
}

// Proxies read from one environment variable or flag ("10.0.0.0/8,
// 192.168.0.0/16") and passed as one element are a likely mistake: the
// error says what to do about it.
func TestNewClientIPSaysToSplitJoinedProxies(t *testing.T) {
	for _, joined := range []string{"10.0.0.0/8,192.168.0.0/16", "10.0.0.1, 10.0.0.2", "10.0.0.0/8 192.168.0.0/16"} {
		_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{joined}})
		require.ErrorIs(t, err, core.ErrInvalidConfig)
		assert.Contains(t, err.Error(), "give each its own element", joined)
	}
	_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/33"}})
	require.ErrorIs(t, err, core.ErrInvalidConfig)
	assert.NotContains(t, err.Error(), "own element")
}

func TestNewClientIPAcceptsForms(t *testing.T) {
	_, err := keyfuncs.NewClientIP(keyfuncs.ClientIPConfig{
		TrustedProxies: []string{"10.0.0.0/8", "10.1.2.3/8", "192.0.2.1", "::1", "2001:db8::/32", "::ffff:10.0.0.0/104", " 172.16.0.0/12 "},
		Headers:        []string{"x-forwarded-for", "FORWARDED", "X-Real-IP", "CF-Connecting-IP"},
		IPv6Prefix:     128,
		TrustedHops:    2,
	})
	require.NoError(t, err)
}

func TestClientIPDefaultTrustsNoHeader(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{})
	r := req("198.51.100.9:1000",
		"X-Forwarded-For", "203.0.113.1",
		"Forwarded", "for=203.0.113.2",
		"X-Real-IP", "203.0.113.3")
	got, err := f(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:198.51.100.9", got)
}

func TestClientIPXForwardedFor(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies})
	tests := []struct {
		name   string
		remote string
		xff    []string // one entry per header line
		want   string
	}{
		{"untrusted peer: header ignored", "198.51.100.9:1", []string{"203.0.113.1"}, "198.51.100.9"},
		{"trusted peer, one client", "10.0.0.1:1", []string{"203.0.113.1"}, "203.0.113.1"},
		{"chain through two proxies", "10.0.0.1:1", []string{"203.0.113.1, 10.2.2.2"}, "203.0.113.1"},
		{"client-supplied entries on the left are not read", "10.0.0.1:1", []string{"1.1.1.1, 2.2.2.2, 203.0.113.1, 10.2.2.2"}, "203.0.113.1"},
		{"spoofed trusted-looking entry left of the client", "10.0.0.1:1", []string{"10.9.9.9, 203.0.113.1"}, "203.0.113.1"},
		{"single trusted ip entry skipped", "10.0.0.1:1", []string{"203.0.113.1, 172.16.5.5"}, "203.0.113.1"},
		{"repeated headers are joined in order", "10.0.0.1:1", []string{"1.1.1.1, 203.0.113.1", "10.2.2.2"}, "203.0.113.1"},
		{"repeated headers, client in the second", "10.0.0.1:1", []string{"1.1.1.1", "203.0.113.1, 10.2.2.2"}, "203.0.113.1"},
		{"entries with ports", "10.0.0.1:1", []string{"203.0.113.1:5555, [2001:db8:ffff::1]:80"}, "203.0.113.1"},
		{"ipv6 client grouped", "[2001:db8:ffff::2]:1", []string{"2001:db8:aa:bb:1:2:3:4"}, "2001:db8:aa:bb::/64"},
		{"ipv4-mapped client normalised", "10.0.0.1:1", []string{"::ffff:203.0.113.1"}, "203.0.113.1"},
		{"ipv4-mapped proxy trusted", "[::ffff:10.0.0.1]:1", []string{"203.0.113.1, ::ffff:10.3.3.3"}, "203.0.113.1"},
		{"empty list elements ignored", "10.0.0.1:1", []string{" , 203.0.113.1,, 10.2.2.2 ,"}, "203.0.113.1"},
		{"tabs and spaces", "10.0.0.1:1", []string{"\t203.0.113.1 ,\t10.2.2.2\t"}, "203.0.113.1"},
		{"all trusted: leftmost", "10.0.0.1:1", []string{"10.5.5.5, 10.2.2.2"}, "10.5.5.5"},
		{"empty header: peer", "10.0.0.1:1", []string{""}, "10.0.0.1"},
		{"only commas: peer", "10.0.0.1:1", []string{",,,"}, "10.0.0.1"},
		{"garbage right after peer: peer", "10.0.0.1:1", []string{"203.0.113.1, garbage"}, "10.0.0.1"},
		{"garbage after a proxy: that proxy", "10.0.0.1:1", []string{"203.0.113.1, unknown, 10.2.2.2"}, "10.2.2.2"},
		{"garbage left of the client never read", "10.0.0.1:1", []string{"<script>, 203.0.113.1"}, "203.0.113.1"},
		{"hostname is garbage", "10.0.0.1:1", []string{"client.example"}, "10.0.0.1"},
		{"bad port is garbage", "10.0.0.1:1", []string{"203.0.113.1:http"}, "10.0.0.1"},
		{"quoted value is garbage", "10.0.0.1:1", []string{`"203.0.113.1"`}, "10.0.0.1"},
		{"out of range octet is garbage", "10.0.0.1:1", []string{"203.0.113.256"}, "10.0.0.1"},
		{"leading zeros are garbage", "10.0.0.1:1", []string{"203.0.113.01"}, "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req(tt.remote)
			r.Headers["X-Forwarded-For"] = tt.xff
			got, err := f(r)
			require.NoError(t, err)
			assert.Equal(t, ipKey(tt.want), got)
		})
	}
}

func TestClientIPLowercaseHeaderMap(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies})
	got, err := f(req("10.0.0.1:1", "x-forwarded-for", "203.0.113.1"))
	require.NoError(t, err)
	assert.Equal(t, "ip:203.0.113.1", got)
}

// Whatever a client writes on the left of X-Forwarded-For, the key is the
// address our outermost proxy saw.
func TestClientIPSpoofingRandomLeftEntries(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies})
	rng := rand.New(rand.NewPCG(1, 2))
	junk := []string{"1.2.3.4", "10.0.0.1", "::1", "garbage", "", "unknown", "[::1]:80", "2001:db8:ffff::1", "999.1.1.1", "\x00", strings.Repeat("9", 100)}
	for i := 0; i < 500; i++ {
		var left []string
		for n := rng.IntN(40); n > 0; n-- {
			if rng.IntN(2) == 0 {
				left = append(left, junk[rng.IntN(len(junk))])
			} else {
				left = append(left, fmt.Sprintf("%d.%d.%d.%d", rng.IntN(256), rng.IntN(256), rng.IntN(256), rng.IntN(256)))
			}
		}
		// The client's own header, then what our two proxies appended.
		lines := []string{strings.Join(left, ", ")}
		if rng.IntN(2) == 0 {
			lines = []string{strings.Join(append(left, "203.0.113.77"), ","), "10.2.2.2"}
		} else {
			lines[0] += ", 203.0.113.77, 10.2.2.2"
		}
		r := req("10.0.0.1:443")
		r.Headers["X-Forwarded-For"] = lines
		got, err := f(r)
		require.NoError(t, err)
		require.Equal(t, "ip:203.0.113.77", got, "lines %q", lines)
	}
}

func TestClientIPTrustedHops(t *testing.T) {
	tests := []struct {
		name   string
		hops   int
		remote string
		xff    string
		want   string
	}{
		{"one proxy: rightmost entry", 1, "198.51.100.1:1", "1.1.1.1, 203.0.113.1", "203.0.113.1"},
		{"two proxies: second from the right", 2, "198.51.100.1:1", "1.1.1.1, 203.0.113.1, 198.51.100.2", "203.0.113.1"},
		{"three proxies", 3, "198.51.100.1:1", "203.0.113.1, 198.51.100.3, 198.51.100.2", "203.0.113.1"},
		{"shorter chain than hops: leftmost", 3, "198.51.100.1:1", "203.0.113.1", "203.0.113.1"},
		{"no header: peer", 1, "198.51.100.1:1", "", "198.51.100.1"},
		{"garbage at the client position: the proxy that wrote it", 2, "198.51.100.1:1", "1.1.1.1, nonsense, 198.51.100.2", "198.51.100.2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedHops: tt.hops})
			r := req(tt.remote)
			if tt.xff != "" {
				r.Headers["X-Forwarded-For"] = []string{tt.xff}
			}
			got, err := f(r)
			require.NoError(t, err)
			assert.Equal(t, ipKey(tt.want), got)
		})
	}
}

func TestClientIPHopsAndRanges(t *testing.T) {
	// One CDN hop of any address, then our own proxies in 10/8.
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedHops: 2, TrustedProxies: []string{"10.0.0.0/8"}})
	r := req("10.0.0.1:1", "X-Forwarded-For", "1.1.1.1, 203.0.113.1, 10.7.7.7, 198.51.100.200")
	got, err := f(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:203.0.113.1", got)
}

func TestClientIPForwarded(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies, Headers: []string{"Forwarded"}})
	tests := []struct {
		name  string
		lines []string
		want  string
	}{
		{"plain", []string{"for=203.0.113.1"}, "203.0.113.1"},
		{"case-insensitive parameter", []string{"For=203.0.113.1;PROTO=https"}, "203.0.113.1"},
		{"with other parameters", []string{"by=10.0.0.1;for=203.0.113.1;host=example.com;proto=https"}, "203.0.113.1"},
		{"quoted ipv4 with port", []string{`for="203.0.113.1:4711"`}, "203.0.113.1"},
		{"quoted bracketed ipv6 with port", []string{`for="[2001:db8:cafe::17]:4711"`}, "2001:db8:cafe::/64"},
		{"quoted bracketed ipv6", []string{`for="[2001:db8:cafe::17]"`}, "2001:db8:cafe::/64"},
		{"chain walked from the right", []string{"for=1.1.1.1, for=203.0.113.1, for=10.2.2.2"}, "203.0.113.1"},
		{"repeated fields joined", []string{"for=1.1.1.1, for=203.0.113.1", "for=10.2.2.2;proto=http"}, "203.0.113.1"},
		{"quoted comma and semicolon inside a value", []string{`for=1.1.1.1;host="a,b;c", for=203.0.113.1;host="x,y"`}, "203.0.113.1"},
		{"quoted string with escapes elsewhere", []string{`for=203.0.113.1;ext="a\"b,c"`}, "203.0.113.1"},
		{"unknown after a proxy: that proxy", []string{"for=203.0.113.1, for=unknown, for=10.2.2.2"}, "10.2.2.2"},
		{"obfuscated identifier: peer", []string{"for=_hidden"}, "10.0.0.1"},
		{"element without for: peer", []string{"proto=https;by=10.0.0.1"}, "10.0.0.1"},
		{"two for parameters in one element: peer", []string{"for=203.0.113.1;for=198.51.100.1"}, "10.0.0.1"},
		{"unterminated quote: peer", []string{`for="203.0.113.1`}, "10.0.0.1"},
		{"unquoted ipv6 is not a token: peer", []string{"for=[2001:db8::1]"}, "10.0.0.1"},
		{"missing value: peer", []string{"for="}, "10.0.0.1"},
		{"missing equals: peer", []string{"for"}, "10.0.0.1"},
		{"malformed element left of the client is never read", []string{`for="oops, for=203.0.113.1`, "for=198.51.100.7"}, "198.51.100.7"},
		{"empty elements ignored", []string{", ,for=203.0.113.1,,"}, "203.0.113.1"},
		{"client's open quote cannot swallow what the proxy appended", []string{`for="oops;x="y, for=203.0.113.1`}, "203.0.113.1"},
		{"client's quoted comma cannot split the proxy's element", []string{`x="a, for=6.6.6.6", for=203.0.113.1`}, "203.0.113.1"},
		{"bracketed ipv6 proxy element then the client", []string{`for=203.0.113.1, for="[2001:db8:ffff::9]:80"`}, "203.0.113.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := req("10.0.0.1:1")
			r.Headers["Forwarded"] = tt.lines
			got, err := f(r)
			require.NoError(t, err)
			assert.Equal(t, ipKey(tt.want), got)
		})
	}
}

func TestClientIPSingleAddressHeaders(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies, Headers: []string{"CF-Connecting-IP", "X-Real-IP"}})
	tests := []struct {
		name   string
		remote string
		kv     []string
		want   string
	}{
		{"x-real-ip from trusted peer", "10.0.0.1:1", []string{"X-Real-IP", "203.0.113.1"}, "203.0.113.1"},
		{"cf-connecting-ip preferred by order", "10.0.0.1:1", []string{"X-Real-IP", "203.0.113.1", "CF-Connecting-IP", "2001:db8:5:6::1"}, "2001:db8:5:6::/64"},
		{"untrusted peer: ignored", "198.51.100.9:1", []string{"X-Real-IP", "203.0.113.1"}, "198.51.100.9"},
		{"garbage: next header", "10.0.0.1:1", []string{"CF-Connecting-IP", "nope", "X-Real-IP", "203.0.113.1"}, "203.0.113.1"},
		{"a list is garbage: peer", "10.0.0.1:1", []string{"X-Real-IP", "203.0.113.1, 198.51.100.1"}, "10.0.0.1"},
		{"repeated: the last line (the proxy's) wins", "10.0.0.1:1", []string{"X-Real-IP", "1.1.1.1", "X-Real-IP", "203.0.113.1"}, "203.0.113.1"},
		{"x-forwarded-for not configured: ignored", "10.0.0.1:1", []string{"X-Forwarded-For", "203.0.113.9"}, "10.0.0.1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := f(req(tt.remote, tt.kv...))
			require.NoError(t, err)
			assert.Equal(t, ipKey(tt.want), got)
		})
	}
}

func TestClientIPHeaderOrder(t *testing.T) {
	r := req("10.0.0.1:1", "X-Forwarded-For", "203.0.113.1", "Forwarded", "for=198.51.100.1")
	def := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies})
	got, err := def(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:203.0.113.1", got, "X-Forwarded-For comes first by default")

	fwdFirst := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies, Headers: []string{"Forwarded", "X-Forwarded-For"}})
	got, err = fwdFirst(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:198.51.100.1", got)

	onlyFwd := req("10.0.0.1:1", "Forwarded", "for=198.51.100.1")
	got, err = def(onlyFwd)
	require.NoError(t, err)
	assert.Equal(t, "ip:198.51.100.1", got, "Forwarded is read when X-Forwarded-For is absent")
}

func TestClientIPPrefix(t *testing.T) {
	tests := []struct {
		bits int
		want string
	}{
		{0, "2001:db8:1:2::/64"},
		{48, "2001:db8:1::/48"},
		{56, "2001:db8:1::/56"},
		{1, "::/1"},
		{128, "2001:db8:1:2:3:4:5:6"},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.bits), func(t *testing.T) {
			f := mustClientIP(t, keyfuncs.ClientIPConfig{IPv6Prefix: tt.bits})
			got, err := f(req("[2001:db8:1:2:3:4:5:6]:9"))
			require.NoError(t, err)
			assert.Equal(t, ipKey(tt.want), got)
			v4, err := f(req("192.0.2.3:9"))
			require.NoError(t, err)
			assert.Equal(t, "ip:192.0.2.3", v4, "IPv4 is never grouped")
		})
	}
}

func TestClientIPLongChainKeepsRightmost(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: proxies})
	left := strings.Repeat("1.1.1.1, ", 5000)
	r := req("10.0.0.1:1", "X-Forwarded-For", left+"203.0.113.1, 10.0.0.2")
	got, err := f(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:203.0.113.1", got)

	// More trusted hops than the chain window: the leftmost kept, which is
	// still one of ours, never a client-written entry.
	r = req("10.0.0.1:1", "X-Forwarded-For", "203.0.113.1, "+strings.Repeat("10.0.0.3, ", 100)+"10.0.0.2")
	got, err = f(r)
	require.NoError(t, err)
	assert.Equal(t, "ip:10.0.0.3", got)
}

func TestClientIPUnparsablePeer(t *testing.T) {
	// Trusting as much as may be (every IPv4 and IPv6 address but a
	// quarter of each: ranges that hold them all are refused).
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: []string{"0.0.0.0/1", "128.0.0.0/2", "::/1", "8000::/2"}})
	_, err := f(req("@", "X-Forwarded-For", "203.0.113.1"))
	assert.ErrorIs(t, err, keyfuncs.ErrNoKey, "a peer we cannot read is never replaced by a header")
}

func TestClientIPHopsBehindUnixSocket(t *testing.T) {
	f := mustClientIP(t, keyfuncs.ClientIPConfig{TrustedHops: 1})
	got, err := f(req("@", "X-Forwarded-For", "1.1.1.1, 203.0.113.1"))
	require.NoError(t, err)
	assert.Equal(t, "ip:203.0.113.1", got, "with a hop count the peer is a proxy even without an address")

	_, err = f(req("@", "X-Forwarded-For", "1.1.1.1, garbage"))
	assert.ErrorIs(t, err, keyfuncs.ErrNoKey)
	_, err = f(req("@"))
	assert.ErrorIs(t, err, keyfuncs.ErrNoKey)
}
