package topkeys_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"

	"github.com/ratewindow/ratewindow"
	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/topkeys"
)

func Example() {
	top, err := topkeys.New(100, topkeys.WithRawKeys())
	if err != nil {
		fmt.Println(err)
		return
	}
	// In a server: ratewindow.WithOnDecision(top.Observe), and
	// mux.Handle("GET /debug/ratewindow/top", top.Handler()).
	policy := []core.Policy{core.PerMinute(100).Named("per-minute")}
	for i, key := range []string{"10.0.0.1", "10.0.0.2", "10.0.0.1", "10.0.0.1"} {
		ev := ratewindow.Event{Outcome: ratewindow.Denied, WouldDeny: true, Key: key, Route: "/search",
			Decision: core.Decision{Policies: policy}}
		if i == 1 {
			ev.Outcome = ratewindow.WouldDeny // observe-only: counted too
		}
		top.Observe(ev)
	}
	rec := httptest.NewRecorder()
	top.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/debug/ratewindow/top?n=10", nil))
	var report struct {
		Top []struct {
			Route, Policy, Key string
			Count, Error       uint64
		}
	}
	if err := json.NewDecoder(rec.Body).Decode(&report); err != nil {
		fmt.Println(err)
		return
	}
	for _, e := range report.Top {
		fmt.Println(e.Route, e.Policy, e.Key, e.Count, "±", e.Error)
	}
	// Output:
	// /search per-minute 10.0.0.1 3 ± 0
	// /search per-minute 10.0.0.2 1 ± 0
}
