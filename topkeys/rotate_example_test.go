package topkeys_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/topkeys"
)

// A Summary that follows recent traffic only: a fresh one replaces it on
// a timer (here, by hand), and both the hook and the handler read the
// current one. One secret for all of them, or a key would hash
// differently in each, and match neither the last report nor the logs.
func Example_rotate() {
	secret := []byte("the secret of logging.WithKeySecret too")
	var current atomic.Pointer[topkeys.Summary]
	fresh := func() {
		top, err := topkeys.New(1000, topkeys.WithKeySecret(secret))
		if err != nil {
			panic(err)
		}
		current.Store(top)
	}
	fresh()
	hook := func(ev ratewindow.Event) { current.Load().Observe(ev) } // to ratewindow.WithOnDecision
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		current.Load().Handler().ServeHTTP(w, r)
	}) // to mux.Handle("GET /debug/ratewindow/top", handler)

	deny := func(key string) {
		hook(ratewindow.Event{Outcome: ratewindow.Denied, WouldDeny: true, Key: key, Route: "/search",
			Decision: core.Decision{Policies: []core.Policy{core.PerMinute(100).Named("per-minute")}}})
	}
	report := func() map[string]uint64 {
		rec := httptest.NewRecorder()
		handler.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?n=all", nil))
		var r struct {
			Top []struct {
				KeyHash string `json:"key_hash"`
				Count   uint64 `json:"count"`
			} `json:"top"`
		}
		if err := json.NewDecoder(rec.Body).Decode(&r); err != nil {
			panic(err)
		}
		counts := map[string]uint64{}
		for _, e := range r.Top {
			counts[e.KeyHash] = e.Count
		}
		return counts
	}

	deny("10.0.0.1")
	deny("10.0.0.1")
	deny("10.0.0.2")
	before := report()
	fresh() // the timer fires: yesterday's flood is forgotten
	deny("10.0.0.2")
	after := report()

	fmt.Println("keys before:", len(before), "after:", len(after))
	for h, n := range after {
		_, seen := before[h]
		fmt.Println("count:", n, "same key_hash as before:", seen)
	}
	// Output:
	// keys before: 2 after: 1
	// count: 1 same key_hash as before: true
}
