package main

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/internal/testredis"
)

// Soak parameters: every client has its own key and sends soakBurst
// requests at the start of every epoch second, against a fixed window of
// soakLimit per second.
const (
	soakClients = 16
	soakLimit   = 50
	soakBurst   = 80
	// soakDefault is the length of the main phase in the normal suite;
	// RATEWINDOW_SOAK (a Go duration, e.g. 60s) sets a longer one.
	soakDefault = 5 * time.Second
	// Growth allowed between the warm-up scrape and the final one.
	soakGoroutines = 10
	soakHeap       = 16 << 20
)

// shot is one request of the soak: the epoch second it was sent in, the
// one its answer arrived in, and its status (0 on a transport error).
type shot struct {
	sent, recv int64
	status     int
}

// TestSoak runs many clients against one server on Redis for a bounded
// time: in no epoch second does a client get more than the limit, in every
// second where nothing straddled a boundary it gets exactly the limit, no
// client is starved, and the server's goroutines and heap do not grow
// between the end of a warm-up round and the end of the run.
func TestSoak(t *testing.T) {
	dur := soakDefault
	if s := os.Getenv("RATEWINDOW_SOAK"); s != "" {
		d, err := time.ParseDuration(s)
		require.NoError(t, err, "RATEWINDOW_SOAK")
		require.GreaterOrEqual(t, d, time.Second, "RATEWINDOW_SOAK")
		dur = d
	}
	seconds := int64(dur / time.Second)

	p := start(t, "-store", "redis", "-redis-addrs", testredis.Addr(t),
		"-algorithm", "fixed-window", "-limits", fmt.Sprintf("%d/1s", soakLimit),
		"-key", "header:X-Client", "-fail", "closed")

	// Keep-alive with one idle connection per client, so connections
	// are reused instead of opened and closed on every request.
	tr := &http.Transport{MaxIdleConns: 2 * soakClients, MaxIdleConnsPerHost: 2 * soakClients}
	hc := &http.Client{Transport: tr, Timeout: waitLimit}
	t.Cleanup(tr.CloseIdleConnections)

	// Fresh keys per run: the test Redis outlives this test.
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	keys := make([]string, soakClients)
	for i := range keys {
		keys[i] = fmt.Sprintf("soak-%s-%d", hex.EncodeToString(rnd[:]), i)
	}

	// Warm-up: one whole second of load, so connections, pools and the
	// heap reach their steady state before the first scrape.
	soakRound(hc, p.url, keys, 1)
	warmG, warmHeap := runtimeStats(t, p.admin)

	shots := soakRound(hc, p.url, keys, seconds)
	endG, endHeap := runtimeStats(t, p.admin)

	var sent, admitted, exact int
	for i, ss := range shots {
		sent += len(ss)
		admitted += checkClient(t, keys[i], ss, &exact)
	}
	t.Logf("soak: %d clients, %d s, %d requests sent, %d admitted; %d client-seconds checked exactly",
		soakClients, seconds, sent, admitted, exact)
	t.Logf("soak: goroutines %d at warm-up, %d at end; heap in use %.1f MiB at warm-up, %.1f MiB at end",
		warmG, endG, float64(warmHeap)/(1<<20), float64(endHeap)/(1<<20))
	assert.Positive(t, exact, "no client-second without a straddling request: the exact check never ran")
	assert.LessOrEqual(t, endG, warmG+soakGoroutines, "goroutines grew")
	assert.Less(t, endHeap, warmHeap+soakHeap, "heap in use grew")
}

// soakRound waits for the next epoch second, then for seconds whole
// seconds has every client send up to soakBurst requests at the start of
// each second (stopping when the second ends). It returns each client's
// requests.
func soakRound(hc *http.Client, url string, keys []string, seconds int64) [][]shot {
	first := time.Now().Unix() + 1
	out := make([][]shot, len(keys))
	var wg sync.WaitGroup
	for i, key := range keys {
		wg.Go(func() {
			for s := first; s < first+seconds; s++ {
				time.Sleep(time.Until(time.Unix(s, 0)))
				for range soakBurst {
					now := time.Now().Unix()
					if now != s {
						break
					}
					status := soakGet(hc, url+"/", key)
					out[i] = append(out[i], shot{sent: now, recv: time.Now().Unix(), status: status})
				}
			}
		})
	}
	wg.Wait()
	return out
}

// soakGet sends one request as client key and returns its status, or 0
// when the request failed.
func soakGet(hc *http.Client, url, key string) int {
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		return 0
	}
	req.Header.Set("X-Client", key)
	resp, err := hc.Do(req)
	if err != nil {
		return 0
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0
	}
	return resp.StatusCode
}

// checkClient checks one client's requests second by second and returns
// how many were admitted. A request sent and answered within one epoch
// second was decided in that second's window; one that straddled a
// boundary may belong to either, so a second with a straddler is checked
// only for "never more than the limit".
func checkClient(t *testing.T, key string, ss []shot, exact *int) int {
	t.Helper()
	type sec struct{ sent, clean, okClean, okSent int }
	bySec := map[int64]*sec{}
	spill := map[int64]bool{} // a request sent earlier was answered in this second
	admitted := 0
	for _, s := range ss {
		if s.status != ok && s.status != deny {
			t.Errorf("client %s: status %d in second %d", key, s.status, s.sent)
			continue
		}
		b := bySec[s.sent]
		if b == nil {
			b = &sec{}
			bySec[s.sent] = b
		}
		b.sent++
		if s.status == ok {
			b.okSent++
			admitted++
		}
		if s.recv == s.sent {
			b.clean++
			if s.status == ok {
				b.okClean++
			}
		} else {
			spill[s.recv] = true
		}
	}
	for n, b := range bySec {
		// Decided within second n: never more than the limit.
		assert.LessOrEqual(t, b.okClean, soakLimit, "client %s, second %d: over the limit", key, n)
		// The first request of a second always finds room: never starved.
		assert.Positive(t, b.okSent, "client %s, second %d: starved", key, n)
		if b.clean == b.sent && !spill[n] && b.sent > soakLimit {
			*exact++
			assert.Equal(t, soakLimit, b.okClean, "client %s, second %d: not exactly the limit", key, n)
		}
	}
	return admitted
}

// runtimeStats scrapes the server's /metrics and returns go_goroutines
// and go_memstats_heap_inuse_bytes.
func runtimeStats(t *testing.T, url string) (goroutines, heap int64) {
	t.Helper()
	r := get(t, url+"/metrics", nil)
	require.Equal(t, ok, r.status)
	vals := map[string]int64{}
	sc := bufio.NewScanner(strings.NewReader(r.body))
	for sc.Scan() {
		name, v, found := strings.Cut(sc.Text(), " ")
		if !found || (name != "go_goroutines" && name != "go_memstats_heap_inuse_bytes") {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		require.NoError(t, err, sc.Text())
		vals[name] = int64(f)
	}
	require.Contains(t, vals, "go_goroutines", "/metrics")
	require.Contains(t, vals, "go_memstats_heap_inuse_bytes", "/metrics")
	return vals["go_goroutines"], vals["go_memstats_heap_inuse_bytes"]
}
