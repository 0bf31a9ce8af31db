package main

import (
	"fmt"
	"io"
	"strings"
)

// summaryAlgorithms are the columns of the summary: ratewindow's rows by
// the suffix of their names.
var summaryAlgorithms = []string{"fixed", "sliding", "log"}

// summaryRows are the benchmark groups the summary shows, with the
// reference each ratewindow row is compared with: "" for the fastest peer
// of the group, else the name of a row; and the time compared: ns/op (the
// median pass), or fastestUnit (the fastest pass, against the peer whose
// fastest pass was fastest).
var summaryRows = []struct{ title, group, ref, unit string }{
	{"memory, one key, 1 goroutine", "MemoryHotKey", "", "ns/op"},
	{"memory, one key, 8 goroutines", "MemoryHotKeyParallel/goroutines-8", "", "ns/op"},
	{"memory, one key, 64 goroutines", "MemoryHotKeyParallel/goroutines-64", "", "ns/op"},
	{"memory, one key, 8 goroutines, fastest pass", "MemoryHotKeyParallel/goroutines-8", "", fastestUnit},
	{"memory, one key, 64 goroutines, fastest pass", "MemoryHotKeyParallel/goroutines-64", "", fastestUnit},
	{"memory, 1M keys", "MemoryKeys1M", "", "ns/op"},
	{"Redis, 1 goroutine", "RedisSerial/standalone", redisRate, "ns/op"},
	{"Redis, 64 goroutines", "RedisParallel/standalone", redisRate, "ns/op"},
	{"Redis Cluster (3 masters), 1 goroutine", "RedisSerial/cluster", redisRate, "ns/op"},
	{"Redis Cluster (3 masters), 64 goroutines", "RedisParallel/cluster", redisRate, "ns/op"},
}

// summaryHTTP are the HTTP rows of the summary: ratewindow's servers are
// named prefix + algorithm + suffix and compared with the floor; peers are
// the other servers the last column quotes against the same floor (a peer
// limiter, a bare server that sets the two fields itself, the bare server
// against itself).
var summaryHTTP = []struct {
	title, prefix, suffix, floor string
	peers                        []string
}{
	{"net/http, handler sets Content-Type", "nethttp-ratewindow-", "", "nethttp-bare", []string{"nethttp-httprate", "nethttp-bare-fields", "nethttp-bare-again"}},
	{"net/http, handler sets no header", "nethttp-ratewindow-", "-noheader", "nethttp-bare-noheader", nil},
	{"Fiber", "fiber-ratewindow-", "", "fiber-bare", []string{"fiber-limiter", "fiber-bare-fields"}},
}

// writeSummary writes one table of ratios, ratewindow's algorithms side by
// side, for the groups and servers of the run that it knows; nothing when
// there are none.
func writeSummary(w io.Writer, rep report) {
	var rows [][]string
	for _, s := range summaryRows {
		g, ok := findGroup(rep.Groups, s.group)
		if !ok || g.OneShot {
			continue
		}
		ref, ok := g.bestOn(peer, s.unit)
		what := "fastest peer (" + ref.Name + ")"
		if s.ref != "" {
			ref, ok = g.find(s.ref)
			what = s.ref
		}
		if !ok {
			continue
		}
		what += ", decisions/s"
		cells := []string{s.title}
		for _, a := range summaryAlgorithms {
			cell := "–"
			if r, ok := g.find("ratewindow-" + a); ok {
				cell = fmtRatio(speedupOn(r, ref, s.unit))
			}
			cells = append(cells, cell)
		}
		rows = append(rows, append(cells, what))
	}
	if g, ok := findGroup(rep.Groups, "RedisMemoryPerKey"); ok {
		cells := []string{"Redis memory per tracked key, bytes"}
		for _, a := range summaryAlgorithms {
			cells = append(cells, bytesCell(g, "ratewindow-"+a))
		}
		var peers []string
		for _, r := range g.Rows {
			if kindOf(r.Name) != ours {
				peers = append(peers, r.Name+" "+bytesCell(g, r.Name)+" B")
			}
		}
		rows = append(rows, append(cells, strings.Join(peers, ", ")))
	}
	for _, s := range summaryHTTP {
		if _, ok := findHTTP(rep.HTTP, s.floor); !ok {
			continue
		}
		cells := []string{"HTTP req/s, " + s.title}
		for _, a := range summaryAlgorithms {
			cell := "–"
			if r, ok := findHTTP(rep.HTTP, s.prefix+a+s.suffix); ok && r.ratio() > 0 {
				cell = fmtRatio(r.ratio())
			}
			cells = append(cells, cell)
		}
		var quoted []string
		for _, name := range s.peers {
			if p, ok := findHTTP(rep.HTTP, name); ok && p.ratio() > 0 {
				quoted = append(quoted, fmt.Sprintf("%s: %s", p.Name, fmtRatio(p.ratio())))
			}
		}
		what := "the bare server"
		if len(quoted) > 0 {
			what += " (" + strings.Join(quoted, ", ") + ")"
		}
		rows = append(rows, append(cells, what))
	}
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "## Summary\n\n"+
		"ratewindow's algorithms against a reference measured in the same run: "+
		"a ratio above 1.00× means more decisions (or requests) per second than the reference; "+
		"Redis memory is in bytes per key (INFO used_memory growth). The tables below have every row.\n\n")
	table(w, []string{"measurement", "fixed window", "sliding window counter", "sliding log", "compared with"}, rows)
}

// bytesCell is a row's info-bytes/key, or "–".
func bytesCell(g group, name string) string {
	r, ok := g.find(name)
	if !ok {
		return "–"
	}
	v, ok := r.Metrics["info-bytes/key"]
	if !ok {
		return "–"
	}
	return fmtNum(v)
}

func findGroup(gs []group, name string) (group, bool) {
	for _, g := range gs {
		if g.Name == name {
			return g, true
		}
	}
	return group{}, false
}
