package topkeys_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/topkeys"
)

// Raw keys are what clients send: the Handler's output stays one valid
// JSON document, HTML-safe, whatever bytes they hold, and each key is one
// string value of its own entry.
func TestHandlerEscapesHostileRawKeys(t *testing.T) {
	keys := []string{
		`</script><script>alert(1)</script>`,
		`"}, {"route": "/admin", "policy": "p", "key": "forged", "count": 999999`,
		"line\r\nbreak\x00nul\x1b[31m",
		"sep\u2028\u2029",
		"&amp;<>",
	}
	s, err := topkeys.New(16, topkeys.WithRawKeys())
	require.NoError(t, err)
	for _, k := range keys {
		s.Observe(denied("/a", "p", k))
	}
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/?n=all", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "application/json", rec.Header().Get("Content-Type"))
	body := rec.Body.String()
	for _, c := range []string{"<", ">", "&", "\x00", "\x1b", "\r", "\u2028", "\u2029"} {
		assert.NotContains(t, body, c, "escaped")
	}

	var out struct {
		Top []struct {
			Route string `json:"route"`
			Key   string `json:"key"`
		} `json:"top"`
	}
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &out))
	require.Len(t, out.Top, len(keys), "no entry forged, none lost")
	var got []string
	for _, e := range out.Top {
		assert.Equal(t, "/a", e.Route)
		got = append(got, e.Key)
	}
	assert.ElementsMatch(t, keys, got, "each key read back as sent")
	assert.Equal(t, 1, strings.Count(body, `"events"`))
}
