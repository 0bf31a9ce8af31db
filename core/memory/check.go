package memory

import (
	"fmt"
	"strings"

	"github.com/ratewindow/ratewindow/core"
)

var _ core.PolicyChecker = (*store)(nil)

// CheckPolicies implements core.PolicyChecker. Without WithMaxKeys it
// accepts every valid set. With it, it refuses a set whose entries for one
// key could weigh more than one shard's share of the cap: all of a key's
// entries live in one shard, and such a key would evict every other key of
// its shard and then be evicted itself by the next new one, its count
// forgotten. Each sliding log weighs 4 units plus one per two records it
// can hold (at most min(Limit, Window/1ms + 1) records), each counter 1.
func (s *store) CheckPolicies(policies []core.Policy) error {
	if s.maxPerShard <= 0 {
		return nil
	}
	var total int64
	for i := range policies {
		total += maxWeight(&policies[i])
	}
	if total <= int64(s.maxPerShard) {
		return nil
	}
	parts := make([]string, len(policies))
	for i := range policies {
		p := &policies[i]
		parts[i] = fmt.Sprintf("policy %q (%d per %v, %v) up to %d", p.Name, p.Limit, p.Window, p.Algorithm, maxWeight(p))
	}
	units := "units"
	if s.maxPerShard == 1 {
		units = "unit"
	}
	return fmt.Errorf("memory: %w: WithMaxKeys(%d) gives each of the store's %d shards %d %s, "+
		"but one key's entries, which share a shard, can weigh %d units under these policies (%s; "+
		"a sliding log weighs 4 + min(Limit, Window/1ms + 1)/2, a counter 1): "+
		"use WithMaxKeys(%d) or more, or a lower Limit or another Algorithm",
		core.ErrInvalidConfig, s.maxKeys, len(s.shards), s.maxPerShard, units, total,
		strings.Join(parts, ", "), total*int64(len(s.shards)))
}

// maxWeight is the most units one key's entry under p can weigh, as
// logWeight and addEntry count them.
func maxWeight(p *core.Policy) int64 {
	if p.Algorithm != core.SlidingLog {
		return 1
	}
	records := min(p.Limit, p.Window.Milliseconds()+1)
	return 4 + records/2
}
