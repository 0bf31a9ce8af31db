package headers

import (
	"fmt"
	"strings"

	"github.com/ratewindow/ratewindow/core"
)

// Mode selects which rate-limit fields a Writer emits. The names follow the
// revisions of draft-ietf-httpapi-ratelimit-headers, as other limiters and
// clients name them.
type Mode uint8

const (
	// Draft8 emits RateLimit-Policy and RateLimit as named Structured
	// Field Lists, the syntax of draft-08 and later (up to draft-10):
	//
	//	RateLimit-Policy: "default";q=100;w=60
	//	RateLimit: "default";r=25;t=5
	//
	// It is the zero value.
	Draft8 Mode = iota
	// Draft7 emits the combined RateLimit field of draft-07, a Dictionary,
	// and its RateLimit-Policy, a list of quota;w=window items:
	//
	//	RateLimit-Policy: 100;w=60
	//	RateLimit: limit=100, remaining=25, reset=5
	Draft7
	// Draft6 emits the separate fields of drafts 00 to 06, with the
	// RateLimit-Policy of draft-06:
	//
	//	RateLimit-Policy: 100;w=60
	//	RateLimit-Limit: 100
	//	RateLimit-Remaining: 25
	//	RateLimit-Reset: 5
	Draft6
	// Legacy emits X-RateLimit-Limit, X-RateLimit-Remaining and
	// X-RateLimit-Reset, the fields many APIs used before the drafts.
	Legacy
	// None emits no rate-limit fields (the middleware still writes
	// Retry-After on a denial).
	None
)

var modeNames = [...]string{Draft8: "draft-8", Draft7: "draft-7", Draft6: "draft-6", Legacy: "legacy", None: "none"}

// String returns "draft-8", "draft-7", "draft-6", "legacy" or "none".
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode parses the names String returns, ignoring case and surrounding
// space; "ietf" is accepted for draft-8. Any other input gives an error
// wrapping core.ErrInvalidConfig.
func ParseMode(s string) (Mode, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for m, name := range modeNames {
		if t == name {
			return Mode(m), nil
		}
	}
	switch t {
	case "ietf":
		return Draft8, nil
	case "draft7":
		// The name once meant the separate fields; guessing either way
		// would change someone's headers silently.
		return Draft8, fmt.Errorf("%w: headers: mode %q is ambiguous: draft-6 writes RateLimit-Limit, -Remaining and -Reset, draft-7 the combined RateLimit field", core.ErrInvalidConfig, s)
	}
	return Draft8, fmt.Errorf("%w: headers: unknown mode %q (want draft-8, draft-7, draft-6, legacy or none)", core.ErrInvalidConfig, s)
}
