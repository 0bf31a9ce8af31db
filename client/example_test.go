package client_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"time"

	"github.com/ratewindow/ratewindow/client"
)

// A client through the transport asks for three items from a server that
// allows one request per window and answers 429 to the rest. The caller
// sees only 200s: the transport waits the Retry-After (zero here, to keep
// the example fast) and sends again.
func Example() {
	calls := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls++
		if calls%2 == 0 {
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("RateLimit", `"default";r=1;t=0`)
		fmt.Fprintln(w, "ok")
	}))
	defer srv.Close()

	t, err := client.New(nil, client.WithMaxRetries(2))
	if err != nil {
		panic(err)
	}
	c := &http.Client{Transport: t, Timeout: 10 * time.Second}
	for range 3 {
		resp, err := c.Get(srv.URL + "/items")
		if err != nil {
			panic(err)
		}
		resp.Body.Close()
		fmt.Println(resp.StatusCode)
	}
	fmt.Println("sent", calls)
	// Output:
	// 200
	// 200
	// 200
	// sent 5
}
