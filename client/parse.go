package client

import (
	"net/http"
	"net/textproto"
	"strconv"
	"strings"
	"time"
)

// Field names as net/http stores received fields (canonical form), so a
// lookup does not canonicalise, and allocate, on every response.
var (
	fieldRateLimit       = textproto.CanonicalMIMEHeaderKey("RateLimit")
	fieldRemaining       = textproto.CanonicalMIMEHeaderKey("RateLimit-Remaining")
	fieldReset           = textproto.CanonicalMIMEHeaderKey("RateLimit-Reset")
	fieldLegacyRemaining = textproto.CanonicalMIMEHeaderKey("X-RateLimit-Remaining")
	fieldLegacyReset     = textproto.CanonicalMIMEHeaderKey("X-RateLimit-Reset")
	fieldRetryAfter      = textproto.CanonicalMIMEHeaderKey("Retry-After")
	fieldDate            = textproto.CanonicalMIMEHeaderKey("Date")
	fieldAge             = textproto.CanonicalMIMEHeaderKey("Age")
)

// get returns the first value of a field by its canonical name.
func get(h http.Header, canonical string) string {
	if v := h[canonical]; len(v) > 0 {
		return v[0]
	}
	return ""
}

// getList returns a Structured Field List or Dictionary by its canonical
// name, its field lines joined as RFC 9651 (section 4.2) says: a server may
// send one line per member.
func getList(h http.Header, canonical string) string {
	v := h[canonical]
	if len(v) > 1 {
		return strings.Join(v, ", ")
	}
	return get(h, canonical)
}

// quota is what one response says about the limit: r units remain, and
// more are available after reset.
type quota struct {
	remaining int64
	reset     time.Duration
}

// parseQuota reads the rate-limit fields of h, in any of the dialects
// servers send: RateLimit as a List (draft-08 and later) or a Dictionary
// (draft-07), the separate RateLimit-Remaining and RateLimit-Reset (drafts
// 00 to 06), and X-RateLimit-Remaining and X-RateLimit-Reset. A response
// may carry several (an API gateway's limit in one dialect, the
// application's in another): each limit applies, so the most restrictive
// wins, as among the policies of one field. now is the time the response
// was received; X-RateLimit-Reset may be a Unix time, read against the
// response's Date when it has one. The fields of a response a cache has
// held (Age above 0) are stale, and ignored, as the drafts advise.
//
// Draft-07 makes remaining optional (limit and reset are required), and
// drafts 00 to 06 let RateLimit-Remaining be left out: such a field says
// when the quota resets, not how much of it is left. On a refusal (refused:
// a 429 or 503) the server has said it for itself: nothing is left until
// that reset. On any other response it says nothing the transport could
// pace on, and is not read.
func parseQuota(h http.Header, now time.Time, refused bool) (quota, bool) {
	if age, ok := parseCount(get(h, fieldAge)); ok && age > 0 {
		return quota{}, false
	}
	var best quota
	found := false
	if v := getList(h, fieldRateLimit); v != "" {
		best, found = parseRateLimit(v, refused)
	}
	if q, ok := parseSeparate(get(h, fieldRemaining), get(h, fieldReset), refused); ok && (!found || stricter(q, best)) {
		best, found = q, true
	}
	if q, unix, ok := parseLegacy(h, now, refused); ok && (!found || stricter(q, best) && !(unix && sameLimit(q, best))) {
		best, found = q, true
	}
	return best, found
}

// sameLimit reports whether unix, a quota whose reset was read from a Unix
// time, and exact, one read from a delta, are one limit sent in two
// dialects: as much left, and resets no more than a second apart. The Unix
// time and the Date it is read against are whole seconds, the Date cut
// down, so the reading can come out up to a second longer than the delta
// the server sent beside it; were that second taken for a stricter limit,
// every wait would be a second too long.
func sameLimit(unix, exact quota) bool {
	d := unix.reset - exact.reset
	return unix.remaining == exact.remaining && d <= time.Second && d >= -time.Second
}

// stricter reports whether quota a restricts more than b: fewer units
// left, or as few left for longer.
func stricter(a, b quota) bool {
	return a.remaining < b.remaining || a.remaining == b.remaining && a.reset > b.reset
}

// parseLegacy reads X-RateLimit-Remaining and X-RateLimit-Reset, whose
// reset is seconds or, when larger than any sensible delta, a Unix time
// (GitHub and others send it so), read against the response's Date when
// it has one, else now. unix reports a reset read from a Unix time.
func parseLegacy(h http.Header, now time.Time, refused bool) (q quota, unix, ok bool) {
	q, ok = parseSeparate(get(h, fieldLegacyRemaining), get(h, fieldLegacyReset), refused)
	if !ok {
		return quota{}, false, false
	}
	if s := time.Duration(q.reset / time.Second); s > 1e9 {
		serverNow := now
		if d, err := http.ParseTime(get(h, fieldDate)); err == nil {
			serverNow = d
		}
		q.reset = max(time.Unix(int64(s), 0).Sub(serverNow), 0)
		unix = true
	}
	return q, unix, true
}

// parseSeparate reads a remaining count and a reset in seconds. A remaining
// count left out is none on a refusal (see parseQuota); one that is there
// and unreadable makes the pair unreadable.
func parseSeparate(remaining, reset string, refused bool) (quota, bool) {
	t, ok := parseCount(reset)
	if !ok {
		return quota{}, false
	}
	var r int64
	if strings.TrimSpace(remaining) != "" || !refused {
		if r, ok = parseCount(remaining); !ok {
			return quota{}, false
		}
	}
	return quota{remaining: r, reset: seconds(t)}, true
}

// parseRateLimit reads a RateLimit field: a List of policies with r and,
// optionally, t parameters (draft-08 and later; the most restrictive
// wins), or a Dictionary with reset and, optionally, remaining (draft-07;
// see parseQuota for a refusal without it).
func parseRateLimit(v string, refused bool) (quota, bool) {
	var best quota
	found := false
	dict := false
	var dr, dt int64 = -1, -1 // -1: not sent
	unreadable := false       // a remaining that is there and unreadable
	for rest := v; rest != ""; {
		var member string
		member, rest = cutTop(rest, ',')
		head, params := cutTop(member, ';')
		head = strings.TrimSpace(head)
		if k, val, isDict := strings.Cut(head, "="); isDict && !strings.HasPrefix(head, `"`) {
			dict = true
			n, ok := parseCount(val)
			switch strings.TrimSpace(k) {
			case "remaining":
				if ok {
					dr = n
				} else {
					unreadable = true
				}
			case "reset":
				if ok {
					dt = n
				}
			}
			continue
		}
		r, t := int64(-1), int64(-1)
		for params != "" {
			var p string
			p, params = cutTop(params, ';')
			k, val, _ := strings.Cut(strings.TrimSpace(p), "=")
			n, ok := parseCount(val)
			if !ok {
				continue
			}
			switch k {
			case "r":
				r = n
			case "t":
				t = n
			}
		}
		if r < 0 {
			continue
		}
		// t is optional (draft-08 and later): without it, no reset
		// is known, and a used-up quota is probed one request at a
		// time, as one that resets at once.
		t = max(t, 0)
		q := quota{remaining: r, reset: seconds(t)}
		if !found || stricter(q, best) {
			best, found = q, true
		}
	}
	if dict {
		if dr < 0 && refused && !unreadable {
			dr = 0 // left out, on a refusal: none left
		}
		if dr < 0 || dt < 0 {
			return quota{}, false
		}
		return quota{remaining: dr, reset: seconds(dt)}, true
	}
	return best, found
}

// cutTop cuts s around the first sep outside a quoted string.
func cutTop(s string, sep byte) (before, after string) {
	quoted := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case quoted && c == '\\':
			i++
		case c == '"':
			quoted = !quoted
		case !quoted && c == sep:
			return s[:i], s[i+1:]
		}
	}
	return s, ""
}

// parseCount reads a non-negative integer, allowing surrounding space.
func parseCount(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if s == "" || s[0] < '0' || s[0] > '9' {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}

// maxSeconds keeps a duration in seconds from overflowing.
const maxSeconds = int64(1<<63-1) / int64(time.Second)

func seconds(n int64) time.Duration {
	return time.Duration(min(n, maxSeconds)) * time.Second
}

// parseRetryAfter reads Retry-After: delta-seconds or an HTTP-date, the
// latter against the response's Date when it has one (so a skewed client
// clock does not matter), else against now.
func parseRetryAfter(h http.Header, now time.Time) (time.Duration, bool) {
	v := strings.TrimSpace(get(h, fieldRetryAfter))
	if v == "" {
		return 0, false
	}
	if n, ok := parseCount(v); ok {
		return seconds(n), true
	}
	at, err := http.ParseTime(v)
	if err != nil {
		return 0, false
	}
	serverNow := now
	if d, err := http.ParseTime(get(h, fieldDate)); err == nil {
		serverNow = d
	}
	return max(at.Sub(serverNow), 0), true
}
