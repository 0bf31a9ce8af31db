package main

import (
	"bytes"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTable(t *testing.T) {
	var b bytes.Buffer
	table(&b, []string{"name", "ns/op", "ratio"}, [][]string{
		{"a|b", "12.5", "2.00×"},
		{"c\nd", "–", "0.50×"},
	})
	assert.Equal(t, "| name | ns/op | ratio |\n|---|---:|---:|\n| a/b | 12.5 | 2.00× |\n| c d | – | 0.50× |\n\n", b.String())
}

func TestFormats(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{fmtNs(0), "–"}, {fmtNs(8.123), "8.12"}, {fmtNs(42.06), "42.1"}, {fmtNs(807.8), "808"},
		{fmtRate(0), "–"}, {fmtRate(0.134), "0.13"}, {fmtRate(950), "950"}, {fmtRate(54321), "54.3k"}, {fmtRate(12_345_678), "12.35M"},
		{fmtRatio(0), "–"}, {fmtRatio(math.Inf(1)), "–"}, {fmtRatio(math.NaN()), "–"}, {fmtRatio(1.234), "1.23×"},
		{fmtNum(0), "0"}, {fmtNum(48), "48"}, {fmtNum(39.61), "39.6"},
	} {
		assert.Equal(t, c.want, c.got)
	}
}
