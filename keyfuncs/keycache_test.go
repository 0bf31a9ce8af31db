package keyfuncs_test

import (
	"encoding/binary"
	"math/rand/v2"
	"net/netip"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/keytest"
	"github.com/ratewindow/ratewindow/keyfuncs"
)

// wantKey is the key of peer address a, worked out without the key func:
// IPv4 as is, IPv6 masked to bits.
func wantKey(a netip.Addr, bits int) string {
	if a.Is4() || bits == 128 {
		return "ip:" + a.String()
	}
	return "ip:" + netip.PrefixFrom(a, bits).Masked().String()
}

// randomAddr returns an IPv4 or IPv6 address; IPv6 ones vary in their
// interface half too, so clients of one /64 share a key.
func randomAddr(rng *rand.Rand) netip.Addr {
	if rng.IntN(2) == 0 {
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], rng.Uint32())
		return netip.AddrFrom4(b)
	}
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], 0x20010db8_00000000|uint64(rng.IntN(1024)))
	binary.BigEndian.PutUint64(b[8:], rng.Uint64())
	return netip.AddrFrom16(b)
}

// Far more clients than the key cache holds, each seen several times in a
// shuffled order: every key is the client's own, whatever the cache
// collisions and replacements.
func TestClientIPKeysThroughTheCache(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, bits := range []int{64, 48, 128} {
		f := mustClientIP(t, keyfuncs.ClientIPConfig{IPv6Prefix: bits})
		addrs := make([]netip.Addr, 3000)
		for i := range addrs {
			addrs[i] = randomAddr(rng)
		}
		for pass := range 4 {
			rng.Shuffle(len(addrs), func(i, j int) { addrs[i], addrs[j] = addrs[j], addrs[i] })
			for _, a := range addrs[:len(addrs)/(pass+1)] {
				got, err := f(req(netip.AddrPortFrom(a, 443).String()))
				require.NoError(t, err)
				require.Equal(t, wantKey(a, bits), got, "bits %d, %v", bits, a)
			}
		}
	}
}

// Clients keyed at once from several goroutines, sharing cache slots,
// each get their own key.
func TestClientIPKeyCacheConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 2000 {
				a := netip.AddrFrom4([4]byte{10, byte(g), byte(i >> 8), byte(i)})
				r := req(a.String() + ":" + strconv.Itoa(1000+i))
				got, err := keyfuncs.RemoteIP(r)
				if err != nil || got != "ip:"+a.String() {
					t.Errorf("%v: got %q, %v", a, got, err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

// A client seen recently is keyed without allocating: its key comes from
// the cache.
func TestReturningClientKeyAllocatesNothing(t *testing.T) {
	if raceEnabled {
		t.Skip("the race detector changes allocation counts")
	}
	v6 := mustClientIP(t, keyfuncs.ClientIPConfig{})
	for name, c := range map[string]struct {
		f keyfuncs.KeyFunc
		r *keytest.Request
	}{
		"RemoteIP v4":  {keyfuncs.RemoteIP, req("192.0.2.1:1234")},
		"RemoteIP v6":  {keyfuncs.RemoteIP, req("[2001:db8:1:2:3:4:5:6]:443")},
		"forwarded v4": {mustClientIP(t, keyfuncs.ClientIPConfig{TrustedProxies: []string{"10.0.0.0/8"}}), chain5()},
		"peer v6":      {v6, req("[2001:db8:1:2::9]:443")},
	} {
		_, err := c.f(c.r)
		require.NoError(t, err)
		assert.Zero(t, testing.AllocsPerRun(100, func() { _, _ = c.f(c.r) }), name)
	}
}
