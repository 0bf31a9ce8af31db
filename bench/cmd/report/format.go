package main

import (
	"fmt"
	"io"
	"math"
	"regexp"
	"strings"
)

// numericCell matches the cells this package prints for numbers: 12,
// 1.5, 2.00×, 45.6k, 1.21ms, or "–" for none.
var numericCell = regexp.MustCompile(`^(–|-?[0-9][0-9.]*(×|k|M|ns|µs|ms|s)?)$`)

// table writes a markdown table, right-aligning the columns whose cells
// are all numbers. A "|" or newline in a cell is replaced so a stray value
// cannot break the table.
func table(w io.Writer, header []string, rows [][]string) {
	clean := func(s string) string {
		return strings.NewReplacer("|", "/", "\n", " ").Replace(s)
	}
	line := func(cells []string) {
		for i := range cells {
			cells[i] = clean(cells[i])
		}
		fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
	}
	line(header)
	sep := make([]string, len(header))
	for i := range sep {
		sep[i] = "---"
		numeric := len(rows) > 0
		for _, r := range rows {
			if i < len(r) && !numericCell.MatchString(r[i]) {
				numeric = false
			}
		}
		if numeric {
			sep[i] = "---:"
		}
	}
	fmt.Fprintf(w, "|%s|\n", strings.Join(sep, "|"))
	for _, r := range rows {
		line(r)
	}
	fmt.Fprintln(w)
}

// fmtNs prints a duration in ns with 3 significant digits or more.
func fmtNs(v float64) string {
	switch {
	case v <= 0:
		return "–"
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// fmtRate prints a rate per second: 1.23M, 45.6k, 789.
func fmtRate(v float64) string {
	switch {
	case v <= 0:
		return "–"
	case v >= 1e6:
		return fmt.Sprintf("%.2fM", v/1e6)
	case v >= 1e3:
		return fmt.Sprintf("%.1fk", v/1e3)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// fmtRatio prints a ratio as "1.23×", or "–" when there is none.
func fmtRatio(v float64) string {
	if v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return "–"
	}
	return fmt.Sprintf("%.2f×", v)
}

// fmtNum prints a metric: integers as such, others with one decimal.
func fmtNum(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.1f", v)
}
