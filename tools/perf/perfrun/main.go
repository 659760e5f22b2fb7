// Command perfrun is "make perf": retrievalbench side by side with the tools
// users would pick instead, whole processes on the same inputs.
//
//	go run ./tools/perf/perfrun [-runs 3] [-jobs eval,bm25,embed] [-out docs/performance.md]
//
// It creates a virtual environment under $RETRIEVALBENCH_CACHE/perf-venv
// with the peers pinned in tools/perf/peers/requirements.txt (pytrec-eval-terrier,
// which is trec_eval's C code; tantivy's Python bindings and bm25s with
// PyStemmer; onnxruntime with tokenizers), builds this repository's
// commands, generates or exports the inputs, and then runs ours and theirs
// alternating, -runs times each, under /usr/bin/time -v (wall, CPU, peak
// RSS). The bm25 job (-bm25-datasets, -bm25-peers) gives every side the same
// job: index docs.jsonl, then the top 100 ids of every query, one thread.
// Results must agree: eval values to 4 decimals; BM25 rankings of our Go
// scorer identical to FTS5's bm25() (the peers' overlap with ours and their
// nDCG@10 and recall@100 are reported);
// embedding vectors of 200 RepoQA chunks at cosine >= 0.9999 to Python
// onnxruntime's (tools/perf/peers/peer_ort.py, same model files, batch 1).
// It prints the table and writes it with the machine line to -out.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/synth"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "perfrun:", err)
		os.Exit(1)
	}
}

type env struct {
	runs   int
	work   string // generated inputs, binaries, outputs
	venv   string
	python string
	data   string
	rb     string // our retrievalbench binary
	perfgo string
	peers  string // tools/perf/peers: the Python peers
	// trecEval and trecEvalO2 are trec_eval 10.0 built from source with
	// its Makefile's flags and with -O2 added (ensureTrecEval).
	trecEval, trecEvalO2 string
	// shapes, evalPeerNames and evalSets are the eval job's inputs, peers
	// and measure sets (evalMeasureSets).
	shapes, evalPeerNames, evalSets []string
	// bm25DatasetNames and bm25PeerNames are the bm25 job's.
	bm25DatasetNames, bm25PeerNames []string
	rows                            []string
	notes                           []string
}

func run() error {
	runs := flag.Int("runs", 3, "runs of each side, alternating")
	jobs := flag.String("jobs", "eval,bm25,embed", "comma-separated: eval, bm25, embed")
	out := flag.String("out", "docs/performance.md", "markdown file to write (empty: stdout only)")
	data := flag.String("data", os.Getenv("RETRIEVALBENCH_DATA"), "data pack directory (for bm25)")
	shapes := flag.String("shapes", "few,dense,shuffled,dense-20m,dense-50m", "eval inputs, comma-separated: few, dense, shuffled, dense-shuffled, dense-20m, dense-50m")
	evalPeers := flag.String("eval-peers", "trec_eval,trec_eval-O2,pytrec_eval,ranx", "eval peers, comma-separated: trec_eval (10.0, its Makefile's flags), trec_eval-O2, pytrec_eval, ranx")
	evalSets := flag.String("eval-measures", "default", "eval measure sets, comma-separated: "+strings.Join(evalSetNames(), ", ")+" (pytrec_eval and ranx run the default set only)")
	bm25Datasets := flag.String("bm25-datasets", "vaswani,sweqa,cosqa,repoqa", "bm25 datasets, comma-separated: vaswani, sweqa, cosqa, repoqa")
	bm25Peers := flag.String("bm25-peers", "tantivy,tantivy-ram,bm25s", "bm25 peers, comma-separated: tantivy (index on disk), tantivy-ram, bm25s")
	setup := flag.String("setup", "", "install peers and stop: trec_eval (the binary alone) or all (the virtual environment too)")
	flag.Parse()
	cache := testenv.CacheDir()
	e := &env{
		runs:             *runs,
		work:             filepath.Join(cache, "perf"),
		venv:             filepath.Join(cache, "perf-venv"),
		data:             *data,
		peers:            filepath.Join("tools", "perf", "peers"),
		shapes:           strings.Split(*shapes, ","),
		evalPeerNames:    strings.Split(*evalPeers, ","),
		evalSets:         strings.Split(*evalSets, ","),
		bm25DatasetNames: strings.Split(*bm25Datasets, ","),
		bm25PeerNames:    strings.Split(*bm25Peers, ","),
	}
	e.python = filepath.Join(e.venv, "bin", "python")
	if _, err := os.Stat(filepath.Join(e.peers, "requirements.txt")); err != nil {
		return fmt.Errorf("run from the repository root: %w", err)
	}
	if err := os.MkdirAll(e.work, 0o755); err != nil {
		return err
	}
	switch *setup {
	case "", "all":
	case "trec_eval":
		if err := e.ensureTrecEval(); err != nil {
			return err
		}
		fmt.Fprintln(os.Stderr, "perfrun: installed", e.trecEval, e.trecEvalO2)
		return nil
	default:
		return fmt.Errorf("-setup %q: want trec_eval or all", *setup)
	}
	if err := e.ensureVenv(); err != nil {
		return err
	}
	if err := e.ensureTrecEval(); err != nil {
		return err
	}
	if *setup == "all" {
		fmt.Fprintln(os.Stderr, "perfrun: peers installed:", e.venv, e.trecEval, e.trecEvalO2)
		return nil
	}
	if err := e.build(); err != nil {
		return err
	}
	loadBefore := loadAvg()
	// The table is written after each job, so a long run that is cut short
	// keeps what it measured.
	for _, j := range strings.Split(*jobs, ",") {
		var err error
		switch j {
		case "eval":
			err = e.evalJob()
		case "bm25":
			err = e.bm25Job()
		case "embed":
			err = e.embedJob()
		default:
			err = fmt.Errorf("unknown job %q", j)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", j, err)
		}
		if err := e.report(*out, *jobs, loadBefore); err != nil {
			return err
		}
	}
	return nil
}

// report prints the table measured so far and writes it to out.
func (e *env) report(out, jobs, loadBefore string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "machine: %s; load average before %s, after %s; %s\n\n", machine(), loadBefore, loadAvg(), time.Now().UTC().Format("2006-01-02 15:04 UTC"))
	fmt.Fprintf(&b, "Medians of %d whole-process runs per side, ours and theirs alternating. Command: `make perf` (`go run ./tools/perf/perfrun -runs %d -jobs %s -shapes %s -eval-peers %s -eval-measures %s -bm25-datasets %s -bm25-peers %s`). The eval rows give the load average (1 minute) before and after their runs.\n\n", e.runs, e.runs, jobs, strings.Join(e.shapes, ","), strings.Join(e.evalPeerNames, ","), strings.Join(e.evalSets, ","), strings.Join(e.bm25DatasetNames, ","), strings.Join(e.bm25PeerNames, ","))
	b.WriteString("| job | retrievalbench | peer | ratio |\n|---|---|---|---|\n")
	for _, r := range e.rows {
		b.WriteString(r + "\n")
	}
	if len(e.notes) > 0 {
		b.WriteString("\n")
		for _, n := range e.notes {
			b.WriteString("- " + n + "\n")
		}
	}
	fmt.Print(b.String())
	if out == "" {
		return nil
	}
	return writeSection(out, b.String())
}

// writeSection replaces the generated part of the markdown file at path
// (between the two markers) with s, keeping the hand-written rest.
func writeSection(path, s string) error {
	const begin, end = "<!-- perfrun:begin -->\n", "<!-- perfrun:end -->\n"
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	doc := string(old)
	i, j := strings.Index(doc, begin), strings.Index(doc, end)
	if i < 0 || j < i {
		doc = "# Performance\n\n" + begin + end
		i, j = strings.Index(doc, begin), strings.Index(doc, end)
	}
	doc = doc[:i+len(begin)] + s + doc[j:]
	return atomicfile.Write(path, func(w io.Writer) error { _, err := io.WriteString(w, doc); return err })
}

func machine() string {
	cpu := "unknown CPU"
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				cpu = strings.TrimSpace(v)
				break
			}
		}
	}
	u, _ := exec.Command("uname", "-srm").Output()
	return fmt.Sprintf("%s, %s, %d cores, %s", strings.TrimSpace(string(u)), cpu, runtime.NumCPU(), runtime.Version())
}

func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:3], " ")
}

// ensureVenv creates the peers' virtual environment, or reinstalls it when
// tools/perf/peers/requirements.txt changed since.
func (e *env) ensureVenv() error {
	req, err := os.ReadFile(filepath.Join(e.peers, "requirements.txt"))
	if err != nil {
		return err
	}
	stamp := filepath.Join(e.venv, "requirements.installed")
	if old, err := os.ReadFile(stamp); err == nil && bytes.Equal(old, req) {
		return nil
	}
	fmt.Fprintln(os.Stderr, "perfrun: creating", e.venv)
	if _, err := os.Stat(e.python); err != nil {
		if err := runLoud("python3", "-m", "venv", e.venv); err != nil {
			return err
		}
	}
	if err := runLoud(e.python, "-m", "pip", "install", "-q", "-r", filepath.Join(e.peers, "requirements.txt")); err != nil {
		return err
	}
	return os.WriteFile(stamp, req, 0o644)
}

func (e *env) build() error {
	bin := filepath.Join(e.work, "bin")
	e.rb = filepath.Join(bin, "retrievalbench")
	e.perfgo = filepath.Join(bin, "perfgo")
	for _, b := range [][2]string{{e.rb, "./cmd/retrievalbench"}, {e.perfgo, "./tools/perf/perfgo"}} {
		if err := runLoud("go", "build", "-tags=sqlite_fts5", "-buildvcs=false", "-o", b[0], b[1]); err != nil {
			return err
		}
	}
	return nil
}

func runLoud(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return nil
}

// sample is one measured whole-process run.
type sample struct {
	wall, cpu float64 // seconds
	rssMB     float64
	stdout    []byte
}

// timed runs the command under /usr/bin/time -v.
func (e *env) timed(args ...string) (sample, error) {
	tf := filepath.Join(e.work, "time.txt")
	cmd := exec.Command("/usr/bin/time", append([]string{"-v", "-o", tf}, args...)...)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		return sample{}, fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	tb, err := os.ReadFile(tf)
	if err != nil {
		return sample{}, err
	}
	s := sample{stdout: out.Bytes()}
	var user, sys float64
	for _, l := range strings.Split(string(tb), "\n") {
		k, v, ok := strings.Cut(strings.TrimSpace(l), ": ")
		if !ok {
			continue
		}
		switch {
		case k == "User time (seconds)":
			user, _ = strconv.ParseFloat(v, 64)
		case k == "System time (seconds)":
			sys, _ = strconv.ParseFloat(v, 64)
		case k == "Maximum resident set size (kbytes)":
			kb, _ := strconv.ParseFloat(v, 64)
			s.rssMB = kb / 1024
		case strings.HasPrefix(k, "Elapsed (wall clock) time"):
			s.wall = parseClock(v)
		}
	}
	s.cpu = user + sys
	return s, nil
}

// parseClock parses time's "h:mm:ss" or "m:ss.ss".
func parseClock(v string) float64 {
	var t float64
	for _, p := range strings.Split(v, ":") {
		f, _ := strconv.ParseFloat(p, 64)
		t = t*60 + f
	}
	return t
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// quantile is the nearest-rank quantile of xs.
func quantile(xs []float64, q float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	i := int(math.Ceil(q*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

type samples []sample

func (ss samples) med(f func(sample) float64) float64 {
	var xs []float64
	for _, s := range ss {
		xs = append(xs, f(s))
	}
	return median(xs)
}

func wallOf(s sample) float64 { return s.wall }
func cpuOf(s sample) float64  { return s.cpu }
func rssOf(s sample) float64  { return s.rssMB }

// evalShape is one input shape of the eval job.
type evalShape struct {
	name, what string
	qrels, run string
	// trecEvalOnly: the Python peers are not run (their dictionaries of
	// tens of millions of judgments would take many GB on a shared machine).
	trecEvalOnly bool
}

// evalShapes generates (once) and returns the inputs of the named shapes:
// few judgments per query (internal/synth's default: 50), dense judgments
// (500 per query, as pooled TREC collections have: 5,000,000 qrels lines),
// and the few-judgment run with its lines shuffled (not grouped by query);
// "dense-shuffled" is the dense run shuffled. dense-20m and dense-50m keep
// 500 judged documents per query and grow the queries to 40,000 and
// 100,000 (20,000,000 and 50,000,000 qrels lines) with 100 results each,
// so the judgments, not the run, are most of the input.
func (e *env) evalShapes(names []string) ([]evalShape, error) {
	few, dense := synth.DefaultConfig(), synth.DefaultConfig()
	dense.Judged = 500
	dense20, dense50 := dense, dense
	dense20.Queries, dense20.Retrieved = 40_000, 100
	dense50.Queries, dense50.Retrieved = 100_000, 100
	gen := func(dir string, cfg synth.Config, shuffled bool) (evalShape, error) {
		qrels, run := filepath.Join(dir, "qrels.txt"), filepath.Join(dir, "run.txt")
		if _, err := os.Stat(run); err != nil {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return evalShape{}, err
			}
			if _, _, err := synth.WriteFiles(dir, cfg); err != nil {
				return evalShape{}, err
			}
		}
		order := "grouped"
		if shuffled {
			order = "shuffled"
			src := run
			run = filepath.Join(dir, "run-shuffled.txt")
			if _, err := os.Stat(run); err != nil {
				if err := shuffleLines(src, run, 7); err != nil {
					return evalShape{}, err
				}
			}
		}
		what := fmt.Sprintf("%d queries × %d results, %d judged per query, %s (%.0f MB run, %.0f MB qrels)",
			cfg.Queries, cfg.Retrieved, cfg.Judged, order, fileMB(run), fileMB(qrels))
		return evalShape{what: what, qrels: qrels, run: run}, nil
	}
	var out []evalShape
	for _, n := range names {
		var sh evalShape
		var err error
		switch n {
		case "few":
			sh, err = gen(filepath.Join(e.work, "synth"), few, false)
		case "shuffled":
			sh, err = gen(filepath.Join(e.work, "synth"), few, true)
		case "dense":
			sh, err = gen(filepath.Join(e.work, "dense"), dense, false)
		case "dense-shuffled":
			sh, err = gen(filepath.Join(e.work, "dense"), dense, true)
		case "dense-20m":
			sh, err = gen(filepath.Join(e.work, "dense-20m"), dense20, false)
		case "dense-50m":
			sh, err = gen(filepath.Join(e.work, "dense-50m"), dense50, false)
		default:
			err = fmt.Errorf("unknown shape %q (few, dense, shuffled, dense-shuffled, dense-20m, dense-50m)", n)
		}
		if err != nil {
			return nil, err
		}
		sh.name = n
		sh.trecEvalOnly = strings.HasPrefix(n, "dense-") && strings.HasSuffix(n, "m")
		out = append(out, sh)
	}
	return out, nil
}

// evalPeer is a tool a user would evaluate a run with instead.
type evalPeer struct {
	name, desc string
	// cmd returns the command line for the measure set's flags (flags is
	// nil for a peer that runs the default set only).
	cmd func(flags []string, qrels, run string) []string
	// trecEval: a trec_eval binary, which takes every measure set, and
	// whose whole output must equal ours byte for byte. Otherwise the
	// peer prints map and ndcg_cut_10 of the default set.
	trecEval bool
	// strict: its values must equal ours, or the job fails.
	strict bool
}

func (e *env) evalPeers(names []string) ([]evalPeer, error) {
	var out []evalPeer
	for _, n := range names {
		switch n {
		case "trec_eval", "trec_eval-O2":
			bin, b := e.trecEval, testenv.TrecEvalDefault
			if n == "trec_eval-O2" {
				bin, b = e.trecEvalO2, testenv.TrecEvalO2
			}
			out = append(out, evalPeer{n, "trec_eval " + testenv.TrecEvalVersion + " built from source (" + b.What + ")", func(flags []string, q, r string) []string {
				return append(append([]string{bin}, flags...), q, r)
			}, true, true})
		case "pytrec_eval":
			out = append(out, evalPeer{n, "pytrec_eval (trec_eval's C code) whole process", func(_ []string, q, r string) []string {
				return []string{e.python, filepath.Join(e.peers, "peer_trec_eval.py"), q, r}
			}, false, true})
		case "ranx":
			out = append(out, evalPeer{n, "ranx (numba) whole process", func(_ []string, q, r string) []string {
				return []string{e.python, filepath.Join(e.peers, "peer_ranx.py"), q, r}
			}, false, false})
		default:
			return nil, fmt.Errorf("unknown eval peer %q (trec_eval, trec_eval-O2, pytrec_eval, ranx)", n)
		}
	}
	return out, nil
}

// evalMeasureSets are the eval job's measure sets: the flags both eval
// and trec_eval are given (the timed runs; -q is added for the check).
// default is the one the Python peers compute too; the others are what
// users add to it.
var evalMeasureSets = map[string][]string{
	"default":  {"-c", "-m", "map", "-m", "ndcg_cut.10"},
	"ndcg_cut": {"-c", "-m", "ndcg_cut.5,10,20"},
	"P":        {"-c", "-m", "P.1,5,10"},
	"M100":     {"-c", "-M", "100", "-m", "map", "-m", "ndcg_cut.10"},
	"l2":       {"-c", "-l", "2", "-m", "map", "-m", "ndcg_cut.10"},
	"official": {"-c"},
	"all_trec": {"-c", "-m", "all_trec"},
	"J":        {"-c", "-J", "-m", "map", "-m", "ndcg_cut.10"},
}

func evalSetNames() []string {
	var ns []string
	for n := range evalMeasureSets {
		ns = append(ns, n)
	}
	slices.Sort(ns)
	return ns
}

// evalJob: retrievalbench eval against trec_eval 10.0 (two builds),
// pytrec_eval and ranx on each shape and measure set, ours and the peers
// alternating. Before the timed runs, eval -q and trec_eval -q of the set
// must print the same bytes.
func (e *env) evalJob() error {
	shapes, err := e.evalShapes(e.shapes)
	if err != nil {
		return err
	}
	peers, err := e.evalPeers(e.evalPeerNames)
	if err != nil {
		return err
	}
	for _, set := range e.evalSets {
		flags, ok := evalMeasureSets[set]
		if !ok {
			return fmt.Errorf("unknown measure set %q (%s)", set, strings.Join(evalSetNames(), ", "))
		}
		for _, sh := range shapes {
			if err := e.evalShape(sh, set, flags, peers); err != nil {
				return err
			}
		}
	}
	return nil
}

// evalShape measures one shape with one measure set.
func (e *env) evalShape(sh evalShape, set string, flags []string, peers []evalPeer) error {
	var active []evalPeer
	for _, p := range peers {
		if p.trecEval || (set == "default" && !sh.trecEvalOnly) {
			active = append(active, p)
		}
	}
	// The check: per query and all, byte for byte, against each trec_eval.
	qflags := append([]string{"-q"}, flags...)
	ours, err := e.output(append(append([]string{e.rb, "eval"}, qflags...), sh.qrels, sh.run))
	if err != nil {
		return err
	}
	lines := bytes.Count(ours, []byte("\n"))
	checked := false
	for _, p := range active {
		if !p.trecEval {
			continue
		}
		checked = true
		theirs, err := e.output(p.cmd(qflags, sh.qrels, sh.run))
		if err != nil {
			return err
		}
		if !bytes.Equal(ours, theirs) && !(p.name == "trec_eval-O2" && bytes.Equal(withoutRBP(ours), withoutRBP(theirs))) {
			return fmt.Errorf("%s, %s: eval %s differs from %s's output:\n%s", sh.name, set, strings.Join(qflags, " "), p.name, firstDiff(ours, theirs))
		}
	}
	if checked {
		e.notes = append(e.notes, fmt.Sprintf("eval %s, %s: `eval %s` printed the same %d lines as trec_eval 10.0, byte for byte.", sh.name, set, strings.Join(qflags, " "), lines))
	}
	oursS := samples{}
	theirs := make([]samples, len(active))
	agreed := make([]bool, len(active))
	for k := range agreed {
		agreed[k] = true
	}
	loadBefore := loadAvg1()
	for i := range e.runs {
		fmt.Fprintf(os.Stderr, "perfrun: eval %s %s run %d/%d\n", sh.name, set, i+1, e.runs)
		o, err := e.timed(append(append([]string{e.rb, "eval"}, flags...), sh.qrels, sh.run)...)
		if err != nil {
			return err
		}
		oursS = append(oursS, o)
		for k, p := range active {
			t, err := e.timed(p.cmd(flags, sh.qrels, sh.run)...)
			if err != nil {
				return err
			}
			if p.trecEval {
				err = nil
				if !bytes.Equal(o.stdout, t.stdout) && !(p.name == "trec_eval-O2" && bytes.Equal(withoutRBP(o.stdout), withoutRBP(t.stdout))) {
					err = fmt.Errorf("outputs differ:\n%s", firstDiff(o.stdout, t.stdout))
				}
			} else {
				err = sameEval(o.stdout, t.stdout)
			}
			if err != nil {
				if p.strict {
					return fmt.Errorf("%s, %s, %s: %w", sh.name, set, p.name, err)
				}
				agreed[k] = false
				fmt.Fprintf(os.Stderr, "perfrun: %s, %s: %v\n", sh.name, p.name, err)
			}
			theirs[k] = append(theirs[k], t)
		}
	}
	load := loadBefore + "–" + loadAvg1()
	for k, p := range active {
		th := theirs[k]
		e.rows = append(e.rows, fmt.Sprintf("| eval `%s`, %s | %.2f s wall, %.2f s CPU, %.0f MB | %s: %.2f s wall, %.2f s CPU, %.0f MB | %.1f× faster (CPU %.1f×), %.2f× memory; load %s |",
			strings.Join(flags, " "), sh.what, oursS.med(wallOf), oursS.med(cpuOf), oursS.med(rssOf),
			p.desc, th.med(wallOf), th.med(cpuOf), th.med(rssOf),
			th.med(wallOf)/oursS.med(wallOf), th.med(cpuOf)/oursS.med(cpuOf), oursS.med(rssOf)/th.med(rssOf), load))
		fmt.Fprintln(os.Stderr, e.rows[len(e.rows)-1])
		for i := range oursS {
			fmt.Fprintf(os.Stderr, "perfrun: run %d: ours %.2f s wall %.2f s CPU %.0f MB; %s %.2f s wall %.2f s CPU %.0f MB\n", i+1,
				oursS[i].wall, oursS[i].cpu, oursS[i].rssMB, p.name, th[i].wall, th[i].cpu, th[i].rssMB)
		}
		if !p.strict {
			word := "agreed with ours to 4 decimals in every run"
			if !agreed[k] {
				word = "differed from ours at 4 decimals (its own tie order; see the log)"
			}
			e.notes = append(e.notes, fmt.Sprintf("eval %s: %s's map and ndcg@10 %s.", sh.name, p.name, word))
		} else if !p.trecEval {
			e.notes = append(e.notes, fmt.Sprintf("eval %s: %s's map and ndcg_cut_10 equal ours to 4 decimals in every run.", sh.name, p.name))
		}
	}
	return nil
}

// withoutRBP drops the rbp lines of a trec_eval output: trec_eval's m_rbp.c
// reads two uninitialised variables (min and max of the gains), so its rbp
// values depend on the build; eval's are those of its Makefile's build.
func withoutRBP(b []byte) []byte {
	var out []byte
	for _, l := range bytes.SplitAfter(b, []byte("\n")) {
		if !bytes.HasPrefix(l, []byte("rbp ")) {
			out = append(out, l...)
		}
	}
	return out
}

// output runs a command and returns its standard output.
func (e *env) output(args []string) ([]byte, error) {
	cmd := exec.Command(args[0], args[1:]...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

// firstDiff shows the first line where a and b differ.
func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := 0; i < max(len(la), len(lb)); i++ {
		var x, y string
		if i < len(la) {
			x = la[i]
		}
		if i < len(lb) {
			y = lb[i]
		}
		if x != y {
			return fmt.Sprintf("line %d: ours %q, theirs %q (%d and %d lines)", i+1, x, y, len(la)-1, len(lb)-1)
		}
	}
	return "same lines"
}

// loadAvg1 is the 1-minute load average.
func loadAvg1() string {
	f := strings.Fields(loadAvg())
	return f[0]
}

func fileMB(p string) float64 {
	st, err := os.Stat(p)
	if err != nil {
		return 0
	}
	return float64(st.Size()) / 1e6
}

// sameEval compares the "measure all value" lines of two outputs.
func sameEval(ours, theirs []byte) error {
	parse := func(b []byte) map[string]string {
		m := map[string]string{}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) == 3 && f[1] == "all" {
				m[f[0]] = f[2]
			}
		}
		return m
	}
	o, t := parse(ours), parse(theirs)
	for _, k := range []string{"map", "ndcg_cut_10"} {
		if o[k] == "" || o[k] != t[k] {
			return fmt.Errorf("%s: ours %q, peer %q", k, o[k], t[k])
		}
	}
	return nil
}

// shuffleLines writes the lines of src in a seeded random order to dst.
func shuffleLines(src, dst string, seed uint64) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(b, []byte("\n"))
	if len(lines) > 0 && len(lines[len(lines)-1]) == 0 {
		lines = lines[:len(lines)-1]
	}
	r := rand.New(rand.NewPCG(seed, seed))
	r.Shuffle(len(lines), func(i, j int) { lines[i], lines[j] = lines[j], lines[i] })
	return atomicfile.Write(dst, func(w io.Writer) error {
		bw := bufio.NewWriterSize(w, 1<<20)
		for _, l := range lines {
			if _, err := bw.Write(l); err != nil {
				return err
			}
		}
		return bw.Flush()
	})
}

// bm25Timing is what perfgo bm25 and the Python peers print.
type bm25Timing struct {
	Docs       int       `json:"docs"`
	IndexS     float64   `json:"index_s"`
	IndexCPUS  float64   `json:"index_cpu_s"`
	SearchCPUS float64   `json:"search_cpu_s"`
	PerQueryMS []float64 `json:"per_query_ms"`
}

// bm25Peer is a BM25 engine a user would pick instead, run as a whole
// process on the exported files.
type bm25Peer struct {
	name, desc string
	cmd        func(dir string, k int, run string) []string
}

func (e *env) bm25Peers() ([]bm25Peer, error) {
	var out []bm25Peer
	for _, n := range e.bm25PeerNames {
		switch n {
		case "tantivy", "tantivy-ram":
			mode, where := "disk", "on disk"
			if n == "tantivy-ram" {
				mode, where = "ram", "in RAM"
			}
			out = append(out, bm25Peer{n, "tantivy 0.27 (Python bindings, one writer thread, index " + where + ", en_stem, stored ids read back)", func(dir string, k int, run string) []string {
				return []string{e.python, filepath.Join(e.peers, "peer_tantivy.py"), dir, strconv.Itoa(k), run, mode}
			}})
		case "bm25s":
			out = append(out, bm25Peer{n, "bm25s (Robertson, k1 1.2, b 0.75, PyStemmer porter)", func(dir string, k int, run string) []string {
				return []string{e.python, filepath.Join(e.peers, "peer_bm25s.py"), dir, strconv.Itoa(k), run}
			}})
		default:
			return nil, fmt.Errorf("unknown bm25 peer %q (tantivy, tantivy-ram, bm25s)", n)
		}
	}
	return out, nil
}

// bm25Side is what one side measured over the runs.
type bm25Side struct {
	procs                               samples // whole processes
	idx, idxCPU, p50, p99, searchCPUPer []float64
}

func (s *bm25Side) add(p sample) error {
	var t bm25Timing
	if err := json.Unmarshal(p.stdout, &t); err != nil {
		return err
	}
	s.procs = append(s.procs, p)
	s.idx, s.idxCPU = append(s.idx, t.IndexS), append(s.idxCPU, t.IndexCPUS)
	s.p50, s.p99 = append(s.p50, quantile(t.PerQueryMS, 0.5)), append(s.p99, quantile(t.PerQueryMS, 0.99))
	s.searchCPUPer = append(s.searchCPUPer, t.SearchCPUS*1e3/float64(max(1, len(t.PerQueryMS))))
	return nil
}

// bm25Datasets describes the exported datasets of the bm25 job.
var bm25Datasets = map[string]string{
	"vaswani": "vaswani",
	"cosqa":   "cosqa (test split)",
	"repoqa":  "repoqa pyg-team/pytorch_geometric chunks",
	"sweqa":   "swe-qa sympy chunks (the largest SWE-QA corpus)",
}

// bm25Job: our BM25 (FTS5 store, Go scorer) against tantivy and bm25s on
// Vaswani, the chunks of SWE-QA's largest repository (sympy), CoSQA and a
// RepoQA chunk corpus: the same job on every side (index the docs, then
// the top 100 ids of every query), whole processes alternating.
func (e *env) bm25Job() error {
	if e.data == "" {
		return errors.New("set RETRIEVALBENCH_DATA (or -data) to the data pack")
	}
	peers, err := e.bm25Peers()
	if err != nil {
		return err
	}
	const depth = 100
	for _, ds := range e.bm25DatasetNames {
		what, ok := bm25Datasets[ds]
		if !ok {
			return fmt.Errorf("unknown bm25 dataset %q (vaswani, sweqa, cosqa, repoqa)", ds)
		}
		dir := filepath.Join(e.work, "data", ds)
		if _, err := os.Stat(filepath.Join(dir, "qrels.txt")); err != nil {
			if err := runLoud(e.perfgo, "export", "-data", e.data, "-dataset", ds, "-out", dir); err != nil {
				return err
			}
		}
		oursRun, refRun := filepath.Join(dir, "ours.run"), filepath.Join(dir, "fts5.run")
		// The reference: FTS5's own bm25() in SQL must rank exactly as the
		// Go scorer does.
		ref, err := e.timed(e.perfgo, "bm25", "-in", dir, "-k", strconv.Itoa(depth), "-run", refRun, "-scorer", "fts5")
		if err != nil {
			return err
		}
		var refT bm25Timing
		if err := json.Unmarshal(ref.stdout, &refT); err != nil {
			return err
		}
		var ours bm25Side
		theirs := make([]bm25Side, len(peers))
		peerRun := func(p bm25Peer) string { return filepath.Join(dir, p.name+".run") }
		for i := range e.runs {
			fmt.Fprintf(os.Stderr, "perfrun: bm25 %s run %d/%d\n", ds, i+1, e.runs)
			o, err := e.timed(e.perfgo, "bm25", "-in", dir, "-k", strconv.Itoa(depth), "-run", oursRun)
			if err != nil {
				return err
			}
			if err := ours.add(o); err != nil {
				return fmt.Errorf("%s, ours: %w", ds, err)
			}
			for k, p := range peers {
				t, err := e.timed(p.cmd(dir, depth, peerRun(p))...)
				if err != nil {
					return err
				}
				if err := theirs[k].add(t); err != nil {
					return fmt.Errorf("%s, %s: %w", ds, p.name, err)
				}
			}
		}
		same, err := sameRuns(oursRun, refRun)
		if err != nil {
			return err
		}
		if !same {
			return fmt.Errorf("%s: the Go scorer's ranking differs from FTS5's bm25()", ds)
		}
		// Quality against the qrels, at the qrels' level: SWE-QA's gold are
		// files, so a run's chunks count for their files (the first, best
		// ranked chunk of each file).
		var toFile map[string]string
		if ds == "sweqa" {
			if toFile, err = docPaths(filepath.Join(dir, "docs.jsonl")); err != nil {
				return err
			}
		}
		quality := func(run string) (string, error) {
			if fileMB(filepath.Join(dir, "qrels.txt")) == 0 {
				return "", nil
			}
			if toFile != nil {
				fr := strings.TrimSuffix(run, ".run") + ".files.run"
				if err := fileRun(run, fr, toFile); err != nil {
					return "", err
				}
				run = fr
			}
			return e.quality(dir, run)
		}
		oq, err := quality(oursRun)
		if err != nil {
			return err
		}
		level := ""
		if toFile != nil {
			level = " (file level: each chunk counts for its file)"
		}
		q := median(ours.searchCPUPer)
		oursIdx := fmt.Sprintf("%.3f s (CPU %.3f s); whole process %.2f s wall, %.2f s CPU, %.0f MB",
			median(ours.idx), median(ours.idxCPU), ours.procs.med(wallOf), ours.procs.med(cpuOf), ours.procs.med(rssOf))
		oursSearch := fmt.Sprintf("p50 %.3f ms, p99 %.3f ms, CPU %.3f ms/query", median(ours.p50), median(ours.p99), q)
		note := fmt.Sprintf("bm25 %s (%s, %d docs, %d queries): ours is the porter config (FTS5 store, Go scorer over the decoded index); its top-%d (doc ids and scores) equals FTS5's bm25() ranking in SQL on every query (which takes p50 %.2f ms, p99 %.2f ms)",
			ds, what, refT.Docs, len(refT.PerQueryMS), depth, quantile(refT.PerQueryMS, 0.5), quantile(refT.PerQueryMS, 0.99))
		if oq != "" {
			note += fmt.Sprintf("; ours %s%s", oq, level)
		}
		for k, p := range peers {
			th := &theirs[k]
			e.rows = append(e.rows, fmt.Sprintf("| BM25 index, %s | %s | %s: %.3f s (CPU %.3f s); whole process %.2f s wall, %.2f s CPU, %.0f MB | index %.2f× faster (CPU %.2f×); process %.2f× wall, %.2f× CPU, %.2f× memory |",
				ds, oursIdx, p.desc, median(th.idx), median(th.idxCPU), th.procs.med(wallOf), th.procs.med(cpuOf), th.procs.med(rssOf),
				median(th.idx)/median(ours.idx), median(th.idxCPU)/median(ours.idxCPU),
				th.procs.med(wallOf)/ours.procs.med(wallOf), th.procs.med(cpuOf)/ours.procs.med(cpuOf), ours.procs.med(rssOf)/th.procs.med(rssOf)))
			e.rows = append(e.rows, fmt.Sprintf("| BM25 search, %s, top %d ids per query | %s | %s: p50 %.3f ms, p99 %.3f ms, CPU %.3f ms/query | p50 %.2f× faster, p99 %.2f×, CPU %.2f× |",
				ds, depth, oursSearch, p.name, median(th.p50), median(th.p99), median(th.searchCPUPer),
				median(th.p50)/median(ours.p50), median(th.p99)/median(ours.p99), median(th.searchCPUPer)/q))
			agree, n, err := top10Agreement(oursRun, peerRun(p))
			if err != nil {
				return err
			}
			overlap, err := topOverlap(oursRun, peerRun(p), depth)
			if err != nil {
				return err
			}
			pq, err := quality(peerRun(p))
			if err != nil {
				return err
			}
			note += fmt.Sprintf("; %s: top-10 order equal (ties aside) on %d of %d queries, %.0f%% of our top-%d ids in its top %d on the average", p.name, agree, n, 100*overlap, depth, depth)
			if pq != "" {
				note += ", " + pq
			}
		}
		e.notes = append(e.notes, note+".")
	}
	return nil
}

// quality is nDCG@10 and recall@100 of run against dir/qrels.txt, by our
// eval.
func (e *env) quality(dir, run string) (string, error) {
	out, err := exec.Command(e.rb, "eval", "-c", "-m", "ndcg_cut.10", "-m", "recall.100", filepath.Join(dir, "qrels.txt"), run).Output()
	if err != nil {
		return "", fmt.Errorf("eval %s: %w", run, err)
	}
	v := map[string]string{}
	for _, l := range strings.Split(string(out), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			v[f[0]] = f[2]
		}
	}
	if v["ndcg_cut_10"] == "" || v["recall_100"] == "" {
		return "", fmt.Errorf("eval %s: unexpected output %q", run, out)
	}
	return fmt.Sprintf("nDCG@10 %s, recall@100 %s", v["ndcg_cut_10"], v["recall_100"]), nil
}

// docPaths maps the ids of a docs.jsonl to their paths.
func docPaths(docs string) (map[string]string, error) {
	b, err := os.ReadFile(docs)
	if err != nil {
		return nil, err
	}
	m := map[string]string{}
	for i, l := range bytes.Split(b, []byte("\n")) {
		if len(bytes.TrimSpace(l)) == 0 {
			continue
		}
		var d struct{ ID, Path string }
		if err := json.Unmarshal(l, &d); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", docs, i+1, err)
		}
		if d.Path == "" {
			return nil, fmt.Errorf("%s:%d: doc %q has no path", docs, i+1, d.ID)
		}
		m[d.ID] = d.Path
	}
	return m, nil
}

// fileRun writes run with each doc replaced by its file, keeping each
// file's first (best) line per query and renumbering the ranks.
func fileRun(run, out string, toFile map[string]string) error {
	b, err := os.ReadFile(run)
	if err != nil {
		return err
	}
	var w strings.Builder
	seen := map[[2]string]bool{}
	ranks := map[string]int{}
	for i, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if len(f) != 6 {
			return fmt.Errorf("%s:%d: want 6 fields", run, i+1)
		}
		file, ok := toFile[f[2]]
		if !ok {
			return fmt.Errorf("%s:%d: doc %q not in docs.jsonl", run, i+1, f[2])
		}
		if seen[[2]string{f[0], file}] {
			continue
		}
		seen[[2]string{f[0], file}] = true
		ranks[f[0]]++
		fmt.Fprintf(&w, "%s Q0 %s %d %s %s\n", f[0], file, ranks[f[0]], f[4], f[5])
	}
	return atomicfile.WriteFile(out, []byte(w.String()))
}

// topOverlap is the mean over ours' queries of the share of ours' top k
// ids that the peer's top k also holds.
func topOverlap(ours, peer string, k int) (float64, error) {
	ro, err := readRun(ours)
	if err != nil {
		return 0, err
	}
	rp, err := readRun(peer)
	if err != nil {
		return 0, err
	}
	var sum float64
	n := 0
	for q, ho := range ro {
		ho = ho[:min(k, len(ho))]
		if len(ho) == 0 {
			continue
		}
		in := map[string]bool{}
		for _, h := range rp[q][:min(k, len(rp[q]))] {
			in[h.doc] = true
		}
		shared := 0
		for _, h := range ho {
			if in[h.doc] {
				shared++
			}
		}
		sum += float64(shared) / float64(len(ho))
		n++
	}
	if n == 0 {
		return 0, nil
	}
	return sum / float64(n), nil
}

type hit struct {
	doc, score string
}

func readRun(path string) (map[string][]hit, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	m := map[string][]hit{}
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) == 6 {
			m[f[0]] = append(m[f[0]], hit{f[2], f[4]})
		}
	}
	return m, nil
}

// sameRuns reports whether two runs hold the same docs with the same scores
// in the same order.
func sameRuns(a, b string) (bool, error) {
	ra, err := readRun(a)
	if err != nil {
		return false, err
	}
	rb, err := readRun(b)
	if err != nil {
		return false, err
	}
	if len(ra) != len(rb) {
		return false, nil
	}
	for q, ha := range ra {
		if !slices.Equal(ha, rb[q]) {
			fmt.Fprintf(os.Stderr, "perfrun: %s: query %s differs\n", a, q)
			return false, nil
		}
	}
	return true, nil
}

// top10Agreement counts the queries whose top 10 of ours and peer hold the
// same docs in the same order, permutations inside a group of tied scores
// (of either side) aside.
func top10Agreement(ours, peer string) (agree, n int, err error) {
	ro, err := readRun(ours)
	if err != nil {
		return 0, 0, err
	}
	rp, err := readRun(peer)
	if err != nil {
		return 0, 0, err
	}
	for q, ho := range ro {
		n++
		hp := rp[q]
		if sameTop(ho, hp, 10) {
			agree++
		}
	}
	return agree, n, nil
}

// sameTop compares the first k of a and b as sequences of tie groups: the
// i-th doc of a must be in b's tie group at i, and vice versa.
func sameTop(a, b []hit, k int) bool {
	a, b = a[:min(k, len(a))], b[:min(k, len(b))]
	if len(a) != len(b) {
		return false
	}
	group := func(h []hit, i int) []string {
		var g []string
		for j := range h {
			if h[j].score == h[i].score {
				g = append(g, h[j].doc)
			}
		}
		return g
	}
	for i := range a {
		if a[i].doc == b[i].doc {
			continue
		}
		if !slices.Contains(group(a, i), b[i].doc) && !slices.Contains(group(b, i), a[i].doc) {
			return false
		}
	}
	return true
}

// embedChunks is the number of RepoQA chunks the embed job embeds.
const embedChunks = 200

// embedJob: our embedder (retrievalbench embed) against Python onnxruntime
// with tokenizers on the same model files and chunks, batch 1, for the
// quantized models of the dense cells.
func (e *env) embedJob() error {
	if e.data == "" {
		return errors.New("set RETRIEVALBENCH_DATA (or -data) to the data pack")
	}
	src := filepath.Join(e.work, "data", "repoqa")
	if _, err := os.Stat(filepath.Join(src, "docs.jsonl")); err != nil {
		if err := runLoud(e.perfgo, "export", "-data", e.data, "-dataset", "repoqa", "-out", src); err != nil {
			return err
		}
	}
	dir := filepath.Join(e.work, "embed")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	texts := filepath.Join(dir, "chunks.jsonl")
	if err := firstTexts(filepath.Join(src, "docs.jsonl"), texts, embedChunks); err != nil {
		return err
	}
	threads := runtime.NumCPU()
	for _, id := range []string{"minilm-l6-q", "bge-small-q"} {
		m, err := models.Lookup(id)
		if err != nil {
			return err
		}
		modelDir := filepath.Dir(m.Path(testenv.CacheDir(), models.ModelFile))
		peerOut := filepath.Join(dir, id+".peer.jsonl")
		var ours, theirs samples
		for i := range e.runs {
			fmt.Fprintf(os.Stderr, "perfrun: embed %s run %d/%d\n", id, i+1, e.runs)
			o, err := e.timed(e.rb, "embed", "-model", id, "-format", "jsonl", texts)
			if err != nil {
				return err
			}
			t, err := e.timed(e.python, filepath.Join(e.peers, "peer_ort.py"), modelDir, m.Pooling, strconv.Itoa(m.MaxTokens), strconv.Itoa(threads), texts, peerOut)
			if err != nil {
				return err
			}
			peer, err := os.ReadFile(peerOut)
			if err != nil {
				return err
			}
			minCos, err := minCosine(o.stdout, peer, embedChunks)
			if err != nil {
				return fmt.Errorf("%s: %w", id, err)
			}
			if minCos < 0.9999 {
				return fmt.Errorf("%s: lowest cosine between our vectors and Python onnxruntime's %.6f, want >= 0.9999", id, minCos)
			}
			if i == 0 {
				e.notes = append(e.notes, fmt.Sprintf("embed %s: lowest cosine between our vector and Python onnxruntime's over the %d chunks %.6f (checked >= 0.9999 in every run).", id, embedChunks, minCos))
			}
			ours, theirs = append(ours, o), append(theirs, t)
		}
		e.rows = append(e.rows, fmt.Sprintf("| embed %d RepoQA code chunks (%s, %.0f KB), batch 1, %s | %.2f s wall, %.2f s CPU, %.0f MB (%d single-threaded ORT sessions) | Python onnxruntime + tokenizers, same files, %d intra-op threads: %.2f s wall, %.2f s CPU, %.0f MB | %.2f× docs/s |",
			embedChunks, "pyg-team/pytorch_geometric", fileMB(texts)*1000, id,
			ours.med(wallOf), ours.med(cpuOf), ours.med(rssOf), threads, threads,
			theirs.med(wallOf), theirs.med(cpuOf), theirs.med(rssOf),
			theirs.med(wallOf)/ours.med(wallOf)))
	}
	return nil
}

// firstTexts writes the texts of the first n documents of a docs.jsonl as
// {"text"} lines.
func firstTexts(docs, out string, n int) error {
	f, err := os.Open(docs)
	if err != nil {
		return err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	var lines [][]byte
	for len(lines) < n && sc.Scan() {
		var d struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			return fmt.Errorf("%s: %w", docs, err)
		}
		b, err := json.Marshal(d)
		if err != nil {
			return err
		}
		lines = append(lines, append(b, '\n'))
	}
	if err := sc.Err(); err != nil {
		return err
	}
	if len(lines) < n {
		return fmt.Errorf("%s: %d documents, want %d", docs, len(lines), n)
	}
	return atomicfile.Write(out, func(w io.Writer) error {
		for _, l := range lines {
			if _, err := w.Write(l); err != nil {
				return err
			}
		}
		return nil
	})
}

// minCosine returns the lowest cosine between the vectors of two
// {"text_index","vector"} JSON-lines outputs, which must both hold n.
func minCosine(a, b []byte, n int) (float64, error) {
	parse := func(data []byte) (map[int][]float64, error) {
		m := map[int][]float64{}
		for _, l := range bytes.Split(data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) == 0 {
				continue
			}
			var r struct {
				TextIndex int       `json:"text_index"`
				Vector    []float64 `json:"vector"`
			}
			if err := json.Unmarshal(l, &r); err != nil {
				return nil, err
			}
			m[r.TextIndex] = r.Vector
		}
		if len(m) != n {
			return nil, fmt.Errorf("%d vectors, want %d", len(m), n)
		}
		return m, nil
	}
	va, err := parse(a)
	if err != nil {
		return 0, fmt.Errorf("ours: %w", err)
	}
	vb, err := parse(b)
	if err != nil {
		return 0, fmt.Errorf("peer: %w", err)
	}
	lowest := 1.0
	for i, x := range va {
		y := vb[i]
		if len(x) != len(y) {
			return 0, fmt.Errorf("text %d: dimensions %d and %d", i, len(x), len(y))
		}
		var dot, nx, ny float64
		for k := range x {
			dot += x[k] * y[k]
			nx += x[k] * x[k]
			ny += y[k] * y[k]
		}
		lowest = min(lowest, dot/math.Sqrt(nx*ny))
	}
	return lowest, nil
}
