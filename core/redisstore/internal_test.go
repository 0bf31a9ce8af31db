package redisstore

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
	"github.com/ratewindow/ratewindow/internal/policyname"
	"github.com/ratewindow/ratewindow/internal/policytest"
	"github.com/ratewindow/ratewindow/internal/testredis"
)

func TestTag(t *testing.T) {
	long := strings.Repeat("x", maxPlainTag)
	tests := []struct {
		key    string
		plain  bool
		reason string
	}{
		{key: "203.0.113.9", plain: true, reason: "short plain key stays readable"},
		{key: "user 42", plain: true, reason: "spaces are fine inside a tag"},
		{key: long, plain: true, reason: "exactly the limit"},
		{key: long + "x", reason: "too long"},
		{key: "a{b", reason: "open brace"},
		{key: "a}b", reason: "close brace"},
		{key: "{}", reason: "both braces"},
		{key: "#abc", reason: "starts like a hashed tag"},
		{key: "", reason: "empty would hash the whole key name"},
	}
	for _, tt := range tests {
		t.Run(tt.reason, func(t *testing.T) {
			got := tag(tt.key)
			assert.NotContains(t, got, "{")
			assert.NotContains(t, got, "}")
			assert.NotEmpty(t, got)
			if tt.plain {
				assert.Equal(t, tt.key, got)
				return
			}
			assert.Len(t, got, 33)
			assert.Equal(t, byte(hashedMark), got[0])
			assert.Equal(t, got, tag(tt.key), "hashing is stable")
		})
	}
	assert.NotEqual(t, tag("a{b"), tag("a}b"))
	assert.NotEqual(t, tag(long+"x"), tag(long+"y"))
}

func TestKeys(t *testing.T) {
	s := &Store{prefix: "app"}
	ps, err := policytest.Validate([]core.Policy{
		core.PerMinute(100),
		core.PerSecond(5).Named("burst").Using(core.FixedWindow),
		core.Per(7, 1500*time.Millisecond).Named("log").Using(core.SlidingLog),
		core.Per(3, 90*time.Minute).Named("long"),
	})
	require.NoError(t, err)
	got := s.keys("u1", ps)
	// The codes are part of the stored layout: changing them would start
	// every deployment's counts over.
	assert.Equal(t, "LLtnfk", nameCode("1m"))
	assert.Equal(t, "qkDM2B", nameCode("burst"))
	assert.Equal(t, []string{
		"app:{u1}:s1m:" + nameCode("1m"),
		"app:{u1}:f1s:" + nameCode("burst"),
		"app:{u1}:l1500ms:" + nameCode("log"),
		"app:{u1}:s90m:" + nameCode("long"),
	}, got)
	for _, k := range got {
		code := k[strings.LastIndexByte(k, ':')+1:]
		assert.Len(t, code, nameCodeLen, k)
		assert.Regexp(t, "^[0-9a-zA-Z]+$", code, k)
	}

	// A changed limit keeps the key (and so the counts); a changed window,
	// algorithm or name does not.
	k := s.keys("u1", ps[:1])[0]
	assert.Equal(t, k, s.keys("u1", []core.Policy{ps[0].Named(ps[0].Name)})[0])
	changed := ps[0]
	changed.Limit = 5
	assert.Equal(t, k, s.keys("u1", []core.Policy{changed})[0])
	assert.NotEqual(t, k, s.keys("u1", []core.Policy{ps[0].Using(core.FixedWindow)})[0])
	assert.NotEqual(t, k, s.keys("u1", []core.Policy{ps[0].Named("other")})[0])
	longer := ps[0]
	longer.Window = 2 * time.Minute
	assert.NotEqual(t, k, s.keys("u1", []core.Policy{longer})[0])

	hashed := s.keys("a{b}", ps[:1])[0]
	assert.Equal(t, "app:{"+tag("a{b}")+"}:s1m:"+nameCode("1m"), hashed)
}

// nameCode is a policy name's code as keys writes it.
func nameCode(name string) string { return string(appendNameCode(nil, name)) }

// Each window has one spelling, in the largest unit that divides it.
func TestAppendWindow(t *testing.T) {
	for ms, want := range map[int64]string{
		1: "1ms", 999: "999ms", 1000: "1s", 1500: "1500ms", 59_000: "59s", 60_000: "1m",
		90_000: "90s", 3_600_000: "1h", 5_400_000: "90m", 86_400_000: "24h", 90_061_001: "90061001ms",
	} {
		assert.Equal(t, want, string(appendWindow(nil, ms)), "%d ms", ms)
	}
}

// Names that differ get different codes: every default name of a limit up
// to 10,000 per second, minute and hour, and a set of short custom names.
func TestNameCodesDiffer(t *testing.T) {
	seen := make(map[string]string)
	add := func(name string) {
		code := nameCode(name)
		if other, dup := seen[code]; dup && other != name {
			t.Fatalf("%q and %q share the code %s", name, other, code)
		}
		seen[code] = name
	}
	for n := time.Duration(1); n <= 10_000; n++ {
		for _, unit := range []time.Duration{time.Millisecond, time.Second, time.Minute, time.Hour} {
			add(policyname.Default(n * unit))
		}
	}
	for _, a := range "abcdefghijklmnopqrstuvwxyz0123456789-_" {
		for _, b := range "abcdefghijklmnopqrstuvwxyz0123456789-_" {
			add(string(a) + string(b))
		}
	}
	add("")
	add("api")
	add("login")
}

// keySlot computes the slot Redis computes.
func TestKeySlot(t *testing.T) {
	c := testredis.Cluster(t)
	ctx := context.Background()
	keys := []string{"", "a", "lost", "{user1000}.following", "foo{}{bar}", "foo{{bar}}zap", "foo{bar}{zap}",
		"rw:{ip:203.0.113.9}:s1m:LLtnfk", "日本語", "{", "}{x}"}
	for i := range 50 {
		keys = append(keys, fmt.Sprint("user-", i))
	}
	for _, k := range keys {
		want, err := c.ClusterKeySlot(ctx, k).Result()
		require.NoError(t, err)
		assert.Equal(t, int(want), keySlot(k), "%q", k)
	}
}
