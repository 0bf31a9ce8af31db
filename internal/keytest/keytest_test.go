package keytest_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/ratewindow/ratewindow/internal/keytest"
)

func TestRequestHeadersIgnoreCase(t *testing.T) {
	r := &keytest.Request{Headers: map[string][]string{"x-custom": {"a", "b"}}}
	assert.Equal(t, "a", r.Header("X-Custom"))
	assert.Equal(t, []string{"a", "b"}, r.HeaderValues("X-CUSTOM"))
	assert.Empty(t, r.Header("X-Absent"))
	assert.Nil(t, r.HeaderValues("X-Absent"))
	assert.NotNil(t, r.Context())
	var zero keytest.Request
	assert.Empty(t, zero.Header("Anything"))
}
