package main

import (
	"fmt"
	"io"

	"github.com/retrievalbench/retrievalbench/internal/benchstat"
)

// runCompare prints benchstat's tables for benchmark files: the same
// flags, defaults and output as golang.org/x/perf/cmd/benchstat, so that a
// module using retrievalbench needs no second tool to read its benchmarks.
func runCompare(args []string, stdout, stderr io.Writer) error {
	opt := benchstat.DefaultOptions()
	fs := newFlagSet("compare", "usage: retrievalbench compare [flags] FILE... (each FILE or LABEL=FILE; - for stdin)\n\n"+
		"Prints benchstat's tables for Go benchmark files (go test -bench output): the median and\n"+
		"95% interval of every benchmark and unit per file, and each file against the first (Mann-Whitney\n"+
		"U test). The output and flags are golang.org/x/perf/cmd/benchstat's. Files of two commits made by\n"+
		"make bench differ in their commit: line; add -ignore commit to compare them in one table.\n"+
		"To fail on a regression, use retrievalbench gate.\n\nflags:\n", stderr)
	opt.Flags(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return badUsage(fs, "compare: want at least one benchmark file")
	}
	if err := opt.Validate(); err != nil {
		return usagef("compare: %v", err)
	}
	if err := benchstat.Compare(stdout, stderr, opt, fs.Args()); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}
