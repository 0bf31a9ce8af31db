package headers

import (
	"time"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/headerfmt"
)

// Writer writes the rate-limit fields of a decision. The zero value writes
// the draft-8 fields for the binding policy, without a partition key.
//
// The middleware of every adapter takes a Writer (ratewindow.WithHeaders)
// and also writes Retry-After on each enforced denial; call Write yourself
// only when deciding with a core.Limiter outside the middleware.
type Writer struct {
	// Mode selects the fields written.
	Mode Mode
	// AllPolicies, in Draft8 mode, writes one RateLimit item per policy
	// instead of only the binding one.
	AllPolicies bool
	// LegacyEpoch, in Legacy mode, writes X-RateLimit-Reset as Unix epoch
	// seconds (GitHub style) instead of delta seconds.
	LegacyEpoch bool
	// PartitionKey, in Draft8 mode, makes the middleware add pk (a keyed
	// hash of the rate-limit key, never the key) to every item. Off by
	// default. Write has no key, so it writes no pk.
	PartitionKey bool
	// PartitionSecret keys the pk hash. Empty means a random secret made
	// once per process, so pk is stable for a key within one process.
	// Set the same secret on every instance to make pk agree across them.
	PartitionSecret []byte
}

// Write sets the rate-limit fields for d through set (never Retry-After).
// now is read only for the Legacy epoch form (a zero now then means the
// system clock). A nil d writes nothing.
func (w Writer) Write(set func(name, value string), d *core.Decision, now time.Time) {
	fw := headerfmt.Writer{
		Mode:            headerfmt.Mode(w.Mode),
		AllPolicies:     w.AllPolicies,
		LegacyEpoch:     w.LegacyEpoch,
		PartitionKey:    w.PartitionKey,
		PartitionSecret: w.PartitionSecret,
	}
	fw.Write(set, nil, d, "", now)
}
