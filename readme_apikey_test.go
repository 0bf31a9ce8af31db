package ratewindow_test

import (
	"net/http/httptest"
	"strconv"
	"testing"

	"github.com/ratewindow/ratewindow/keyfuncs"
)

// The README's per-route snippet keys /api/ by issuedKey. A client that
// makes up a new X-API-Key for every request keeps its address's one key
// (the snippet used to key by the header as sent: a fresh quota per
// request, and an app copied from the README limited no one); an issued
// key has a key of its own.
func TestReadmeAPIKeyIsChecked(t *testing.T) {
	key := issuedKey(keyfuncs.RemoteIP)
	own := func(apiKey string) string {
		r := httptest.NewRequest("GET", "/api/items", nil)
		r.RemoteAddr = "198.51.100.7:4000"
		r.Header.Set("X-API-Key", apiKey)
		k, err := key(keyfuncs.HTTPRequest(r, ""))
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	for i := range 30 {
		if k := own("made-up-" + strconv.Itoa(i)); k != "ip:198.51.100.7" {
			t.Fatalf("made-up key %d: keyed %q, want the client's address", i, k)
		}
	}
	if k := own("key-1"); k != "hdr:x-api-key:key-1" {
		t.Fatalf("issued key: keyed %q", k)
	}
}
