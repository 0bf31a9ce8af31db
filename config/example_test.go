package config_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"

	"github.com/ratewindow/ratewindow/config"
	"github.com/ratewindow/ratewindow/nethttp"
)

func Example() {
	dir, _ := os.MkdirTemp("", "limits")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "limits.json")
	_ = os.WriteFile(path, []byte(`{"routes": [
	  {"name": "search", "match": ["/search"], "key": "ip",
	   "policies": [{"limit": 2, "window": "1m"}], "mode": "enforce"}]}`), 0o600)

	rules, err := config.Load(path)
	if err != nil {
		fmt.Println(err)
		return
	}
	// go rules.Watch(ctx, time.Second) would apply edits of the file.
	limit, err := nethttp.New(nil, rules.Options()...)
	if err != nil {
		fmt.Println(err)
		return
	}
	mux := http.NewServeMux()
	mux.Handle("GET /search", limit(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {})))
	for i := 0; i < 3; i++ {
		r := httptest.NewRequest(http.MethodGet, "/search", nil) // one client, 192.0.2.1
		w := httptest.NewRecorder()
		mux.ServeHTTP(w, r)
		fmt.Println(w.Code)
	}
	// Output:
	// 200
	// 200
	// 429
}

func ExampleLoad_invalid() {
	dir, _ := os.MkdirTemp("", "limits")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "limits.json")
	_ = os.WriteFile(path, []byte(`{"routes": [
	  {"name": "search", "match": ["/search"], "policies": [{"limit": 10, "window": "0s"}]}]}`), 0o600)

	_, err := config.Load(path)
	fmt.Println(err != nil)
	fmt.Println(err.Error()[len("config: "+path+": "):])
	// Output:
	// true
	// routes[0].policies[0].window: must be > 0, got "0s"
}
