package topkeys

import (
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	"github.com/ratewindow/ratewindow/internal/keyhash"
)

// defaultTop is the number of items the Handler lists without an n
// parameter.
const defaultTop = 20

// jsonEntry is one item as the Handler writes it.
type jsonEntry struct {
	Route    string    `json:"route"`
	Policy   string    `json:"policy"`
	Key      string    `json:"key,omitempty"`
	KeyHash  string    `json:"key_hash,omitempty"`
	Count    uint64    `json:"count"`
	Error    uint64    `json:"error"`
	LastSeen time.Time `json:"last_seen"`
}

type jsonReport struct {
	Events     uint64      `json:"events"`
	Capacity   int         `json:"capacity"`
	ErrorBound uint64      `json:"error_bound"`
	Top        []jsonEntry `json:"top"`
}

// Handler serves the summary as JSON:
//
//	{"events": 1520, "capacity": 1000, "error_bound": 0,
//	 "top": [{"route": "/api/{id}", "policy": "per-minute",
//	          "key_hash": "9f86d081884c7d65", "count": 1200, "error": 0,
//	          "last_seen": "2026-01-02T15:04:05.123Z"}, ...]}
//
// The key is shown as "key_hash" or, with WithRawKeys, as "key". Query
// parameters: n, the number of items (default 20;
// 0 or "all" for every tracked item); route and policy, to list one
// route's or one policy's items only. Mount it on a debug or admin
// listener: it names the clients being limited.
//
// Keys come from clients: every string is JSON-escaped, control
// characters included, and HTML-safe (<, >, & as \u escapes), so a raw
// key can neither break the document nor inject markup; bytes that are not UTF-8
// are shown as U+FFFD.
func (s *Summary) Handler() http.Handler {
	return http.HandlerFunc(s.serve)
}

func (s *Summary) serve(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	n := defaultTop
	if v := q.Get("n"); v == "all" {
		n = 0
	} else if v != "" {
		i, err := strconv.Atoi(v)
		if err != nil || i < 0 {
			http.Error(w, "n: not a non-negative integer", http.StatusBadRequest)
			return
		}
		n = i
	}
	var keep func(route, policy string) bool
	route, hasRoute := q["route"]
	policy, hasPolicy := q["policy"]
	if hasRoute || hasPolicy {
		keep = func(r, p string) bool {
			return (!hasRoute || r == route[0]) && (!hasPolicy || p == policy[0])
		}
	}
	rep := s.top(n, keep)
	out := jsonReport{Events: rep.Events, Capacity: rep.Capacity, ErrorBound: rep.ErrorBound, Top: make([]jsonEntry, len(rep.Top))}
	for i, e := range rep.Top {
		je := jsonEntry{Route: e.Route, Policy: e.Policy, Count: e.Count, Error: e.Error, LastSeen: e.LastSeen.UTC()}
		if s.raw {
			je.Key = e.Key
		} else {
			je.KeyHash = keyhash.Hash(s.secret, e.Key)
		}
		out.Top[i] = je
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	_ = enc.Encode(out)
}
