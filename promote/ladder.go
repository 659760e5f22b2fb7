package promote

import (
	"context"
	"errors"
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
	"github.com/retrievalbench/retrievalbench/ledgerfmt"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Ladder is one walk of a candidate up the stages against a frozen
// baseline: where each stage's results come from, the ledger the test
// stage answers to, and who hears of its progress.
type Ladder struct {
	Config   Config
	Baseline ledgerfmt.Arm
	// Candidate is the arm walked up the ladder with its declared lineage.
	Candidate ledgerfmt.Candidate
	// Cell is the bench test path of the primary dataset, {system} and
	// {config} filled in per arm ("TestRepoQA/{system}/{config}/docstring").
	Cell string
	// Results is the results root: stage S reads or writes Results/S.
	Results string
	// Exec runs the go test invocations (into a new Results/S); without
	// it the stages read existing results.
	Exec bool
	// Module is the module root where go test ./bench runs.
	Module string
	// Ledger is the test-split ledger file; Force, when not empty, is the
	// reason to run the test stage although the ledger refuses it.
	Ledger, Force string
	// Log receives the progress lines: the go test invocations, the test
	// stage's fresh cache, a forced refusal.
	Log io.Writer
	// Verdict is called with each stage's verdict as it is made, Recorded
	// with each line appended to the ledger (its number, 1-based).
	Verdict  func(*StageResult)
	Recorded func(line int, e ledgerfmt.Entry)
}

// Walk runs the stages up to last and returns their verdicts. It stops at
// the first stage that holds or rejects (an error naming the stage); a
// test stage the ledger refuses runs nothing. Every test stage that
// started, verdict or failure, is a line of the ledger.
func (l *Ladder) Walk(ctx context.Context, last string) ([]*StageResult, error) {
	var (
		out      []*StageResult
		ledger   *ledgerfmt.Ledger
		overrode *RefusalError
	)
	if last == StageTest {
		// Before any run: a refused test evaluation wastes no compute.
		var err error
		if ledger, err = ledgerfmt.Read(l.Ledger); err != nil {
			return nil, err
		}
		if overrode, err = Admit(ledger, l.Candidate, l.Force); err != nil {
			return nil, fmt.Errorf("promote: %w", err)
		}
		if overrode != nil {
			fmt.Fprintf(l.Log, "promote: FORCED past %s:%d (%s): %s\n", l.Ledger, overrode.Line, overrode.Why, l.Force)
		}
	}
	record := func(e ledgerfmt.Entry) error {
		if err := ledger.Append(e); err != nil {
			return fmt.Errorf("promote: recording the test evaluation: %w", err)
		}
		if l.Recorded != nil {
			l.Recorded(len(ledger.Entries), e)
		}
		return nil
	}
	for _, stage := range Stages() {
		var prior []float64
		if stage == StageTest {
			// Every candidate the test split compared with this baseline
			// before is one more comparison this one's p-value answers for.
			prior = PriorP(ledger, l.Baseline, l.Config.Dataset, l.Config.Measure)
		}
		v, err := l.stage(ctx, stage, prior)
		if err != nil {
			if stage == StageTest {
				// The test split is spent once its go test runs start:
				// they print means as they go.
				now := time.Now().UTC().Format(time.RFC3339)
				if rerr := record(NewErrorEntry(l.Baseline, l.Candidate, l.Config.Dataset, now, GitCommit(l.Module), err, overrode, l.Force)); rerr != nil {
					return out, errors.Join(err, rerr)
				}
			}
			return out, err
		}
		out = append(out, v)
		if l.Verdict != nil {
			l.Verdict(v)
		}
		if stage == StageTest {
			e := NewEntry(v, l.Candidate, time.Now().UTC().Format(time.RFC3339), GitCommit(l.Module), overrode, l.Force)
			if err := record(e); err != nil {
				return out, err
			}
		}
		switch v.Decision {
		case DecisionHold, DecisionRejected:
			return out, fmt.Errorf("promote: %s: %s %s", stage, l.Candidate.Name(), v.Decision)
		}
		if stage == last {
			return out, nil
		}
	}
	return out, nil
}

// stage runs (or reads) one stage's results and evaluates them, among the
// earlier comparisons with the baseline whose p-values prior holds.
func (l *Ladder) stage(ctx context.Context, stage string, prior []float64) (*StageResult, error) {
	recs, err := l.results(ctx, stage)
	if err != nil {
		return nil, err
	}
	v, err := EvaluateAmong(stage, recs, l.Baseline, l.Candidate.Arm, l.Config, prior)
	if err != nil {
		return nil, fmt.Errorf("promote: %s: %w", stage, err)
	}
	return v, nil
}

// results returns the records of one stage: run (Exec) or read.
func (l *Ladder) results(ctx context.Context, stage string) ([]resultfmt.Record, error) {
	dir := filepath.Join(l.Results, stage)
	if !l.Exec {
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
	if stage == StageTest {
		fresh, err := freshCache(l.Results)
		if err != nil {
			return nil, err
		}
		env = append(env, cache.EnvDir+"="+fresh)
		fmt.Fprintf(l.Log, "promote: test stage with caches off: %s=%s (inputs linked from %s)\n", cache.EnvDir, fresh, cache.Dir())
	}
	cells := []string{l.Cell}
	if stage == StageTest {
		for _, r := range l.Config.Rules {
			if r.Applies(l.Config.Dataset) && r.Cell != "" && !slices.Contains(cells, r.Cell) {
				cells = append(cells, r.Cell)
			}
		}
	}
	for i, c := range cells {
		for j, pat := range cellPatterns(c, l.Baseline, l.Candidate.Arm) {
			log := filepath.Join(l.Results, fmt.Sprintf("%s-%d%c.log", stage, i+1, 'a'+j))
			if err := l.goTest(ctx, env, pat, stage, dir, log); err != nil {
				return nil, err
			}
		}
	}
	recs, err := resultfmt.ReadRecords(dir)
	if err != nil {
		return nil, fmt.Errorf("promote: %s: the go test runs wrote no results (see %s/%s-*.log): %w", stage, l.Results, stage, err)
	}
	return recs, nil
}

// goTest runs one go test invocation. A non-zero exit is not an error by
// itself: the bench fails cells of splits that have no golden file (dev,
// test, small_dev) after writing their results; whether the results are
// there is checked by the caller.
func (l *Ladder) goTest(ctx context.Context, env []string, pattern, split, dir, logFile string) error {
	args := []string{"test", "./bench", "-tags=sqlite_fts5", "-count=1", "-timeout=0", "-run", pattern, "-split", split, "-results", dir}
	fmt.Fprintf(l.Log, "promote: go %s  (log %s)\n", strings.Join(quoteArgs(args), " "), logFile)
	f, err := os.Create(logFile)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir, cmd.Env, cmd.Stdout, cmd.Stderr = l.Module, env, f, f
	cmd.WaitDelay = 10 * time.Second
	err = cmd.Run()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		fmt.Fprintf(l.Log, "promote: go test exited %d (expected when the split has no golden files; results are checked next)\n", ee.ExitCode())
		return nil
	}
	return err
}

// cellPatterns turns a cell template into go test -run patterns: one
// pattern for both arms when they share a system, else one per arm.
func cellPatterns(template string, base, cand ledgerfmt.Arm) []string {
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

// GitCommit names the module's HEAD at dir, "+dirty" when the tree has
// changes (other than the ledger itself), "unknown" outside git: the
// commit a ledger line records.
func GitCommit(dir string) string {
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
