package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/promote"
	"github.com/retrievalbench/retrievalbench/resultfmt"
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
	fs := flag.NewFlagSet("promote", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, promoteUsage); fs.PrintDefaults() }
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
	base, err := promote.ParseArm(*baseName)
	if err != nil {
		return usagef("promote: -baseline %v", err)
	}
	cand, err := promote.ParseArm(*candName)
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
	p := &promotion{
		cfg: cfg, base: base, cand: cand, cell: *cell, root: *results, exec: *doExec, module: *module,
		stdout: stdout, stderr: stderr,
		candidate: promote.Candidate{Arm: cand, Family: *family, Parent: *parent},
	}
	verdicts, err := p.walk(context.Background(), *stage, *ledgerPath, *force)
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
func registryHash(a promote.Arm) string {
	if s, ok := builtin.Find(builtin.Specs(), a.System+"/"+a.Config); ok {
		return s.Hash
	}
	return ""
}

type promotion struct {
	cfg            promote.Config
	base, cand     promote.Arm
	candidate      promote.Candidate
	cell, root     string
	exec           bool
	module         string
	stdout, stderr io.Writer
}

// walk runs the stages up to last and returns their verdicts.
func (p *promotion) walk(ctx context.Context, last, ledgerPath, force string) ([]*promote.StageResult, error) {
	var (
		out      []*promote.StageResult
		ledger   *promote.Ledger
		overrode *promote.RefusalError
	)
	if last == promote.StageTest {
		// Before any run: a refused test evaluation wastes no compute.
		var err error
		if ledger, err = promote.ReadLedger(ledgerPath); err != nil {
			return nil, err
		}
		if overrode, err = ledger.Admit(p.candidate, force); err != nil {
			return nil, fmt.Errorf("promote: %w", err)
		}
		if overrode != nil {
			fmt.Fprintf(p.stderr, "promote: FORCED past %s:%d (%s): %s\n", ledgerPath, overrode.Line, overrode.Why, force)
		}
	}
	record := func(e promote.Entry) error {
		if err := ledger.Append(e); err != nil {
			return fmt.Errorf("promote: recording the test evaluation: %w", err)
		}
		fmt.Fprintf(p.stdout, "ledger %s:%d: %s\n", ledgerPath, len(ledger.Entries), e.Line())
		return nil
	}
	for _, stage := range promote.Stages() {
		var prior []float64
		if stage == promote.StageTest {
			// Every candidate the test split compared with this baseline
			// before is one more comparison this one's p-value answers for.
			prior = ledger.PriorP(p.base, p.cfg.Dataset, p.cfg.Measure)
		}
		v, err := p.stage(ctx, stage, prior)
		if err != nil {
			if stage == promote.StageTest {
				// The test split is spent once its go test runs start:
				// they print means as they go.
				now := time.Now().UTC().Format(time.RFC3339)
				if rerr := record(promote.NewErrorEntry(p.base, p.candidate, p.cfg.Dataset, now, gitCommit(p.module), err, overrode, force)); rerr != nil {
					return out, errors.Join(err, rerr)
				}
			}
			return out, err
		}
		out = append(out, v)
		writeStageResult(p.stdout, v)
		if stage == promote.StageTest {
			e := promote.NewEntry(v, p.candidate, time.Now().UTC().Format(time.RFC3339), gitCommit(p.module), overrode, force)
			if err := record(e); err != nil {
				return out, err
			}
		}
		switch v.Decision {
		case promote.DecisionHold, promote.DecisionRejected:
			return out, fmt.Errorf("promote: %s: %s %s", stage, p.cand.Name(), v.Decision)
		}
		if stage == last {
			return out, nil
		}
	}
	return out, nil
}

// stage runs (or reads) one stage's results and evaluates them, among the
// earlier comparisons with the baseline whose p-values prior holds.
func (p *promotion) stage(ctx context.Context, stage string, prior []float64) (*promote.StageResult, error) {
	recs, err := p.results(ctx, stage)
	if err != nil {
		return nil, err
	}
	v, err := promote.EvaluateAmong(stage, recs, p.base, p.cand, p.cfg, prior)
	if err != nil {
		return nil, fmt.Errorf("promote: %s: %w", stage, err)
	}
	return v, nil
}

// results returns the records of one stage: run (exec) or read.
func (p *promotion) results(ctx context.Context, stage string) ([]resultfmt.Record, error) {
	dir := filepath.Join(p.root, stage)
	if !p.exec {
		recs, err := resultfmt.ReadRecords(dir)
		if err != nil {
			return nil, fmt.Errorf("promote: %s results: %w", stage, err)
		}
		return recs, nil
	}
	if ents, err := os.ReadDir(dir); err == nil && len(ents) > 0 {
		return nil, fmt.Errorf("promote: %s exists and is not empty: -exec writes each stage into a new directory (use -exec=false to read it)", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	env := os.Environ()
	if stage == promote.StageTest {
		fresh, err := freshCache(p.root)
		if err != nil {
			return nil, err
		}
		env = append(env, cache.EnvDir+"="+fresh)
		fmt.Fprintf(p.stderr, "promote: test stage with caches off: %s=%s (inputs linked from %s)\n", cache.EnvDir, fresh, cache.Dir())
	}
	cells := []string{p.cell}
	if stage == promote.StageTest {
		for _, r := range p.cfg.Rules {
			if r.Applies(p.cfg.Dataset) && r.Cell != "" && !slices.Contains(cells, r.Cell) {
				cells = append(cells, r.Cell)
			}
		}
	}
	for i, c := range cells {
		for j, pat := range cellPatterns(c, p.base, p.cand) {
			log := filepath.Join(p.root, fmt.Sprintf("%s-%d%c.log", stage, i+1, 'a'+j))
			if err := p.goTest(ctx, env, pat, stage, dir, log); err != nil {
				return nil, err
			}
		}
	}
	recs, err := resultfmt.ReadRecords(dir)
	if err != nil {
		return nil, fmt.Errorf("promote: %s: the go test runs wrote no results (see %s/%s-*.log): %w", stage, p.root, stage, err)
	}
	return recs, nil
}

// goTest runs one go test invocation. A non-zero exit is not an error by
// itself: the bench fails cells of splits that have no golden file (dev,
// test, small_dev) after writing their results; whether the results are
// there is checked by the caller.
func (p *promotion) goTest(ctx context.Context, env []string, pattern, split, dir, logFile string) error {
	args := []string{"test", "./bench", "-tags=sqlite_fts5", "-count=1", "-timeout=0", "-run", pattern, "-split", split, "-results", dir}
	fmt.Fprintf(p.stderr, "promote: go %s  (log %s)\n", strings.Join(quoteArgs(args), " "), logFile)
	f, err := os.Create(logFile)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = p.module, env, f, f
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		fmt.Fprintf(p.stderr, "promote: go test exited %d (expected when the split has no golden files; results are checked next)\n", ee.ExitCode())
		return nil
	}
	return err
}

// cellPatterns turns a cell template into go test -run patterns: one
// pattern for both arms when they share a system, else one per arm.
func cellPatterns(template string, base, cand promote.Arm) []string {
	build := func(sys, cfgAlt string) string {
		parts := strings.Split(template, "/")
		for i, s := range parts {
			switch s {
			case "{system}":
				parts[i] = "^" + regexp.QuoteMeta(sys) + "$"
			case "{config}":
				parts[i] = "^" + cfgAlt + "$"
			default:
				parts[i] = "^" + regexp.QuoteMeta(s) + "$"
			}
		}
		return strings.Join(parts, "/")
	}
	if base.System == cand.System {
		return []string{build(base.System, "("+regexp.QuoteMeta(base.Config)+"|"+regexp.QuoteMeta(cand.Config)+")")}
	}
	return []string{build(base.System, regexp.QuoteMeta(base.Config)), build(cand.System, regexp.QuoteMeta(cand.Config))}
}

// freshCache makes ROOT/test-cache holding symbolic links to the inputs of
// the real cache (ONNX Runtime, model files, installed peer tools) and
// nothing else, so that the test stage rebuilds every index and vector
// store.
func freshCache(root string) (string, error) {
	fresh := filepath.Join(root, "test-cache")
	if err := os.MkdirAll(fresh, 0o755); err != nil {
		return "", err
	}
	real, err := filepath.Abs(cache.Dir())
	if err != nil {
		return "", err
	}
	for _, in := range []string{"onnxruntime", "models", "peers"} {
		src := filepath.Join(real, in)
		if _, err := os.Stat(src); err != nil {
			continue
		}
		if err := os.Symlink(src, filepath.Join(fresh, in)); err != nil && !errors.Is(err, os.ErrExist) {
			return "", err
		}
	}
	return filepath.Abs(fresh)
}

func quoteArgs(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		if strings.ContainsAny(a, "^$|()*? ") {
			a = "'" + a + "'"
		}
		out[i] = a
	}
	return out
}

// gitCommit names the module's HEAD, "+dirty" when the tree has changes
// (other than the ledger itself), "unknown" outside git.
func gitCommit(dir string) string {
	out, err := exec.Command("git", "-C", dir, "rev-parse", "--short=12", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	c := strings.TrimSpace(string(out))
	st, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no", "--", ".", ":(exclude)golden/LEDGER.jsonl").Output()
	if err == nil && len(strings.TrimSpace(string(st))) > 0 {
		c += "+dirty"
	}
	return c
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

func writeComparison(w io.Writer, indent string, base, cand promote.Arm, c promote.Comparison) {
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
	if err := promote.VerifyAppendOnly(ob, nb); err != nil {
		return fmt.Errorf("promote: %s against %s: %w", ledgerPath, old, err)
	}
	if _, err := promote.ReadLedger(ledgerPath); err != nil {
		return fmt.Errorf("promote: %w", err)
	}
	fmt.Fprintf(stdout, "%s: append-only since %s (%d new lines)\n", ledgerPath, old, bytes.Count(nb[len(ob):], []byte("\n")))
	return nil
}
