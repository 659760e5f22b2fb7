package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"sort"
)

// command is one subcommand: it parses its own flags from args.
type command struct {
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

// commands returns the subcommands. Each lives in a file of its own name.
func commands() map[string]command {
	return map[string]command{
		// one line per subcommand, e.g.
		// "eval": {"evaluate a TREC run against qrels (trec_eval output)", runEval},
		"cache":         {"list what the cache holds (sizes, last use) or evict entries by kind, age or all", runCache},
		"campaign":      {"run embedding models and BM25 over a case file's repositories; pool results for grading", runCampaign},
		"campaign-gate": {"compare two campaign runs on the same case file, per system (paired); exit 1 on a regression", runCampaignGate},
		"compare":       {"benchstat's tables for benchmark files (same flags and output as golang.org/x/perf/cmd/benchstat)", runCompare},
		"data":          {"fetch datasets into the cache (pinned sha256) or list what is there", runData},
		"embed":         {"embed texts with a manifest model; write their vectors as JSONL", runEmbed},
		"eval":          {"evaluate a TREC run against qrels (trec_eval output)", runEval},
		"gate":          {"compare two benchmark files; exit 1 on a significant regression", runGate},
		"leaderboard":   {"leaderboard (md, self-contained html, plots) from go test ./bench -results DIR; -mlflow logs every cell", runLeaderboard},
		"leakage":       {"count queries copied into their gold or corpus, and duplicate documents, per dataset", runLeakage},
		"models":        {"list the embedding models, or fetch them and ONNX Runtime into the cache", runModels},
		"promote":       {"walk a candidate config up the sweep ladder: small_dev, dev (paired win), one test pass with a ledger", runPromote},
		"report":        {"reports and plots from per-task JSONL results (go test ./bench -results DIR)", runReport},
		"score":         {"merge a filled grading sheet with the gold and recompute a campaign's reports", runScore},
		"validate":      {"list every error of a case file (file:line), checked against its repositories with -repos", runValidate},
	}
}

// usageError marks bad usage (exit 2); every other error exits 1.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// exitCode maps an error to the process exit status: 2 for bad usage, 1
// for everything else.
func exitCode(err error) int {
	var u *usageError
	if errors.As(err, &u) {
		return 2
	}
	return 1
}

func run(args []string, stdout, stderr io.Writer) error {
	cmds := commands()
	if len(args) == 0 || args[0] == "help" || args[0] == "-h" || args[0] == "--help" {
		printUsage(stdout, cmds)
		if len(args) == 0 {
			return usagef("no command given")
		}
		return nil
	}
	c, ok := cmds[args[0]]
	if !ok {
		printUsage(stderr, cmds)
		return usagef("unknown command %q", args[0])
	}
	err := c.run(args[1:], stdout, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil // the flag set already printed the usage
	}
	return err
}

func printUsage(w io.Writer, cmds map[string]command) {
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	fmt.Fprintln(w, "usage: retrievalbench <command> [flags] [args]")
	fmt.Fprintln(w, "\ncommands:")
	for _, n := range names {
		fmt.Fprintf(w, "  %-10s %s\n", n, cmds[n].summary)
	}
}
