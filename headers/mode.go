package headers

import (
	"fmt"
	"strings"

	"github.com/ratewindow/ratewindow/core"
)

// Mode selects which rate-limit fields a Writer emits.
type Mode uint8

const (
	// IETF emits RateLimit-Policy and RateLimit as in
	// draft-ietf-httpapi-ratelimit-headers-10. It is the zero value.
	IETF Mode = iota
	// Draft7 emits RateLimit-Limit, RateLimit-Remaining and
	// RateLimit-Reset (delta seconds).
	Draft7
	// Legacy emits X-RateLimit-Limit, X-RateLimit-Remaining and
	// X-RateLimit-Reset.
	Legacy
	// None emits no rate-limit fields (Retry-After is still written on a
	// denial by WriteRetryAfter).
	None
)

var modeNames = [...]string{IETF: "ietf", Draft7: "draft7", Legacy: "legacy", None: "none"}

// Valid reports whether m is one of the modes above.
func (m Mode) Valid() bool { return m <= None }

// String returns "ietf", "draft7", "legacy" or "none".
func (m Mode) String() string {
	if int(m) < len(modeNames) {
		return modeNames[m]
	}
	return fmt.Sprintf("Mode(%d)", uint8(m))
}

// ParseMode parses the names String returns, ignoring case and surrounding
// space. Any other input gives an error wrapping core.ErrInvalidConfig.
func ParseMode(s string) (Mode, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	for m, name := range modeNames {
		if t == name {
			return Mode(m), nil
		}
	}
	return IETF, fmt.Errorf("%w: headers: unknown mode %q (want ietf, draft7, legacy or none)", core.ErrInvalidConfig, s)
}
