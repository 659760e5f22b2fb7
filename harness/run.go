package harness

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"sort"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/systems"
)

// DefaultMeasures are computed for every cell unless the dataset declares
// one undefined. recall@k and ndcg@k use all judged relevant units of a
// task as the ideal (trec_eval semantics).
var DefaultMeasures = []string{"hit@1", "hit@5", "hit@10", "recall@10", "mrr", "ndcg@10", "map"}

// RunConfig holds the tunables of one run.
type RunConfig struct {
	Depth       int           // hits requested per query
	TaskTimeout time.Duration // per Search call
	Measures    []string      // canonical measure names (metrics.ParseMeasure)
	CacheDir    string
	NoCache     bool
	Logf        func(format string, args ...any) // progress; nil = silent
}

// DefaultRunConfig returns depth 100, a 60 s task timeout and DefaultMeasures.
func DefaultRunConfig() RunConfig {
	return RunConfig{Depth: 100, TaskTimeout: 60 * time.Second, Measures: DefaultMeasures}
}

// JudgedHit is one hit of a task as judged.
type JudgedHit struct {
	Rank   int     `json:"rank"`
	DocID  string  `json:"doc_id"`
	Path   string  `json:"path,omitempty"`
	Symbol string  `json:"symbol,omitempty"`
	Score  float64 `json:"score"`
	Grade  int     `json:"grade"`
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

// Versioner is implemented by systems that can name the versions of what
// they run on (SQLite, ONNX Runtime, a model checksum); golden files record
// them.
type Versioner interface{ Versions() map[string]string }

// Run indexes every corpus of p that has tasks with a fresh system from
// spec, searches every task and judges the hits. Task failures are recorded
// in the result (Result.Failed); the returned error is for failures that
// make the whole cell meaningless (bad config, index failure).
func Run(ctx context.Context, p *Prepared, spec Spec, cfg RunConfig) (*Result, error) {
	ms, undefined, err := measures(cfg.Measures, p.Dataset.Undefined)
	if err != nil {
		return nil, err
	}
	res := &Result{
		Dataset: p.Dataset.Name, Split: p.Dataset.Split,
		System: spec.System, Config: spec.Config, ConfigHash: spec.Hash,
		DataHash: p.Hash, Measures: ms, Undefined: undefined,
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

func measures(names []string, undefined map[string]string) ([]metrics.Measure, map[string]string, error) {
	var ms []metrics.Measure
	skipped := map[string]string{}
	for _, n := range names {
		m, err := metrics.ParseMeasure(n)
		if err != nil {
			return nil, nil, err
		}
		if why, ok := undefined[m.String()]; ok {
			skipped[m.String()] = why
			continue
		}
		ms = append(ms, m)
	}
	return ms, skipped, nil
}

func runCorpus(ctx context.Context, p *Prepared, spec Spec, cfg RunConfig, cid string, tasks []int, res *Result) error {
	c := p.Corpora[cid]
	sys, err := spec.New(systems.Options{CacheDir: cfg.CacheDir, NoCache: cfg.NoCache, Logf: cfg.Logf})
	if err != nil {
		return fmt.Errorf("%s/%s: creating system: %w", spec.System, spec.Config, err)
	}
	defer sys.Close()
	logf(cfg, "indexing %s: %d docs", cid, len(c.Docs))
	start := time.Now()
	if err := safely(func() error { return sys.Index(ctx, c) }); err != nil {
		return fmt.Errorf("%s/%s: indexing corpus %s: %w", spec.System, spec.Config, cid, err)
	}
	el := time.Since(start)
	res.IndexTime += el
	res.IndexedDocs += len(c.Docs)
	logf(cfg, "indexed %s: %d docs in %v (%.0f docs/s)", cid, len(c.Docs), el.Round(time.Millisecond), float64(len(c.Docs))/el.Seconds())
	if v, ok := sys.(Versioner); ok && res.Versions == nil {
		res.Versions = v.Versions()
	}
	lookup := p.lookup[cid]
	for n, ti := range tasks {
		t := &p.Dataset.Tasks[ti]
		tr := &res.Tasks[ti]
		tr.ID, tr.Meta, tr.Query = t.ID, t.Meta, t.Query
		tr.Values = make([]float64, len(res.Measures))
		hits, lat, err := search(ctx, sys, t.Query, cfg)
		tr.Latency = lat
		if err != nil {
			tr.Err = err.Error()
			if errors.Is(err, errTimeout) {
				// The system may still be running the abandoned call, so
				// it cannot be used again: mark the rest of the corpus.
				for _, rest := range tasks[n+1:] {
					rt := &res.Tasks[rest]
					rt.ID, rt.Meta, rt.Query = p.Dataset.Tasks[rest].ID, p.Dataset.Tasks[rest].Meta, p.Dataset.Tasks[rest].Query
					rt.Values = make([]float64, len(res.Measures))
					rt.Err = "not run: an earlier task of this corpus timed out"
				}
				return nil
			}
			continue
		}
		if err := score(t, hits, c, lookup, res.Measures, p.Dataset.CompositeBudget, tr); err != nil {
			tr.Err = err.Error()
		}
	}
	return nil
}

var errTimeout = errors.New("timed out")

// search runs one query with the task timeout, turning a panic into an
// error.
func search(ctx context.Context, sys systems.System, q string, cfg RunConfig) ([]systems.Hit, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.TaskTimeout)
	defer cancel()
	type out struct {
		hits []systems.Hit
		err  error
	}
	done := make(chan out, 1)
	start := time.Now()
	go func() {
		var hits []systems.Hit
		err := safely(func() error {
			var err error
			hits, err = sys.Search(ctx, q, cfg.Depth)
			return err
		})
		done <- out{hits, err}
	}()
	select {
	case o := <-done:
		return o.hits, time.Since(start), o.err
	case <-ctx.Done():
		return nil, time.Since(start), fmt.Errorf("search %w after %v", errTimeout, cfg.TaskTimeout)
	}
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

func score(t *datasets.Task, hits []systems.Hit, c *corpus.Corpus, lookup map[string]int, ms []metrics.Measure, budget int, tr *TaskResult) error {
	docs := make([]*corpus.Doc, 0, len(hits))
	seen := make(map[string]bool, len(hits))
	for _, h := range hits {
		i, ok := lookup[h.DocID]
		if !ok {
			return fmt.Errorf("system returned unknown doc id %q", h.DocID)
		}
		if seen[h.DocID] {
			return fmt.Errorf("system returned doc id %q twice", h.DocID)
		}
		seen[h.DocID] = true
		docs = append(docs, &c.Docs[i])
	}
	if budget > 0 {
		docs = pack(docs, budget)
	}
	j := judge(t, docs)
	units := j.units
	if budget > 0 {
		units = composite(j)
	}
	vals, err := metrics.Score(units, j.qrels, ms, metrics.Options{})
	if err != nil {
		return err
	}
	tr.Values = vals
	tr.Hits = make([]JudgedHit, len(docs))
	for i, d := range docs {
		tr.Hits[i] = JudgedHit{Rank: i + 1, DocID: d.ID, Path: d.Path, Symbol: d.Symbol, Score: hits[i].Score, Grade: j.grade[i]}
		if j.grade[i] > 0 && tr.FirstRelevant == 0 {
			tr.FirstRelevant = i + 1
		}
	}
	return nil
}

// pack keeps the leading docs whose texts fit in budget characters; the
// first doc always goes in, as a blob is never empty when there are hits.
func pack(docs []*corpus.Doc, budget int) []*corpus.Doc {
	used := 0
	for i, d := range docs {
		used += len(d.Text)
		if i > 0 && used > budget {
			return docs[:i]
		}
	}
	return docs
}

// composite turns the judged packed docs into a one-item ranking: the blob
// is the best gold unit it holds, or a non-relevant item.
func composite(j judgment) []string {
	best, grade := "hit:composite-blob", -1
	for i, u := range j.units {
		if strings.HasPrefix(u, "gold:") && j.grade[i] > grade {
			best, grade = u, j.grade[i]
		}
	}
	return []string{best}
}

func logf(cfg RunConfig, format string, args ...any) {
	if cfg.Logf != nil {
		cfg.Logf(format, args...)
	}
}
