package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/gate"
)

// runGate compares two benchmark files and fails (exit 1) on a regression;
// unreadable input and bad usage exit 2.
func runGate(args []string, stdout, stderr io.Writer) error {
	cfg := gate.DefaultConfig()
	fs := newFlagSet("gate", "usage: retrievalbench gate [flags] OLD NEW\n\n"+
		"Compares two Go benchmark files (go test -bench output) as benchstat does and exits 1\n"+
		"when NEW regressed: a significant change worse than -threshold, or any drop of an\n"+
		"assume=exact unit. Exits 2 on unreadable input.\n\nflags:\n", stderr)
	cfg.Flags(fs)
	format := fs.String("format", "text", "report `format`: "+strings.Join(gate.Formats, ", "))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return badUsage(fs, "gate: want two files, OLD and NEW; got %d arguments", fs.NArg())
	}
	if !slices.Contains(gate.Formats, *format) {
		return usagef("gate: -format %q: want one of %s", *format, strings.Join(gate.Formats, ", "))
	}
	if err := cfg.Validate(); err != nil {
		return usagef("gate: %v", err)
	}
	rep, err := gate.CompareFiles(fs.Arg(0), fs.Arg(1), cfg)
	if err != nil {
		// Unreadable input: the gate cannot vouch for anything.
		return usagef("gate: %v", err)
	}
	if err := rep.Write(stdout, *format); err != nil {
		return fmt.Errorf("gate: writing report: %w", err)
	}
	if rep.Failed() {
		return fmt.Errorf("gate: %s", rep.Summary())
	}
	return nil
}
