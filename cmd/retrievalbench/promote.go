package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/ledgerfmt"
	"github.com/retrievalbench/retrievalbench/promote"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

const promoteUsage = `usage: retrievalbench promote -baseline SYS/CONFIG -candidate SYS/CONFIG [flags]

Walks a candidate up the sweep ladder against a frozen baseline on one
dataset (docs/promotion.md):

  small_dev  free iteration: the paired numbers, no decision
  dev        promote only on a paired per-task win beyond noise (-test, -alpha)
  test       one confirmatory pass with caches off, the do-no-harm rules, and a
             line in the test-split ledger; refused when the ledger already has
             this candidate or it is a variant of a rejected one (-force-test)

-stage S runs every stage up to S and stops at the first that does not pass.
Each stage's results are the per-task JSONL files of
"go test ./bench -split STAGE -results DIR": with -exec (the default) the
command runs those go test invocations itself (-cell and each rule's cell),
into -results DIR/STAGE, which must be new; with -exec=false it reads
DIR/STAGE as given. The test stage runs with RETRIEVALBENCH_CACHE set to a
fresh directory that links only the inputs (onnxruntime, models, peers) of
the real cache, so every index and vector store is rebuilt.

Exit status: 0 when the last stage run passed (small_dev always does), 1 when
it held or rejected or the ledger refused, 2 on bad usage.

flags:
`

// runPromote is "retrievalbench promote".
func runPromote(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("promote", promoteUsage, stderr)
	cfg := promote.DefaultConfig("repoqa-python-docstring")
	baseName := fs.String("baseline", "", "frozen baseline `system/config`")
	candName := fs.String("candidate", "", "candidate `system/config`")
	stage := fs.String("stage", promote.StageTest, "last `stage` to run: small_dev, dev or test")
	fs.StringVar(&cfg.Dataset, "dataset", cfg.Dataset, "primary `dataset` as results name it")
	cell := fs.String("cell", "TestRepoQA/{system}/{config}/docstring", "bench test `path` of the primary dataset, {system} and {config} filled in")
	fs.StringVar(&cfg.Measure, "measure", cfg.Measure, "primary `measure`")
	fs.Float64Var(&cfg.Stats.Alpha, "alpha", cfg.Stats.Alpha, "significance level of every paired decision")
	fs.StringVar(&cfg.Test, "test", cfg.Test, "paired test that decides: bootstrap or permutation (both are reported)")
	fs.IntVar(&cfg.Stats.Resamples, "resamples", cfg.Stats.Resamples, "bootstrap resamples and randomization rounds")
	fs.Uint64Var(&cfg.Stats.Seed, "seed", cfg.Stats.Seed, "seed of the resampling")
	fs.Float64Var(&cfg.MinGain, "min-gain", cfg.MinGain, "smallest mean gain that can promote or confirm")
	rulesFile := fs.String("rules", "", "JSON `file` of do-no-harm rules (default: the built-in rules, see docs/promotion.md)")
	results := fs.String("results", "", "results root `dir`: stage S reads or writes DIR/S (default: a new temporary directory)")
	doExec := fs.Bool("exec", true, "run the go test invocations; false reads existing results")
	module := fs.String("module", ".", "module root `dir` where go test ./bench runs")
	ledgerPath := fs.String("ledger", "", "test-split ledger `file` (default MODULE/golden/LEDGER.jsonl)")
	family := fs.String("family", "", "lineage family of the candidate (default: its system/config)")
	parent := fs.String("parent", "", "config the candidate was derived from: `system/config` or a config hash")
	force := fs.String("force-test", "", "run the test stage although the ledger refuses it, for this `reason` (recorded)")
	jsonOut := fs.String("json", "", "also write the verdicts as JSON to `file`")
	verify := fs.String("verify-ledger", "", "only check that -ledger is `old` (an earlier version of it) plus appended well-formed lines, for CI")
	manifest := modelManifestFlag(fs)
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *verify != "" {
		return verifyLedger(*verify, *ledgerPath, *module, stdout)
	}
	// The go test runs started below inherit the variable this sets.
	if _, err := useModelManifest(*manifest); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("promote: unexpected arguments %q", fs.Args())
	}
	base, err := ledgerfmt.ParseArm(*baseName)
	if err != nil {
		return usagef("promote: -baseline %v", err)
	}
	cand, err := ledgerfmt.ParseArm(*candName)
	if err != nil {
		return usagef("promote: -candidate %v", err)
	}
	if !slices.Contains(promote.Stages(), *stage) {
		return usagef("promote: -stage %q: want %s", *stage, strings.Join(promote.Stages(), ", "))
	}
	if *rulesFile != "" {
		if cfg.Rules, err = promote.ReadRules(*rulesFile); err != nil {
			return usagef("promote: %v", err)
		}
	}
	if err := cfg.Validate(); err != nil {
		return usagef("promote: %v", err)
	}
	base.Hash, cand.Hash = registryHash(base), registryHash(cand)
	if *ledgerPath == "" {
		*ledgerPath = filepath.Join(*module, "golden", "LEDGER.jsonl")
	}
	if *results == "" {
		if !*doExec {
			return usagef("promote: -exec=false needs -results DIR")
		}
		if *results, err = os.MkdirTemp("", "retrievalbench-promote-"); err != nil {
			return err
		}
	}
	ladder := &promote.Ladder{
		Config: cfg, Baseline: base, Candidate: ledgerfmt.Candidate{Arm: cand, Family: *family, Parent: *parent},
		Cell: *cell, Results: *results, Exec: *doExec, Module: *module, Ledger: *ledgerPath, Force: *force,
		Log:     stderr,
		Verdict: func(v *promote.StageResult) { writeStageResult(stdout, v) },
		Recorded: func(line int, e ledgerfmt.Entry) {
			fmt.Fprintf(stdout, "ledger %s:%d: %s\n", *ledgerPath, line, e.Line())
		},
	}
	verdicts, err := ladder.Walk(context.Background(), *stage)
	if *jsonOut != "" && len(verdicts) > 0 {
		werr := atomicfile.Write(*jsonOut, func(w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetEscapeHTML(false)
			enc.SetIndent("", "  ")
			return enc.Encode(verdicts)
		})
		if werr != nil {
			return werr
		}
	}
	return err
}

// registryHash is the config hash of a built-in arm, "" when no built-in
// system has it (results from elsewhere).
func registryHash(a ledgerfmt.Arm) string {
	if s, ok := builtin.Find(builtin.Specs(), a.System+"/"+a.Config); ok {
		return s.Hash
	}
	return ""
}

func writeStageResult(w io.Writer, v *promote.StageResult) {
	c := v.Primary
	fmt.Fprintf(w, "== stage %s: %s[%s], %d tasks, %s (%s, α=%g)\n", v.Stage, c.Dataset, c.Split, c.N, c.Measure, v.Test, v.Alpha)
	writeComparison(w, "  ", v.Baseline, v.Candidate, c)
	if v.Comparisons > 1 {
		fmt.Fprintf(w, "  Holm p=%.4f (raw %s p=%.4f; %d candidates compared with this baseline on the test split)\n", v.PHolm, v.Test, c.P, v.Comparisons)
	}
	fmt.Fprintf(w, "  decision: %s\n", v.Decision)
	for _, r := range v.Reasons {
		fmt.Fprintf(w, "    %s\n", r)
	}
	for _, r := range v.Rules {
		fmt.Fprintf(w, "  rule %s (%s on %s[%s], max drop %g): %s — %s\n", r.Rule.Name, r.Rule.Measure, r.Rule.Dataset, r.Rule.Split, r.Rule.MaxDrop, r.Status, r.Reason)
		if r.Comparison != nil {
			writeComparison(w, "    ", v.Baseline, v.Candidate, *r.Comparison)
		}
	}
}

func writeComparison(w io.Writer, indent string, base, cand ledgerfmt.Arm, c promote.Paired) {
	fmt.Fprintf(w, "%sbaseline  %-34s %.4f [%.4f, %.4f]\n", indent, base.Name(), c.Baseline.Mean, c.Baseline.Low, c.Baseline.High)
	fmt.Fprintf(w, "%scandidate %-34s %.4f [%.4f, %.4f]\n", indent, cand.Name(), c.Candidate.Mean, c.Candidate.Low, c.Candidate.High)
	fmt.Fprintf(w, "%spaired diff %+.4f [%+.4f, %+.4f]  bootstrap p=%.4f  permutation p=%.4f  wins/losses/ties %d/%d/%d",
		indent, c.Diff.Mean, c.Diff.Low, c.Diff.High, c.PBootstrap, c.PPermutation, c.Wins, c.Losses, c.Ties)
	if c.McNemar != nil {
		fmt.Fprintf(w, "  McNemar b=%d c=%d p=%.4f", c.McNemar.B, c.McNemar.C, c.McNemar.P)
	}
	if c.Errors > 0 {
		fmt.Fprintf(w, "  (%d failed tasks)", c.Errors)
	}
	fmt.Fprintln(w)
}

// verifyLedger checks that the ledger only grew since old.
func verifyLedger(old, ledgerPath, module string, stdout io.Writer) error {
	if ledgerPath == "" {
		ledgerPath = filepath.Join(module, "golden", "LEDGER.jsonl")
	}
	ob, err := os.ReadFile(old)
	if err != nil {
		return usagef("promote: -verify-ledger: %v", err)
	}
	nb, err := os.ReadFile(ledgerPath)
	if err != nil {
		return usagef("promote: -verify-ledger: %v", err)
	}
	if err := ledgerfmt.VerifyAppendOnly(ob, nb); err != nil {
		return fmt.Errorf("promote: %s against %s: %w", ledgerPath, old, err)
	}
	if _, err := ledgerfmt.Read(ledgerPath); err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	fmt.Fprintf(stdout, "%s: append-only since %s (%d new lines)\n", ledgerPath, old, bytes.Count(nb[len(ob):], []byte("\n")))
	return nil
}
