package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
)

// Output file names, inside the -out directory.
const (
	svgName      = "algorithms.svg"
	markdownName = "accuracy.md"
)

func main() {
	out := flag.String("out", "docs", "directory to write "+svgName+" and "+markdownName+" into")
	flag.Parse()
	if err := write(*out, defaultSetup()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// write runs the simulation for s and writes both files into dir.
func write(dir string, s setup) error {
	svg, md, err := generate(s)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("simulate: %w", err)
	}
	for name, data := range map[string][]byte{svgName: svg, markdownName: md} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			return fmt.Errorf("simulate: %w", err)
		}
	}
	return nil
}

// generate runs the simulation for s and returns the plot and the report.
func generate(s setup) (svg, md []byte, err error) {
	runs, err := runAll(s)
	if err != nil {
		return nil, nil, err
	}
	svg, md = render(s, runs)
	return svg, md, nil
}

// render draws the plot and writes the report from the runs of s.
func render(s setup, runs []run) (svg, md []byte) {
	return plot(s, &runs[figureRun]), report(s, runs)
}
