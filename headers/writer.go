package headers

import (
	"fmt"
	"strconv"
	"time"

	"github.com/ratewindow/ratewindow/core"
)

// Field names written by Writer and WriteRetryAfter.
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

// Writer writes the rate-limit fields of a decision. The zero value writes
// the draft-8 fields for the binding policy, without a partition key.
type Writer struct {
	// Mode selects the fields written.
	Mode Mode
	// AllPolicies, in Draft8 mode, writes one RateLimit item per policy
	// instead of only the binding one.
	AllPolicies bool
	// LegacyEpoch, in Legacy mode, writes X-RateLimit-Reset as Unix epoch
	// seconds (GitHub style) instead of delta seconds.
	LegacyEpoch bool
	// PartitionKey, in Draft8 mode, adds pk (a keyed hash of the rate-limit
	// key, never the key) to every item, when the key is given through
	// WriteKey. Off by default.
	PartitionKey bool
	// PartitionSecret keys the pk hash. Empty means a random secret made
	// once per process, so pk is stable for a key within one process.
	// Set the same secret on every instance to make pk agree across them.
	PartitionSecret []byte
}

// Write sets the rate-limit fields for d through set (never Retry-After;
// see WriteRetryAfter). now is read only for the Legacy epoch form (a zero
// now then means the system clock). A nil d writes nothing.
func (w Writer) Write(set func(name, value string), d *core.Decision, now time.Time) {
	w.WriteKey(set, d, "", now)
}

// WriteKey is Write with the rate-limit key, from which the pk parameter is
// derived when PartitionKey is set. Without PartitionKey the key is not
// used.
func (w Writer) WriteKey(set func(name, value string), d *core.Decision, key string, now time.Time) {
	if d == nil || set == nil {
		return
	}
	v := view(d)
	switch w.Mode {
	case Draft8:
		w.writeIETF(set, &v, key)
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

// Validate reports an unknown Mode, wrapping core.ErrInvalidConfig.
func (w Writer) Validate() error {
	if !w.Mode.Valid() {
		return fmt.Errorf("%w: headers: Writer.Mode: unknown mode %v", core.ErrInvalidConfig, w.Mode)
	}
	return nil
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
	v := view(d)
	if t := v.reset(v.bind); t > s {
		s = t
	}
	if s < 1 {
		s = 1
	}
	return s
}
