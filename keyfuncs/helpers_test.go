package keyfuncs_test

import (
	"github.com/ratewindow/ratewindow/internal/keytest"
)

// req builds a request from a peer address and header lines given as
// name, value pairs; a name may repeat.
func req(remote string, kv ...string) *keytest.Request {
	r := &keytest.Request{MethodValue: "GET", PathValue: "/", RemoteAddrValue: remote, Headers: map[string][]string{}}
	for i := 0; i+1 < len(kv); i += 2 {
		r.Headers[kv[i]] = append(r.Headers[kv[i]], kv[i+1])
	}
	return r
}

// ipKey is the key of an address or prefix: "ip:" and the text, or "" for
// no key.
func ipKey(addr string) string {
	if addr == "" {
		return ""
	}
	return "ip:" + addr
}
