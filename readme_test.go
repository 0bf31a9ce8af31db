package ratewindow_test

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadmeSnippetsAreCompiled checks that every Go snippet in README.md is
// code the test suite compiles: its lines, leading white space and blank
// lines aside, appear in that order, one after the other, in a .go file of
// the module (an Example, a test or a program under examples/). A snippet
// edited in the README alone, which could drift from the API or stop
// checking its errors, fails here.
func TestReadmeSnippetsAreCompiled(t *testing.T) {
	snippets := goSnippets(t, "README.md")
	if len(snippets) == 0 {
		t.Fatal("README.md has no Go snippet")
	}
	var sources [][]string
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "testdata", "bench":
				return filepath.SkipDir
			}
			return nil
		}
		if strings.HasSuffix(path, ".go") {
			b, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			sources = append(sources, codeLines(string(b)))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range snippets {
		found := false
		for _, src := range sources {
			if containsRun(src, s.lines) {
				found = true
				break
			}
		}
		if !found {
			t.Errorf("README.md line %d: this Go snippet is not in any compiled .go file of the module:\n%s",
				s.line, strings.Join(s.lines, "\n"))
		}
	}
}

type snippet struct {
	line  int
	lines []string
}

// goSnippets returns the ```go blocks of a Markdown file.
func goSnippets(t *testing.T, path string) []snippet {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []snippet
	var cur *snippet
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.TrimSpace(line) == "```go":
			cur = &snippet{line: n + 1}
		case cur != nil && strings.TrimSpace(line) == "```":
			cur.lines = codeLines(strings.Join(cur.lines, "\n"))
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// codeLines returns the non-blank lines of src without their leading and
// trailing white space.
func codeLines(src string) []string {
	var out []string
	for _, l := range strings.Split(src, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// containsRun reports whether want appears in have as consecutive lines.
func containsRun(have, want []string) bool {
	for i := 0; i+len(want) <= len(have); i++ {
		match := true
		for j := range want {
			if have[i+j] != want[j] {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
