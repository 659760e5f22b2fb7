package harness

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"runtime/debug"
	"slices"
	"sort"
	"time"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
	"github.com/retrievalbench/retrievalbench/internal/progress"
	"github.com/retrievalbench/retrievalbench/judge"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/systems"
)

// DefaultMeasures returns the measures computed for every cell unless the
// dataset declares one undefined, as a new slice each call. recall@k and
// ndcg@k use all judged relevant units of a task as the ideal (trec_eval
// semantics).
func DefaultMeasures() []metrics.Measure {
	return []metrics.Measure{metrics.Hit.At(1), metrics.Hit.At(5), metrics.Hit.At(10), metrics.Recall.At(10), metrics.MRR.At(0), metrics.NDCG.At(10), metrics.MAP.At(0)}
}

// compositeReason is why a system that returns one blob per query has no
// measure beyond rank 1.
const compositeReason = "the system returns one composite blob per query: only rank-1 measures are defined"

// RunConfig holds the tunables of one run.
type RunConfig struct {
	Depth       int           // hits requested per query
	TaskTimeout time.Duration // per Search call
	Measures    []metrics.Measure
	// AbandonWait is how long Run waits, after a timed-out Search, for the
	// abandoned call to return before it gives up on the system: then the
	// system is not closed (Close must not race a running Search) and the
	// cell fails. External systems return at once: their process is killed.
	AbandonWait time.Duration
	CacheDir    string
	NoCache     bool
	Logf        func(format string, args ...any) // progress; nil = silent
	// ProgressEvery is the least time between two "searching" progress
	// lines of a corpus's tasks (done, rate, ETA); 0 means 10 s.
	ProgressEvery time.Duration
	// Indexed, when set, is called with each system Run built once it has
	// indexed its corpus, before its searches (package matrix keeps the
	// systems, for the peak RSS of their processes, and probes a vector
	// dimension there). Nil: nothing is called.
	Indexed func(ctx context.Context, sys systems.System)
	// Tokens, when set, counts the tokens of every hit's text: the cell
	// then measures metrics.TokenMeasures too (docs/judging.md, "Tokens").
	// Nil: no token measures.
	Tokens Counter
}

// defaultProgressEvery is RunConfig.ProgressEvery's default.
const defaultProgressEvery = 10 * time.Second

// DefaultRunConfig returns depth 100, a 60 s task timeout and DefaultMeasures.
func DefaultRunConfig() RunConfig {
	return RunConfig{Depth: 100, TaskTimeout: 60 * time.Second, AbandonWait: 30 * time.Second, Measures: DefaultMeasures()}
}

// JudgedHit is one hit of a task as judged.
type JudgedHit struct {
	Rank      int     `json:"rank"`
	DocID     string  `json:"doc_id"`
	Path      string  `json:"path,omitempty"`
	StartLine int     `json:"start_line,omitempty"`
	EndLine   int     `json:"end_line,omitempty"`
	Symbol    string  `json:"symbol,omitempty"`
	Score     float64 `json:"score"`
	Grade     int     `json:"grade"`
	Library   string  `json:"library,omitempty"`
	// Tokens are the tokens of the hit's text (RunConfig.Tokens), counted
	// for the hits the token measures read; a composite answer's, all its
	// text, on its first hit. 0: not counted.
	Tokens int `json:"tokens,omitempty"`
}

// TaskResult is the outcome of one task.
type TaskResult struct {
	ID    string
	Meta  datasets.Meta
	Query string
	// Values[i] is the value of Result.Measures[i].
	Values []float64
	// FirstRelevant is the 1-based rank of the first relevant hit, 0 if none.
	FirstRelevant int
	Hits          []JudgedHit
	Latency       time.Duration
	Err           string // non-empty when the system failed on this task
	// Warnings are what the system noticed during this task's search
	// without failing it (systems.Warner).
	Warnings []string
}

// Result is the outcome of one (dataset × system × config) cell.
type Result struct {
	Dataset, Split string
	System, Config string
	ConfigHash     string
	DataHash       string
	Measures       []metrics.Measure
	Undefined      map[string]string // measure → why it is not reported
	Tasks          []TaskResult
	IndexTime      time.Duration
	IndexedDocs    int
	Versions       map[string]string
	// IndexReused lists the corpora whose index an earlier run built
	// (systems.IndexReporter); IndexBuildTime is what building every
	// corpus's index took, the earlier run's time for those.
	IndexReused    []string
	IndexBuildTime time.Duration
	// IndexBuildCPUClasses are the internal/cpuclass classes those builds
	// were timed on, sorted, each once: this machine's for an index built
	// now, the recorded one for a reused index ("unknown" when none was
	// recorded). Build times of two classes do not compare.
	IndexBuildCPUClasses []string
	// Warnings are what the system noticed while indexing, each prefixed
	// with its corpus (systems.Warner).
	Warnings []string
	CPUClass string // internal/cpuclass of the machine that ran it
	// Models are the models the system embeds with
	// (systems.ModelReporter), each once, in the order first reported.
	Models []systems.ModelInfo
	// Tokenizer names the tokenizer that counted the hits' tokens
	// (Counter.ID); "" when none did.
	Tokenizer string
}

// Failed returns the tasks the system failed on.
func (r *Result) Failed() []TaskResult {
	var out []TaskResult
	for _, t := range r.Tasks {
		if t.Err != "" {
			out = append(out, t)
		}
	}
	return out
}

// Column returns the per-task values of measure m (in task order).
func (r *Result) Column(m string) ([]float64, bool) {
	for i, mm := range r.Measures {
		if mm.String() == m {
			col := make([]float64, len(r.Tasks))
			for j := range r.Tasks {
				col[j] = r.Tasks[j].Values[i]
			}
			return col, true
		}
	}
	return nil, false
}

// Run indexes every corpus of p that has tasks with a fresh system from
// spec, searches every task and judges the hits. Task failures are recorded
// in the result (Result.Failed); the returned error is for failures that
// make the whole cell meaningless (bad config, index failure).
func Run(ctx context.Context, p *Prepared, spec systems.Spec, cfg RunConfig) (*Result, error) {
	if err := spec.Validate(); err != nil {
		return nil, err
	}
	ms, undefined, err := measures(cfg.Measures, p.Dataset.Undefined, spec.Composite)
	if err != nil {
		return nil, err
	}
	if spec.Composite && hasLibraries(p.Dataset.Tasks) {
		// A hosted documentation system resolves each query to a library
		// first: was it the task's? (judge.LibraryMatches)
		ms = append(ms, judge.LibraryResolution.At(1))
	}
	if cfg.Tokens != nil {
		// Not cut by the composite rule above: a token budget is not a rank.
		ms = append(ms, metrics.TokenMeasures()...)
	}
	res := &Result{
		Dataset: p.Dataset.Name, Split: p.Dataset.Split,
		System: spec.System, Config: spec.Config, ConfigHash: spec.Hash,
		DataHash: p.Hash, Measures: ms, Undefined: undefined,
		Versions: p.Versions(), CPUClass: cpuclass.Current(),
	}
	if cfg.Tokens != nil {
		res.Tokenizer = cfg.Tokens.ID()
	}
	byCorpus := make(map[string][]int)
	var order []string
	for i, t := range p.Dataset.Tasks {
		if _, ok := byCorpus[t.CorpusID]; !ok {
			order = append(order, t.CorpusID)
		}
		byCorpus[t.CorpusID] = append(byCorpus[t.CorpusID], i)
	}
	sort.Strings(order)
	res.Tasks = make([]TaskResult, len(p.Dataset.Tasks))
	for _, cid := range order {
		if err := runCorpus(ctx, p, spec, cfg, cid, byCorpus[cid], res); err != nil {
			return res, err
		}
	}
	return res, nil
}

func measures(all []metrics.Measure, undefined map[string]string, composite bool) ([]metrics.Measure, map[string]string, error) {
	var ms []metrics.Measure
	skipped := map[string]string{}
	for _, m := range all {
		if m.Def == nil || m.Score == nil {
			return nil, nil, fmt.Errorf("measure %q: not one a cell can compute", m)
		}
		if why, ok := undefined[m.String()]; ok {
			skipped[m.String()] = why
			continue
		}
		if composite && m.K != 1 {
			skipped[m.String()] = compositeReason
			continue
		}
		ms = append(ms, m)
	}
	return ms, skipped, nil
}

// ErrNewSystem is in Run's error (errors.Is) when a system could not be
// built (its Spec.New failed), as opposed to failing to index a corpus:
// a campaign reports the one as model_failed, the other as index_failed.
var ErrNewSystem = errors.New("creating system")

func runCorpus(ctx context.Context, p *Prepared, spec systems.Spec, cfg RunConfig, cid string, tasks []int, res *Result) (err error) {
	sys, err := spec.New(systems.Options{CacheDir: cfg.CacheDir, NoCache: cfg.NoCache, Logf: cfg.Logf})
	if err != nil {
		return fmt.Errorf("%s: %w: %w", spec.Name(), ErrNewSystem, err)
	}
	// An abandoned Search that has not returned keeps the system: closing
	// it would race the call (abandoned is then true).
	abandoned := false
	defer func() {
		if abandoned {
			err = errors.Join(err, fmt.Errorf("%s: an abandoned search did not return within %v of its timeout; the system was not closed", spec.Name(), cfg.AbandonWait))
			return
		}
		if cerr := sys.Close(); cerr != nil && err == nil {
			err = fmt.Errorf("%s: closing: %w", spec.Name(), cerr)
		}
	}()
	input := p.Input(sys, cid)
	logf(cfg, "indexing %s: %d docs", cid, len(input.Docs))
	start := time.Now()
	if err := safely(func() error { return sys.Index(ctx, input) }); err != nil {
		return fmt.Errorf("%s: indexing corpus %s: %w", spec.Name(), cid, err)
	}
	el := time.Since(start)
	if cfg.Indexed != nil {
		cfg.Indexed(ctx, sys)
	}
	res.IndexTime += el
	res.IndexedDocs += len(input.Docs)
	built, class := el, res.CPUClass
	if rep := systems.IndexReportOf(sys); rep.Reused {
		res.IndexReused = append(res.IndexReused, cid)
		built, class = rep.BuildTime, rep.CPUClass
		if class == "" {
			class = "unknown"
		}
		logf(cfg, "index of %s reused: built in %v by an earlier run", cid, built.Round(time.Millisecond))
	}
	res.IndexBuildTime += built
	if i, found := slices.BinarySearch(res.IndexBuildCPUClasses, class); !found {
		res.IndexBuildCPUClasses = slices.Insert(res.IndexBuildCPUClasses, i, class)
	}
	for _, w := range systems.WarningsOf(sys) {
		res.Warnings = append(res.Warnings, cid+": "+w)
	}
	logf(cfg, "indexed %s: %d docs in %v (%.1f docs/s)", cid, len(input.Docs), el.Round(time.Millisecond), float64(len(input.Docs))/el.Seconds())
	maps.Copy(res.Versions, systems.VersionsOf(sys))
	for _, m := range systems.ModelsOf(sys) {
		if !slices.Contains(res.Models, m) {
			res.Models = append(res.Models, m)
		}
	}
	jc := p.JudgeCorpus(cid)
	if bound := systems.SearchTimeoutOf(sys); bound > cfg.TaskTimeout {
		// The system bounds its own searches (an external system's config
		// "timeout"): the task timeout must not cut a search it allows.
		logf(cfg, "task timeout of %s raised from %v to %v: the system's own bound on a search", cid, cfg.TaskTimeout, bound)
		cfg.TaskTimeout = bound
	}
	var tt *tokenText
	if cfg.Tokens != nil {
		tt = newTokenText(cfg.Tokens, p.Dataset.Corpora[cid])
	}
	every := cfg.ProgressEvery
	if every <= 0 {
		every = defaultProgressEvery
	}
	searchStart := time.Now()
	lastLog := searchStart
	for n, ti := range tasks {
		// n tasks are done: a long corpus (a peer's process per query, a
		// large model embedding every query) says how far it is.
		if now := time.Now(); n > 0 && now.Sub(lastLog) >= every {
			lastLog = now
			rate := float64(n) / now.Sub(searchStart).Seconds()
			logf(cfg, "searching %s: %d/%d tasks (%.1f queries/s, ETA %s)", cid, n, len(tasks), rate, progress.ETA(len(tasks)-n, rate))
		}
		t := &p.Dataset.Tasks[ti]
		tr := &res.Tasks[ti]
		tr.ID, tr.Meta, tr.Query = t.ID, t.Meta, t.Query
		tr.Values = make([]float64, len(res.Measures))
		q := systems.Query{Text: t.Query, Library: t.Meta.Library, Repo: t.Meta.Repo, Task: t.ID}
		hits, lat, serr := search(ctx, sys, q, cfg)
		tr.Latency = lat
		var st *stalled
		if !errors.As(serr, &st) {
			// An abandoned call may still run: its system is not asked.
			tr.Warnings = systems.WarningsOf(sys)
		}
		if serr != nil {
			tr.Err = serr.Error()
			if st != nil {
				returned := st.wait(cfg.AbandonWait)
				if returned && !st.interrupted {
					// The abandoned call returned: the system is free
					// again, so the corpus's other tasks still run.
					continue
				}
				// The run was interrupted, or the system may still be
				// running the abandoned call and cannot be used again:
				// mark the rest of the corpus.
				why := "not run: an earlier task of this corpus timed out and its search never returned"
				if st.interrupted {
					why = "not run: the run was interrupted"
				}
				for _, rest := range tasks[n+1:] {
					rt := &res.Tasks[rest]
					rt.ID, rt.Meta, rt.Query = p.Dataset.Tasks[rest].ID, p.Dataset.Tasks[rest].Meta, p.Dataset.Tasks[rest].Query
					rt.Values = make([]float64, len(res.Measures))
					rt.Err = why
				}
				abandoned = !returned
				if st.interrupted {
					return fmt.Errorf("%s: interrupted while searching corpus %s (%d of %d tasks done): %w", spec.Name(), cid, n, len(tasks), st.cause)
				}
				return nil
			}
			continue
		}
		composite := p.Dataset.CompositeBudget > 0 || spec.Composite
		if err := score(t, hits, jc, tt, res.Measures, p.Dataset.CompositeBudget, composite, tr); err != nil {
			tr.Err = err.Error()
		}
	}
	return nil
}

var errTimeout = errors.New("timed out")

// stalled is the error of a search that was abandoned: timed out, or
// interrupted (the run's context was cancelled); done is closed when the
// abandoned call returns.
type stalled struct {
	after       time.Duration
	interrupted bool
	cause       error // the run context's cause when interrupted
	done        chan struct{}
}

func (s *stalled) Error() string {
	if s.interrupted {
		return fmt.Sprintf("interrupted after %v (%v): the run was stopped, not the system", s.after.Round(time.Millisecond), s.cause)
	}
	return fmt.Sprintf("search timed out after %v (the task timeout: campaign -task-timeout raises it, and so does an external system config's \"timeout\")", s.after)
}

func (s *stalled) Unwrap() error {
	if s.interrupted {
		return s.cause
	}
	return errTimeout
}

// wait reports whether the abandoned call returned within d.
func (s *stalled) wait(d time.Duration) bool {
	select {
	case <-s.done:
		return true
	case <-time.After(d):
		return false
	}
}

// search runs one query with the task timeout, turning a panic into an
// error. On timeout or when ctx ends the call is abandoned, its context
// cancelled, and the error (a *stalled) says which and lets the caller
// wait for it to return.
func search(ctx context.Context, sys systems.System, q systems.Query, cfg RunConfig) ([]systems.Hit, time.Duration, error) {
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, cfg.TaskTimeout)
	defer cancel()
	done := make(chan searched, 1)
	returned := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(returned)
		var hits []systems.Hit
		err := safely(func() error {
			var err error
			hits, err = systems.SearchQuery(ctx, sys, q, cfg.Depth)
			return err
		})
		done <- searched{hits, err}
	}()
	select {
	case o := <-done:
		return settle(&o, ctx, parent, cfg.TaskTimeout, time.Since(start), returned)
	case <-ctx.Done():
		return settle(nil, ctx, parent, cfg.TaskTimeout, time.Since(start), returned)
	}
}

// searched is what a system's search call returned.
type searched struct {
	hits []systems.Hit
	err  error
}

// settle is the outcome of a search: what the call returned (o), or, with
// o nil, the end of its context ctx (the task timeout) or of the run's
// (parent) after el. An error the system gave once ctx had ended is that
// timeout or interruption too, said the same way: both were ready when
// search looked, and either may have been seen first. returned is closed
// when the call returns.
func settle(o *searched, ctx, parent context.Context, timeout, el time.Duration, returned chan struct{}) ([]systems.Hit, time.Duration, error) {
	if o != nil && (o.err == nil || ctx.Err() == nil) {
		return o.hits, el, o.err
	}
	if parent.Err() != nil {
		return nil, el, &stalled{after: el, interrupted: true, cause: context.Cause(parent), done: returned}
	}
	return nil, el, &stalled{after: timeout, done: returned}
}

// safely calls f, turning a panic into an error with its stack.
func safely(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("panic: %v\n%s", r, debug.Stack())
		}
	}()
	return f()
}

// items turns hits into what the judge reads: a doc of the corpus for a hit
// by doc id (unknown and repeated ids are errors), a location otherwise
// (paths must be clean and relative).
func items(hits []systems.Hit, jc *judge.Corpus) ([]judge.Item, error) {
	out := make([]judge.Item, 0, len(hits))
	seen := make(map[string]bool, len(hits))
	for i, h := range hits {
		if h.DocID != "" {
			d, ok := jc.Doc(h.DocID)
			if !ok {
				return nil, fmt.Errorf("system returned unknown doc id %q", h.DocID)
			}
			if seen[h.DocID] {
				return nil, fmt.Errorf("system returned doc id %q twice", h.DocID)
			}
			seen[h.DocID] = true
			out = append(out, judge.DocItem(d))
			continue
		}
		if h.Path != "" && (!fs.ValidPath(h.Path) || h.Path == ".") {
			return nil, fmt.Errorf("hit %d: path %q is not a clean corpus-relative path", i+1, h.Path)
		}
		if h.StartLine < 0 || h.EndLine < 0 || (h.EndLine > 0 && h.EndLine < h.StartLine) {
			return nil, fmt.Errorf("hit %d: bad line range %d-%d", i+1, h.StartLine, h.EndLine)
		}
		if math.IsNaN(h.Score) {
			return nil, fmt.Errorf("hit %d: score is NaN", i+1)
		}
		// What the location points at (judge.Corpus.Target): a path and a
		// symbol without lines take the lines of the definition, so the
		// record carries them and score judges it the same way later.
		out = append(out, jc.Target(judge.Item{Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Text: h.Text, Language: codetext.LanguageOf(h.Path)}))
	}
	return out, nil
}

func score(t *datasets.Task, hits []systems.Hit, jc *judge.Corpus, tt *tokenText, ms []metrics.Measure, budget int, composite bool, tr *TaskResult) error {
	its, err := items(hits, jc)
	if err != nil {
		return err
	}
	if budget > 0 {
		its = pack(its, budget)
	}
	var r judge.Ranking
	if composite {
		r = judge.Composite(t.Gold, its, jc)
	} else {
		r = judge.Rank(t.Gold, its, jc, nil)
	}
	res := judge.Resolution{Library: t.Meta.Library}
	if len(hits) > 0 {
		res.Resolved = hits[0].Library
	}
	opt := metrics.Options{Task: res}
	if tt != nil {
		opt.Tokens = tt.tokens(its, composite, jc)
	}
	vals, err := metrics.Score(r.Units, r.Qrels, ms, opt)
	if err != nil {
		return err
	}
	tr.Values = vals
	tr.FirstRelevant = r.FirstRelevant()
	tr.Hits = make([]JudgedHit, len(its))
	for i, it := range its {
		tr.Hits[i] = JudgedHit{Rank: i + 1, DocID: it.DocID, Path: it.Path, StartLine: it.StartLine, EndLine: it.EndLine, Symbol: it.Symbol, Score: hits[i].Score, Library: hits[i].Library}
		if !composite {
			tr.Hits[i].Grade = r.Grades[i]
		}
	}
	if composite && len(tr.Hits) > 0 {
		tr.Hits[0].Grade = r.Grades[0]
	}
	for i, n := range opt.Tokens {
		if i < len(tr.Hits) {
			tr.Hits[i].Tokens = n
		}
	}
	return nil
}

func hasLibraries(tasks []datasets.Task) bool {
	for _, t := range tasks {
		if t.Meta.Library != "" {
			return true
		}
	}
	return false
}

// pack keeps the leading items whose texts fit in budget characters; the
// first always goes in, as a blob is never empty when there are hits.
func pack(its []judge.Item, budget int) []judge.Item {
	used := 0
	for i, it := range its {
		used += len(it.Text)
		if i > 0 && used > budget {
			return its[:i]
		}
	}
	return its
}

func logf(cfg RunConfig, format string, args ...any) {
	if cfg.Logf != nil {
		cfg.Logf(format, args...)
	}
}
