package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/ratewindow/ratewindow/config"
)

// A file that is not JSON is an error that says where: "invalid character"
// alone leaves an operator to search a long file for a missing comma.
func TestSyntaxErrorNamesLineAndColumn(t *testing.T) {
	cases := []struct{ name, content, want string }{
		{"missing comma", "{\n  \"routes\": [\n    {\"name\": \"r\" \"match\": [\"/r\"]}\n  ]\n}",
			`invalid character '"' after object key:value pair at line 3, column 18`},
		{"trailing comma", "{\n  \"routes\": [\n    {\"name\": \"r\",}\n  ]\n}",
			`invalid character '}' looking for beginning of object key string at line 3, column 18`},
		{"cut short", "{\n  \"routes\": [\n    {\"name\": \"r\",",
			"unexpected EOF at line 3, column 18: the file ends inside the JSON document"},
		// The column counts characters, as an editor does, not bytes:
		// "検索" is two columns (six bytes), "é" one (two bytes), a tab one.
		{"after multi-byte characters", "{\n  \"routes\": [{\"name\": \"検索\" \"match\": [\"/café\"]}]\n}",
			`invalid character '"' after object key:value pair at line 2, column 28`},
		{"after a tab and é", "{\n\t\"routes\": [{\"name\": \"é\",}]\n}",
			`invalid character '}' looking for beginning of object key string at line 2, column 26`},
		{"CRLF line ends", "{\r\n  \"routes\": [\r\n    {\"name\": \"r\",}\r\n  ]\r\n}\r\n",
			`invalid character '}' looking for beginning of object key string at line 3, column 18`},
		{"byte order mark", "\uFEFF{\"routes\": []}", "the file starts with a byte order mark"},
		// Windows PowerShell's "> limits.json" writes UTF-16 with its mark.
		{"UTF-16 little-endian", "\xff\xfe{\x00}\x00", "the file is UTF-16 (save it as UTF-8)"},
		{"UTF-16 big-endian", "\xfe\xff\x00{\x00}", "the file is UTF-16 (save it as UTF-8)"},
		{"trailing data", "{\"routes\": []}\n\n  {}",
			"unexpected data after the JSON document at line 3, column 3"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Load(file(t, tc.content))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
		})
	}
}
