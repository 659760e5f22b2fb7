// Command rbench is the part of the retrievalbench command a module that
// benchmarks its own system needs, built from few dependencies: compare
// (benchstat's tables), gate (exit 1 on a regression) and leaderboard (from
// go test -results directories, sharded or not). Add it to your module
// with
//
//	go get -tool github.com/retrievalbench/retrievalbench/cmd/rbench
//
// and run it as `go tool rbench compare old.txt new.txt`. It links neither
// ONNX Runtime, nor the MCP SDK, nor the model and data downloaders, nor a
// plotting library: those are the full command's (cmd/retrievalbench),
// which this repository's Makefile uses. Its leaderboard has no figures
// (gonum/plot and its fonts); retrievalbench leaderboard writes the same
// pages with them.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/gate"
	"github.com/retrievalbench/retrievalbench/internal/benchstat"
	"github.com/retrievalbench/retrievalbench/leaderboard"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "rbench:", err)
		os.Exit(exitCode(err))
	}
}

const usage = `usage: rbench COMMAND [flags] ...

  compare      benchstat's tables for benchmark files (same flags and output as golang.org/x/perf/cmd/benchstat)
  gate         compare two benchmark files; exit 1 on a significant regression
  leaderboard  leaderboard (md, self-contained html, plots) from go test -results DIR[,DIR…]

Run "rbench COMMAND -h" for a command's flags.`

func run(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stdout, usage)
		if len(args) == 0 {
			return usagef("no command given")
		}
		return nil
	}
	cmds := map[string]func(args []string, stdout, stderr io.Writer) error{
		"compare":     runCompare,
		"gate":        runGate,
		"leaderboard": runLeaderboard,
	}
	c, ok := cmds[args[0]]
	if !ok {
		fmt.Fprintln(stderr, usage)
		return usagef("unknown command %q", args[0])
	}
	err := c(args[1:], stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	return err
}

// usageError marks bad usage and unreadable input (exit 2); every other
// error exits 1 (a gate that found a regression, a failed write).
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

func exitCode(err error) int {
	var u *usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

func parse(fs *flag.FlagSet, args []string) error {
	err := fs.Parse(args)
	if err == nil || errors.Is(err, flag.ErrHelp) {
		return err
	}
	return usagef("%s: %v", fs.Name(), err)
}

func runCompare(args []string, stdout, stderr io.Writer) error {
	opt := benchstat.DefaultOptions()
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	opt.Flags(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usagef("compare: want at least one benchmark file")
	}
	if err := opt.Validate(); err != nil {
		return usagef("compare: %v", err)
	}
	if err := benchstat.Compare(stdout, stderr, opt, fs.Args()); err != nil {
		return fmt.Errorf("compare: %w", err)
	}
	return nil
}

func runGate(args []string, stdout, stderr io.Writer) error {
	cfg := gate.DefaultConfig()
	fs := flag.NewFlagSet("gate", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg.Flags(fs)
	format := fs.String("format", "text", "report `format`: "+strings.Join(gate.Formats, ", "))
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return usagef("gate: want two files, OLD and NEW; got %d arguments", fs.NArg())
	}
	if !slices.Contains(gate.Formats, *format) {
		return usagef("gate: -format %q: want one of %s", *format, strings.Join(gate.Formats, ", "))
	}
	if err := cfg.Validate(); err != nil {
		return usagef("gate: %v", err)
	}
	rep, err := gate.CompareFiles(fs.Arg(0), fs.Arg(1), cfg)
	if err != nil {
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

func runLeaderboard(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("leaderboard", flag.ContinueOnError)
	fs.SetOutput(stderr)
	cfg := leaderboard.DefaultConfig()
	results := fs.String("results", "", "`dir` of per-task JSONL results and .cell.json files (go test -results); A,B,… merges the parts of a sharded run")
	out := fs.String("out", "", "output `dir` (default: RESULTS/leaderboard for one results directory)")
	fs.StringVar(&cfg.Primary, "primary", cfg.Primary, "`measure` that ranks the systems and is paired-tested against the best")
	fs.StringVar(&cfg.Commit, "commit", "", "commit the results are of, shown on the pages (default: the cells')")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *results == "" || fs.NArg() != 0 {
		return usagef("leaderboard: need -results and no arguments")
	}
	dirs := strings.Split(*results, ",")
	if *out == "" {
		if len(dirs) > 1 {
			return usagef("leaderboard: -out is needed with several -results directories")
		}
		*out = filepath.Join(dirs[0], "leaderboard")
	}
	recs, err := resultfmt.ReadScoresOf(dirs)
	if err != nil {
		return err
	}
	cells, err := resultfmt.ReadCellsOf(dirs)
	if err != nil {
		return err
	}
	if cfg.Commit == "" {
		cfg.Commit = resultfmt.CommonCommit(cells)
	}
	b, err := leaderboard.Build(recs, cells, cfg)
	if err != nil {
		return err
	}
	if err := leaderboard.Write(*out, b, nil); err != nil {
		return err
	}
	for _, d := range b.Datasets {
		best := d.Best
		if best == "" {
			best = "none (every system failed)"
		}
		fmt.Fprintf(stdout, "%s: %d systems, %d cases, best %s\n", d.Key, len(d.Rows), d.Cases, best)
	}
	fmt.Fprintf(stdout, "leaderboard: %s\n", filepath.Join(*out, "index.html"))
	// A cell that failed every task is written as such, and the command
	// fails after writing, as retrievalbench leaderboard does.
	if failed := b.Failed(); len(failed) > 0 {
		return fmt.Errorf("leaderboard: %d cells failed every task: %s (pages written to %s)", len(failed), strings.Join(failed, "; "), *out)
	}
	return nil
}
