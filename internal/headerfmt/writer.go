package headerfmt

import (
	"strconv"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Field names, as the drafts spell them.
const (
	FieldPolicy          = "RateLimit-Policy"
	FieldRateLimit       = "RateLimit"
	FieldLimit           = "RateLimit-Limit"
	FieldRemaining       = "RateLimit-Remaining"
	FieldReset           = "RateLimit-Reset"
	FieldLegacyLimit     = "X-RateLimit-Limit"
	FieldLegacyRemaining = "X-RateLimit-Remaining"
	FieldLegacyReset     = "X-RateLimit-Reset"
	FieldRetryAfter      = "Retry-After"
)

// Mode selects the fields written; the values are those of headers.Mode.
type Mode uint8

// The modes, in the order of headers.Mode.
const (
	Draft8 Mode = iota
	Draft7
	Draft6
	Legacy
	None
)

// Valid reports whether m is one of the modes above.
func (m Mode) Valid() bool { return m <= None }

// Writer is headers.Writer as the middleware holds it.
type Writer struct {
	Mode            Mode
	AllPolicies     bool
	LegacyEpoch     bool
	PartitionKey    bool
	PartitionSecret []byte
}

// Write sets the rate-limit fields for d through set (never Retry-After;
// see WriteRetryAfter). setBytes, if not nil, receives instead the values
// formatted per call, as bytes valid only during the call (draft-8's
// RateLimit): for a framework that copies them anyway, this saves making a
// string. key is the rate-limit key, from which pk is derived when
// PartitionKey is set; it is not used otherwise. now is read only for the
// Legacy epoch form (a zero now then means the system clock). A nil d
// writes nothing.
func (w *Writer) Write(set func(name, value string), setBytes func(name string, value []byte), d *core.Decision, key string, now time.Time) {
	if d == nil || set == nil {
		return
	}
	var one onePolicy
	v := view(d, &one)
	switch w.Mode {
	case Draft8:
		w.writeIETF(set, setBytes, &v, key)
	case Draft7:
		writeDraftPolicy(set, &v)
		writeDraft7(set, &v)
	case Draft6:
		writeDraftPolicy(set, &v)
		writeTriple(set, &v, FieldLimit, FieldRemaining, FieldReset, time.Time{})
	case Legacy:
		epoch := time.Time{}
		if w.LegacyEpoch {
			epoch = now
			if epoch.IsZero() {
				epoch = time.Now()
			}
		}
		writeTriple(set, &v, FieldLegacyLimit, FieldLegacyRemaining, FieldLegacyReset, epoch)
	}
}

// WriteRetryAfter sets Retry-After (integer seconds ≥ 1, rounded up) when d
// denies; it writes nothing otherwise.
func WriteRetryAfter(set func(name, value string), d *core.Decision) {
	if d == nil || set == nil || d.Allowed {
		return
	}
	set(FieldRetryAfter, strconv.FormatInt(RetryAfterSeconds(d), 10))
}

// RetryAfterSeconds is the Retry-After value for d: its RetryAfter rounded
// up to whole seconds, at least 1 (so never earlier than the binding
// policy's t), or 0 when d allows.
func RetryAfterSeconds(d *core.Decision) int64 {
	if d == nil || d.Allowed {
		return 0
	}
	s := ceilSeconds(d.RetryAfter)
	var one onePolicy
	v := view(d, &one)
	if t := v.reset(v.bind); t > s {
		s = t
	}
	if s < 1 {
		s = 1
	}
	return s
}
