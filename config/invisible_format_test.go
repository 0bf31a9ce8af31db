package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A zero-width space, a byte order mark, a soft hyphen or a bidirectional
// mark is as invisible as a no-break space, and as often pasted along with
// text: a pattern holding one never matches, and its route would silently
// go unlimited. It is an error at load, in a pattern and in a name.
func TestInvisibleFormatCharacterRejected(t *testing.T) {
	for name, c := range map[string]string{
		"zero-width space": `\u200b`,
		"byte order mark":  `\ufeff`,
		"soft hyphen":      `\u00ad`,
		"right-to-left":    `\u200f`,
		"bidi override":    `\u202e`,
		"word joiner":      `\u2060`,
	} {
		t.Run(name, func(t *testing.T) {
			_, err := config.Load(file(t, `{"routes": [{"name": "search", "match": ["/search`+c+`"],
				"policies": [{"limit": 1, "window": "1s"}]}]}`))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "routes[0].match[0]: ")
			_, err = config.Load(file(t, `{"routes": [{"name": "search`+c+`", "match": ["/search"],
				"policies": [{"limit": 1, "window": "1s"}]}]}`))
			require.Error(t, err)
			assert.Contains(t, err.Error(), "routes[0].name: ")
		})
	}
}

// Visible characters beyond ASCII are routes some framework reports, as
// registered: accented and CJK paths, percent-encoded bytes, and words
// spelt with a zero-width non-joiner (Persian) or emoji with a joiner.
func TestVisibleNonASCIIPatternAccepted(t *testing.T) {
	for _, p := range []string{"/café", "/検索/{id}", "/caf%C3%A9", "/fa/می\u200cخواهم", "/👩\u200d💻", "GET.example.com/é"} {
		_, err := config.Load(file(t, `{"routes": [{"name": "`+p+`", "match": ["`+p+`"],
			"policies": [{"limit": 1, "window": "1s"}]}]}`))
		assert.NoError(t, err, p)
	}
}
