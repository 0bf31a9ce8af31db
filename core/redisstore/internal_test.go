package redisstore

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/core"
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
	ps, err := core.ValidatePolicies([]core.Policy{
		core.PerMinute(100),
		core.PerSecond(5).Named("burst").Using(core.FixedWindow),
		core.Per(7, 1500*time.Millisecond).Named("log").Using(core.SlidingLog),
	})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"app:{u1}:s60000:100-per-1m",
		"app:{u1}:f1000:burst",
		"app:{u1}:l1500:log",
	}, s.keys("u1", ps))

	// A changed limit keeps the key (and so the counts); a changed window
	// or algorithm does not.
	k := s.keys("u1", ps[:1])[0]
	assert.Equal(t, k, s.keys("u1", []core.Policy{ps[0].Named(ps[0].Name)})[0])
	changed := ps[0]
	changed.Limit = 5
	assert.Equal(t, k, s.keys("u1", []core.Policy{changed})[0])
	assert.NotEqual(t, k, s.keys("u1", []core.Policy{ps[0].Using(core.FixedWindow)})[0])
	longer := ps[0]
	longer.Window = 2 * time.Minute
	assert.NotEqual(t, k, s.keys("u1", []core.Policy{longer})[0])

	hashed := s.keys("a{b}", ps[:1])[0]
	assert.Equal(t, "app:{"+tag("a{b}")+"}:s60000:100-per-1m", hashed)
}
