package storetest_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/core/memory"
)

var errBroken = errors.New("broken store: refused")

// mutants lists the broken stores, each with the suite's top-level case
// that must catch it.
var mutants = []struct {
	name  string
	catch string
	store func() core.Store
}{
	{"AdmitOneMoreAtWindowBoundary", "AllOrNothing", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			r, err := m.Take(ctx, key, ps, cost, now)
			if err == nil && cost == 1 && now.UnixMilli()%ps[0].Window.Milliseconds() == 0 && !allAllowed(r, ps) {
				for i := range ps {
					r.States[i] = core.PolicyState{Allowed: true, ResetAfter: r.States[i].ResetAfter}
				}
			}
			return r, err
		}}
	}},
	{"AdmitOneUnitTooManyForCostAboveOne", "Scripted", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			r, err := m.Take(ctx, key, ps, cost, now)
			if err == nil && cost > 1 && !allAllowed(r, ps) {
				if p, err := m.Peek(ctx, key, ps, cost-1, now); err == nil && allAllowed(p, ps) {
					return m.Take(ctx, key, ps, cost-1, now)
				}
			}
			return r, err
		}}
	}},
	{"ChargeOnDenial", "Scripted", func() core.Store {
		s := newPlain()
		s.chargeDenied = func(core.Policy) bool { return true }
		return s
	}},
	{"SlidingLogRecordsDenied", "Scripted", func() core.Store {
		s := newPlain()
		s.chargeDenied = func(p core.Policy) bool { return p.Algorithm == core.SlidingLog }
		return s
	}},
	{"ChargeTheAllowingPoliciesOnDenial", "AllOrNothing", func() core.Store {
		s := newPlain()
		s.chargeAllowing = true
		return s
	}},
	{"ChargeCostOne", "Scripted", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			r, err := m.Peek(ctx, key, ps, cost, now)
			if err != nil || !allAllowed(r, ps) {
				return r, err
			}
			return m.Take(ctx, key, ps, 1, now)
		}}
	}},
	{"PeekCharges", "PeekDoesNotCharge", func() core.Store {
		m := memory.New()
		return &broken{inner: m, peek: m.Take}
	}},
	{"PeekIgnoresCost", "MatchesOracle", func() core.Store {
		m := memory.New()
		return &broken{inner: m, peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if cost < 1 {
				return m.Peek(ctx, key, ps, cost, now)
			}
			return m.Peek(ctx, key, ps, 1, now)
		}}
	}},
	{"RetryAfterShortByOneMillisecond", "HonestRetryAfter", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, _ core.Policy, _ int64, _ time.Time) {
			if st.RetryAfter > time.Millisecond {
				st.RetryAfter -= time.Millisecond
			}
		}}
	}},
	{"RetryAfterLongByAWindow", "HonestRetryAfter", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, p core.Policy, _ int64, _ time.Time) {
			if st.RetryAfter > 0 {
				st.RetryAfter += p.Window
			}
		}}
	}},
	{"RetryAfterInWholeSeconds", "Scripted", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, _ core.Policy, _ int64, _ time.Time) {
			if st.RetryAfter > 0 {
				st.RetryAfter = (st.RetryAfter + time.Second - 1).Truncate(time.Second)
			}
		}}
	}},
	{"RetryAfterUntilTheBucketEnds", "Scripted", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, p core.Policy, _ int64, now time.Time) {
			if st.RetryAfter > 0 {
				w := p.Window.Milliseconds()
				st.RetryAfter = time.Duration(w-now.UnixMilli()%w) * time.Millisecond
			}
		}}
	}},
	{"RemainingOneTooMany", "Scripted", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, p core.Policy, _ int64, _ time.Time) {
			st.Remaining = min(p.Limit, st.Remaining+1)
		}}
	}},
	{"RemainingOneTooFew", "Scripted", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, _ core.Policy, _ int64, _ time.Time) {
			st.Remaining = max(0, st.Remaining-1)
		}}
	}},
	{"RemainingBeforeTheCharge", "Scripted", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			r, err := m.Take(ctx, key, ps, cost, now)
			if err == nil && allAllowed(r, ps) {
				for i, p := range ps {
					r.States[i].Remaining = min(p.Limit, r.States[i].Remaining+cost)
				}
			}
			return r, err
		}}
	}},
	{"ResetAfterZero", "Scripted", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, _ core.Policy, _ int64, _ time.Time) {
			st.ResetAfter = 0
		}}
	}},
	{"ResetAlsoResetsKeysItPrefixes", "KeyIsolationTricky", func() core.Store {
		m, kl := memory.New(), newKeyLog()
		return &broken{inner: m,
			take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				kl.mu.Lock()
				kl.keys[key] = true
				kl.mu.Unlock()
				return m.Take(ctx, key, ps, cost, now)
			},
			reset: func(ctx context.Context, key string, ps []core.Policy) error {
				kl.mu.Lock()
				defer kl.mu.Unlock()
				for k := range kl.keys {
					if strings.HasPrefix(k, key) {
						if err := m.Reset(ctx, k, ps); err != nil {
							return err
						}
					}
				}
				return m.Reset(ctx, key, ps)
			}}
	}},
	{"KeysShareTheirFirst16Bytes", "KeyIsolation", func() core.Store { return truncating(16) }},
	{"KeysCaseInsensitive", "KeyIsolation", func() core.Store {
		return rewriting(strings.ToLower, nil, true)
	}},
	{"PolicyLimitPartOfItsIdentity", "LimitChanges", func() core.Store {
		s := newPlain()
		s.id = func(key string, p core.Policy) string {
			return key + "\x00" + p.String()
		}
		return s
	}},
	{"FirstLimitSeenKept", "LimitChanges", func() core.Store {
		kl := newKeyLog()
		fix := func(key string, ps []core.Policy) []core.Policy {
			kl.mu.Lock()
			defer kl.mu.Unlock()
			out := append([]core.Policy(nil), ps...)
			for i, p := range out {
				id := key + "\x00" + p.Name
				if l, ok := kl.limits[id]; ok {
					out[i].Limit = l
				} else {
					kl.limits[id] = p.Limit
				}
			}
			return out
		}
		return rewriting(nil, fix, false)
	}},
	{"OnlyTheFirstPolicyEnforced", "AllOrNothing", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			var r core.Result
			first, err := m.Take(ctx, key, ps[:min(1, len(ps))], cost, now)
			if err != nil || len(ps) == 0 {
				return first, err
			}
			r.States[0] = first.States[0]
			for i := 1; i < len(ps) && i < core.MaxPolicies; i++ {
				rest, err := m.Take(ctx, key, ps[i:i+1], cost, now)
				if err != nil {
					return rest, err
				}
				r.States[i] = rest.States[0]
			}
			return r, nil
		}}
	}},
	{"ClockNeverRunsBackwardForAKey", "ClockSteps", func() core.Store {
		return clocked(func(last, now time.Time, _ []core.Policy) time.Time {
			if now.Before(last) {
				return last
			}
			return now
		})
	}},
	{"StepBackClampedToTwoWindows", "ClockSteps", func() core.Store {
		return clocked(func(last, now time.Time, ps []core.Policy) time.Time {
			if floor := last.Add(-2 * longest(ps)); now.Before(floor) {
				return floor
			}
			return now
		})
	}},
	{"StepBackStartsAfresh", "TimeBackward", func() core.Store {
		m, kl := memory.New(), newKeyLog()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if last, seen := kl.see(key, now); seen && now.Before(last) {
				if err := m.Reset(ctx, key, ps); err != nil {
					return core.Result{}, err
				}
			}
			return m.Take(ctx, key, ps, cost, now)
		}}
	}},
	{"ExpiresOneWindowAfterTheLastTake", "Scripted", func() core.Store { return expiring(1, false) }},
	{"ExpiresAfterTheFirstPolicysTwoWindows", "MatchesOracle", func() core.Store { return expiring(2, true) }},
	{"WholeMillisecondClock", "RealTime", func() core.Store {
		return retimed(func(now time.Time) time.Time { return now.Truncate(time.Millisecond) })
	}},
	{"RefusesACostEqualToTheLimit", "PeekDoesNotCharge", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			for _, p := range ps {
				if cost == p.Limit {
					return core.Result{}, errBroken
				}
			}
			return m.Take(ctx, key, ps, cost, now)
		}}
	}},
	{"PeekReportsRemainingAfterTheCharge", "Scripted", func() core.Store {
		m := memory.New()
		return &broken{inner: m, peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			r, err := m.Peek(ctx, key, ps, cost, now)
			if err == nil && allAllowed(r, ps) {
				for i := range ps {
					r.States[i].Remaining -= cost
				}
			}
			return r, err
		}}
	}},
	{"WallClock", "Scripted", func() core.Store {
		return retimed(func(time.Time) time.Time { return time.Now() })
	}},
	{"NearestMillisecondClock", "RealTime", func() core.Store {
		return retimed(func(now time.Time) time.Time { return now.Round(time.Millisecond) })
	}},
	{"StepBackBeyondAWindowForgets", "TimeBackward", func() core.Store {
		m, kl := memory.New(), newKeyLog()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if last, seen := kl.see(key, now); seen && len(ps) > 0 && now.Before(last.Add(-longest(ps))) {
				kl.setLatest(key, now)
				if err := m.Reset(ctx, key, ps); err != nil {
					return core.Result{}, err
				}
			}
			return m.Take(ctx, key, ps, cost, now)
		}}
	}},
	{"NotAtomic", "Concurrent", func() core.Store {
		s := newPlain()
		s.pause = func() { time.Sleep(50 * time.Microsecond) }
		return s
	}},
	{"PolicyNameIgnored", "PolicyIdentity", func() core.Store {
		s := newPlain()
		s.id = func(key string, p core.Policy) string {
			return key + "\x00" + p.Window.String() + p.Algorithm.String()
		}
		return s
	}},
	{"PolicyWindowIgnored", "PolicyIdentity", func() core.Store {
		s := newPlain()
		s.id = func(key string, p core.Policy) string {
			return key + "\x00" + p.Name + "\x00" + p.Algorithm.String()
		}
		return s
	}},
	{"CountsKeptPerPolicySet", "PolicyIdentity", func() core.Store {
		// Each policy's counts live under the names of every policy of
		// the call, as a store keeping one record per policy set would.
		set := func(ps []core.Policy) []core.Policy {
			names := make([]string, len(ps))
			for i, p := range ps {
				names[i] = p.Name
			}
			out := make([]core.Policy, len(ps))
			for i, p := range ps {
				out[i] = p.Named(p.Name + "|" + strings.Join(names, ","))
			}
			return out
		}
		return rewriting(nil, func(_ string, ps []core.Policy) []core.Policy { return set(ps) }, true)
	}},
	{"ResetForgetsEveryPolicyOfTheKey", "Reset", func() core.Store {
		m, kl := memory.New(), newKeyLog()
		return &broken{inner: m,
			take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				kl.mu.Lock()
				for _, p := range ps {
					known := false
					for _, q := range kl.pols[key] {
						known = known || q.Name == p.Name && q.Window == p.Window && q.Algorithm == p.Algorithm
					}
					if !known {
						kl.pols[key] = append(kl.pols[key], p)
					}
				}
				kl.mu.Unlock()
				return m.Take(ctx, key, ps, cost, now)
			},
			reset: func(ctx context.Context, key string, ps []core.Policy) error {
				kl.mu.Lock()
				all := append([]core.Policy(nil), kl.pols[key]...)
				kl.mu.Unlock()
				for _, p := range all {
					if err := m.Reset(ctx, key, []core.Policy{p}); err != nil {
						return err
					}
				}
				return m.Reset(ctx, key, ps)
			}}
	}},
	{"LongKeysTruncatedTo250Bytes", "KeyIsolationTricky", func() core.Store { return truncating(250) }},
	{"RefusesMaxPolicies", "BadCalls", func() core.Store {
		m := memory.New()
		refuse := func(ps []core.Policy) bool { return len(ps) >= core.MaxPolicies }
		return &broken{inner: m,
			take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if refuse(ps) {
					return core.Result{}, fmt.Errorf("%w: at most %d policies", core.ErrInvalidConfig, core.MaxPolicies-1)
				}
				return m.Take(ctx, key, ps, cost, now)
			},
			peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if refuse(ps) {
					return core.Result{}, fmt.Errorf("%w: at most %d policies", core.ErrInvalidConfig, core.MaxPolicies-1)
				}
				return m.Peek(ctx, key, ps, cost, now)
			}}
	}},
	{"ForgetsKeysIdleForADay", "LongWindows", func() core.Store {
		m, kl := memory.New(), newKeyLog()
		// A key idle for a day is dropped, whatever its windows.
		idle := func(ctx context.Context, key string, ps []core.Policy, now time.Time) error {
			if last, ok := kl.see(key, now); ok && now.Sub(last) >= 24*time.Hour {
				return m.Reset(ctx, key, ps)
			}
			return nil
		}
		return &broken{inner: m,
			take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if err := idle(ctx, key, ps, now); err != nil {
					return core.Result{}, err
				}
				return m.Take(ctx, key, ps, cost, now)
			},
			peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if err := idle(ctx, key, ps, now); err != nil {
					return core.Result{}, err
				}
				return m.Peek(ctx, key, ps, cost, now)
			}}
	}},
	{"WindowsInUint32Milliseconds", "LongWindows", func() core.Store {
		wrap := func(ps []core.Policy) []core.Policy {
			out := make([]core.Policy, len(ps))
			for i, p := range ps {
				w := p.Window.Milliseconds() % (1 << 32)
				out[i] = p.Named(p.Name) // drops the cached fingerprint
				out[i].Window = time.Duration(max(1, w)) * time.Millisecond
			}
			return out
		}
		return rewriting(nil, func(_ string, ps []core.Policy) []core.Policy { return wrap(ps) }, true)
	}},
	{"SlidingCounterEstimateRoundedDown", "Scripted", func() core.Store {
		s := newPlain()
		s.truncateEstimate = true
		return s
	}},
	{"KeysTrimmed", "KeyIsolation", func() core.Store {
		return rewriting(strings.TrimSpace, nil, true)
	}},
	{"RetryAfterCappedAtAWindow", "TimeBackward", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, p core.Policy, _ int64, _ time.Time) {
			st.RetryAfter = min(st.RetryAfter, p.Window)
		}}
	}},
	{"ResetAfterCappedAtAWindow", "Scripted", func() core.Store {
		return &broken{inner: memory.New(), state: func(st *core.PolicyState, p core.Policy, _ int64, _ time.Time) {
			st.ResetAfter = min(st.ResetAfter, p.Window)
		}}
	}},
	{"SlidingLogKeepsTheNewest100Requests", "LongLog", func() core.Store {
		s := newPlain()
		s.logCap = 100
		return s
	}},
	{"PeekAtTheNextMillisecond", "RealTime", func() core.Store {
		m := memory.New()
		return &broken{inner: m, peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if t := now.Truncate(time.Millisecond); t.Before(now) {
				now = t.Add(time.Millisecond)
			}
			return m.Peek(ctx, key, ps, cost, now)
		}}
	}},
	{"NotAtomicAtRollover", "Concurrent", func() core.Store {
		s := newPlain()
		s.pause = func() { time.Sleep(5 * time.Millisecond) }
		s.pauseAtRollover = true
		return s
	}},
	{"ForgetsAllButTheNewest1000Keys", "ManyKeys", func() core.Store {
		m := memory.New()
		var mu sync.Mutex
		var order []string // least recently used first
		policies := map[string][]core.Policy{}
		use := func(ctx context.Context, key string, ps []core.Policy) error {
			mu.Lock()
			defer mu.Unlock()
			if i := slices.Index(order, key); i >= 0 {
				order = slices.Delete(order, i, i+1)
			}
			order = append(order, key)
			policies[key] = ps
			for len(order) > 1000 {
				old := order[0]
				order = order[1:]
				if err := m.Reset(ctx, old, policies[old]); err != nil {
					return err
				}
				delete(policies, old)
			}
			return nil
		}
		return &broken{inner: m,
			take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if err := use(ctx, key, ps); err != nil {
					return core.Result{}, err
				}
				return m.Take(ctx, key, ps, cost, now)
			},
			peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if err := use(ctx, key, ps); err != nil {
					return core.Result{}, err
				}
				return m.Peek(ctx, key, ps, cost, now)
			}}
	}},
	{"PeekAheadMovesTheKeyOn", "PeekAhead", func() core.Store {
		s := newPlain()
		s.peekWritesBack = true
		return s
	}},
	{"InvalidUTF8Replaced", "KeyIsolationTricky", func() core.Store {
		clean := func(key string) string { return strings.ToValidUTF8(key, "\uFFFD") }
		return rewriting(clean, nil, true)
	}},
	{"RefusesInvalidUTF8", "KeyIsolationTricky", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if !utf8.ValidString(key) {
				return core.Result{}, errBroken
			}
			return m.Take(ctx, key, ps, cost, now)
		}}
	}},
	{"KeyAndNameJoinedByAColon", "PolicyIdentity", func() core.Store {
		s := newPlain()
		s.id = func(key string, p core.Policy) string {
			return key + ":" + p.Name + ":" + p.Window.String() + ":" + p.Algorithm.String()
		}
		return s
	}},
	{"WindowsAlignedOnGoZeroTime", "LargeValues", func() core.Store {
		// time.Time.Truncate(window) aligns windows on January 1 of year
		// 1, not on the Unix epoch: the same for windows that divide a
		// day, not for others.
		const sinceZeroTime = 62_135_596_800_000 // ms from year 1 to 1970
		s := newPlain()
		s.shift = func(w int64) int64 { return sinceZeroTime % w }
		return s
	}},
	{"CountersRoundTheClockUp", "RealTime", func() core.Store {
		s := newPlain()
		s.ceilCounters = true
		return s
	}},
	{"PeekRewritesWhatItRead", "Concurrent", func() core.Store {
		s := newPlain()
		s.peekRewrites = func() { time.Sleep(200 * time.Microsecond) }
		return s
	}},
	{"StatesInNameOrder", "AllOrNothing", func() core.Store {
		sorted := func(ps []core.Policy) []core.Policy {
			out := slices.Clone(ps)
			slices.SortFunc(out, func(a, b core.Policy) int { return strings.Compare(a.Name, b.Name) })
			return out
		}
		return rewriting(nil, func(_ string, ps []core.Policy) []core.Policy { return sorted(ps) }, false)
	}},
	{"IgnoresTheFourthPolicy", "BadCalls", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			if len(ps) <= 3 || len(ps) > core.MaxPolicies {
				return m.Take(ctx, key, ps, cost, now)
			}
			r, err := m.Take(ctx, key, ps[:3], cost, now)
			if err != nil {
				return r, err
			}
			p, err := m.Peek(ctx, key, ps[3:], cost, now)
			r.States[3] = p.States[0]
			return r, err
		}}
	}},
	{"SortsPoliciesInPlace", "AllOrNothing", func() core.Store {
		m := memory.New()
		// Sorts the caller's policies by name (to lock or key them in
		// a canonical order) and reports each state in the caller's
		// order: right answers, and the caller's slice reordered.
		call := func(ps []core.Policy, do func([]core.Policy) (core.Result, error)) (core.Result, error) {
			orig := slices.Clone(ps)
			slices.SortStableFunc(ps, func(a, b core.Policy) int { return strings.Compare(a.Name, b.Name) })
			r, err := do(ps)
			var out core.Result
			for i, p := range orig {
				out.States[i] = r.States[slices.IndexFunc(ps, func(q core.Policy) bool { return q.Name == p.Name })]
			}
			return out, err
		}
		return &broken{inner: m,
			take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if len(ps) == 0 || len(ps) > core.MaxPolicies {
					return m.Take(ctx, key, ps, cost, now)
				}
				return call(ps, func(ps []core.Policy) (core.Result, error) { return m.Take(ctx, key, ps, cost, now) })
			},
			peek: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
				if len(ps) == 0 || len(ps) > core.MaxPolicies {
					return m.Peek(ctx, key, ps, cost, now)
				}
				return call(ps, func(ps []core.Policy) (core.Result, error) { return m.Peek(ctx, key, ps, cost, now) })
			}}
	}},
	{"ResetPanicsWithoutPolicies", "BadCalls", func() core.Store {
		m := memory.New()
		return &broken{inner: m, reset: func(ctx context.Context, key string, ps []core.Policy) error {
			_ = ps[0].Name // the first policy's key carries the hash tag
			return m.Reset(ctx, key, ps)
		}}
	}},
	{"PanicsOnTheEmptyKey", "BadCalls", func() core.Store {
		m := memory.New()
		return &broken{inner: m, take: func(ctx context.Context, key string, ps []core.Policy, cost int64, now time.Time) (core.Result, error) {
			_ = key[len(key)-1] // a trailing separator check
			return m.Take(ctx, key, ps, cost, now)
		}}
	}},
	{"SlidingLogMovedToNowWithinAWindow", "StepBackWithinAWindow", logMovedWithinWindow},
	{"NotAtomicForOnePolicy", "Concurrent", func() core.Store {
		s := newPlain()
		s.pause = func() { time.Sleep(50 * time.Microsecond) }
		s.pauseOnePolicy = true
		return s
	}},
	{"NotAtomicWhenTheMillisecondChanges", "Concurrent", func() core.Store {
		s := newPlain()
		s.pause = func() { time.Sleep(time.Millisecond) }
		s.pauseNewInstant = true
		return s
	}},
}
