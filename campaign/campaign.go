// Package campaign runs a model campaign: every system configuration of a
// list (BM25 baselines, one dense config per embedding model) over every
// repository of a case file, with what each costs (index time, query
// latency, peak RSS, vector dimension), so that package report can pool,
// grade, score and decide.
//
// A campaign never stops at the first problem: a missing repository, a
// model that cannot load, an index or query failure, an empty result list,
// a vector dimension that disagrees with the model manifest, or commit
// drift is recorded as a campaignfmt.Failure and the other systems and
// repositories go on.
//
// Output directory layout:
//
//	run.json                 metadata, tasks with gold, system costs, failures
//	part.json                the plan and each cell's costs (Merge, -shard-costs)
//	results/*.jsonl          one resultfmt.Record per (system, case), gold-judged
//	pooled-results.jsonl     the pool of every system's top PoolDepth hits
//	grading-sheet.csv        the same pool for a person to grade
//	quality-summary.md …     reports on the gold alone (score regrades them)
//	plots/                   SVG and PNG figures
//
// A campaign can run on several machines: RunPart runs one part of its
// cells (a cell is one system on one repository; package shard deals
// them), writing part.json and results/ only, and Merge writes from every
// part what one whole run writes.
package campaign

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/judge"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/report/plots"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/systems"
)

// RSSMethod says how SystemCost.PeakRSSMB is measured; reports quote it.
// Every cell is measured as matrix.RSSMethod says.
const RSSMethod = matrix.RSSMethod + "; per cell (one system on one repository), a system's peak the largest of its cells'"

// Config holds the inputs and tunables of a campaign.
type Config struct {
	Cases string // case file (datasets/cases format)
	Repos string // repository manifest
	// Name names the campaign's dataset in reports; "" derives it from the
	// case file ("cases-<file>", or "cases-<folder>" for a cases.jsonl).
	Name string
	// Specs are the systems to run, in order (builtin.Specs entries or
	// any other Spec).
	Specs []systems.Spec
	// PoolDepth is how many top hits of each system are pooled per case.
	PoolDepth   int
	TaskTimeout time.Duration
	CacheDir    string
	NoCache     bool
	Report      report.Config
	// Meta carries what only the caller knows (tool version and commit,
	// host, timestamp); the campaign fills in the rest.
	Meta campaignfmt.Meta
	// Chunk is how each repository is chunked (before the manifest's
	// per-repository excludes: cases.Manifest.ChunkOptions).
	Chunk chunk.Options
	Logf  func(format string, args ...any)
	// Tokens, when set, counts the tokens of every hit (package tokens):
	// the records then carry the token measures, and a decision rule can
	// gain on quality at a token budget (a Gain on ndcg_tok@2000). Nil:
	// none (docs/judging.md, Tokens).
	Tokens harness.Counter
}

// DefaultConfig returns pool depth 10, a 60 s task timeout,
// report.DefaultConfig and chunk.RepoOptions.
func DefaultConfig() Config {
	return Config{PoolDepth: 10, TaskTimeout: 60 * time.Second, Report: report.DefaultConfig(), Chunk: chunk.RepoOptions()}
}

// Validate reports a config Run cannot use.
func (c Config) Validate() error {
	switch {
	case c.Cases == "" || c.Repos == "":
		return fmt.Errorf("campaign: need a case file and a repository manifest")
	case len(c.Specs) == 0:
		return fmt.Errorf("campaign: no systems to run")
	case c.PoolDepth <= 0:
		return fmt.Errorf("campaign: pool depth %d is not positive", c.PoolDepth)
	}
	if err := c.Chunk.Validate(); err != nil {
		return fmt.Errorf("campaign: %w", err)
	}
	return c.Report.Validate()
}

// Result is what a campaign produced.
type Result struct {
	Campaign *campaignfmt.Campaign
	Records  []resultfmt.Record
	Summary  *report.Summary
	Pool     []report.PoolEntry
}

func (c Config) logf(format string, args ...any) {
	if c.Logf != nil {
		c.Logf(format, args...)
	}
}

// Run runs the campaign and writes its output directory. The error is for
// problems that leave nothing to report (bad config, unreadable case file,
// no repository at all); everything else becomes a campaignfmt.Failure. The
// stages: load the cases, describe the campaign (metadata), chunk each
// repository, run each system on each repository, write the outputs.
//
// A whole run is the one part of a campaign sharded in one: it runs every
// cell and assembles its report from them as Merge assembles the parts of
// a sharded one (RunPart), so that the two write the same files.
func Run(ctx context.Context, cfg Config, outDir string) (*Result, error) {
	p, recs, err := runPart(ctx, cfg, shard.Whole, Costs{})
	if err != nil {
		return nil, err
	}
	return writeWhole(outDir, p, recs, cfg.Logf)
}

// describe fills in m what the campaign rests on: dataset, cutoffs, pool
// depth, how RSS is measured, ONNX Runtime, chunking, input files with
// their SHA-256, the dataset's notes.
func describe(m *campaignfmt.Meta, cfg Config, ds *datasets.Dataset, copt chunk.Options) error {
	m.Dataset, m.Split, m.Ks, m.PoolDepth = ds.Name, ds.Split, cfg.Report.Ks, cfg.PoolDepth
	m.RSSMethod = RSSMethod
	m.Rules, m.Stats = cfg.Report.Record() // score and gate decide as the campaign did
	m.Judgments = "gold labels of the case file only (grade the pool, then run score)"
	if ort, err := models.ORT(); err == nil {
		m.ORTVersion = ort.Version
	}
	m.Chunking = copt.Key()
	for _, f := range []struct{ role, path string }{{"cases", cfg.Cases}, {"repository manifest", cfg.Repos}} {
		sum, err := campaignfmt.SumFile(f.role, f.path)
		if err != nil {
			return err
		}
		m.Files = append(m.Files, sum)
	}
	if ms, err := models.Manifest(); err == nil {
		b, _ := json.Marshal(ms)
		sum := sha256.Sum256(b)
		m.Files = append(m.Files, campaignfmt.FileSum{Role: "model manifest (canonical JSON)", Path: models.ManifestName, SHA256: hex.EncodeToString(sum[:])})
	}
	m.Notes = append(m.Notes, ds.Notes...)
	return nil
}

// reportTasks are the dataset's tasks as the reports need them, without
// the spans of their gold (chunkRepos finds those).
func reportTasks(ds *datasets.Dataset) []campaignfmt.Task {
	var out []campaignfmt.Task
	for _, t := range ds.Tasks {
		rt := campaignfmt.Task{ID: t.ID, Repo: t.Meta.Repo, Intent: t.Meta.Intent, Difficulty: t.Meta.Difficulty, Query: t.Query}
		for _, g := range t.Gold {
			rt.Gold = append(rt.Gold, campaignfmt.Gold{Kind: g.Kind, ID: g.ID, Grade: g.Grade, Path: g.Path})
		}
		out = append(out, rt)
	}
	return out
}

// repos are the chunked repositories of a part: each one's chunked
// dataset and the kind of each of its docs.
type repos struct {
	prepared map[string]*harness.Prepared
	kinds    map[string]map[string]string
}

// chunkRepos chunks each named repository once (a failure is recorded in its
// RepoChunks, to become an index_failed failure of the repository) and
// records where each symbol and section gold of its tasks lies, so that
// score can judge the location hits of external systems without the
// repositories.
func chunkRepos(ds *datasets.Dataset, optFor func(repo string) chunk.Options, names []string) (*repos, []RepoChunks, []GoldSpans, error) {
	rs := &repos{prepared: map[string]*harness.Prepared{}, kinds: map[string]map[string]string{}}
	var done []RepoChunks
	for _, r := range names {
		sub, err := datasets.Restrict(ds, []string{r}, ds.Split)
		if err != nil {
			return nil, nil, nil, err
		}
		sub.Notes = nil
		p, err := harness.Prepare(sub, optFor(r))
		if err != nil {
			done = append(done, RepoChunks{Name: r, Failure: "chunking: " + err.Error()})
			continue
		}
		rs.prepared[r] = p
		rs.kinds[r] = map[string]string{}
		for _, d := range p.Corpora[r].Docs {
			rs.kinds[r][d.ID] = d.Kind
		}
		done = append(done, RepoChunks{Name: r, Chunks: len(p.Corpora[r].Docs), Notes: p.Notes})
	}
	var spans []GoldSpans
	for _, t := range ds.Tasks {
		p := rs.prepared[t.CorpusID]
		if p == nil {
			continue
		}
		for gi, g := range t.Gold {
			if g.Kind == "symbol" || g.Kind == "doc_section" {
				if sp := judge.Spans(g, p.JudgeCorpus(t.CorpusID)); len(sp) > 0 {
					spans = append(spans, GoldSpans{Task: t.ID, Gold: gi, Spans: sp})
				}
			}
		}
	}
	return rs, done, spans, nil
}

// write writes the output directory of a whole (or merged) run (see the
// package doc): each system's records, run.json, the pool and grading
// sheet, the reports on the gold alone and the plots (a plotting error is
// only logged).
func write(p *Part, outDir string, run *campaignfmt.Campaign, recs []resultfmt.Record, logf func(string, ...any)) (*Result, error) {
	if err := writeRecords(outDir, run.Meta.Dataset, run.Meta.Split, run.Systems, recs); err != nil {
		return nil, err
	}
	if err := writePartFile(outDir, p); err != nil {
		return nil, err
	}
	if err := campaignfmt.Write(filepath.Join(outDir, "run.json"), run); err != nil {
		return nil, err
	}
	cfg := p.Campaign.Report
	s, err := report.ScoreCampaign(run, recs, nil, cfg)
	if err != nil {
		return nil, err
	}
	pool := report.Pool(run, recs, p.Campaign.PoolDepth)
	if err := report.WritePool(outDir, pool); err != nil {
		return nil, err
	}
	if err := report.Write(outDir, s); err != nil {
		return nil, err
	}
	if err := plots.Write(filepath.Join(outDir, "plots"), s); err != nil && logf != nil {
		logf("plots: %v", err)
	}
	return &Result{Campaign: run, Records: recs, Summary: s, Pool: pool}, nil
}

// writeRecords writes results/ under outDir: the records of each system
// (of those named) in a file of its own.
func writeRecords(outDir, dataset, split string, syss []campaignfmt.SystemCost, recs []resultfmt.Record) error {
	if err := os.MkdirAll(filepath.Join(outDir, "results"), 0o755); err != nil {
		return err
	}
	for _, sc := range syss {
		var mine []resultfmt.Record
		for _, r := range recs {
			if r.Model() == sc.Name {
				mine = append(mine, r)
			}
		}
		sys, conf, _ := strings.Cut(sc.Name, "/")
		if err := resultfmt.WriteRecords(filepath.Join(outDir, "results", resultfmt.RecordsFileName(dataset, split, sys, conf)), mine); err != nil {
			return err
		}
	}
	return nil
}

// loadCases loads the case file over the repositories that load; a
// repository that does not is a repo_missing failure and its cases are
// left out.
func loadCases(cfg Config, run *campaignfmt.Campaign) (*datasets.Dataset, map[string]campaignfmt.RepoInfo, error) {
	man, err := cases.ReadManifest(cfg.Repos)
	if err != nil {
		return nil, nil, err
	}
	f, err := os.Open(cfg.Cases)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var kept []string
	perRepo := map[string]int{}
	var lines []struct {
		repo, text string
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<16), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var r struct {
			Repo string `json:"repo"`
		}
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, nil, fileline.Errorf(cfg.Cases, line, "%w", err)
		}
		perRepo[r.Repo]++
		lines = append(lines, struct{ repo, text string }{r.Repo, sc.Text()})
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	info := map[string]campaignfmt.RepoInfo{}
	bad := map[string]bool{}
	for _, name := range slices.Sorted(maps.Keys(perRepo)) {
		spec, ok := man.Repos[name]
		if !ok {
			continue // cases.Load reports the unknown repo with its line
		}
		c, note, err := cases.LoadRepo(name, spec, filepath.Dir(cfg.Repos))
		if err != nil {
			bad[name] = true
			run.Failures = append(run.Failures, campaignfmt.Failure{Kind: campaignfmt.FailRepoMissing, Repo: name,
				Message: fmt.Sprintf("%v; its %d cases are left out", err, perRepo[name])})
			continue
		}
		if note.Status == cases.CommitDrift {
			run.Failures = append(run.Failures, campaignfmt.Failure{Kind: campaignfmt.FailCommitDrift, Repo: name, Message: note.Text})
		}
		info[name] = campaignfmt.RepoInfo{Name: name, Source: source(spec), Commit: c.Commit, Docs: len(c.Docs), Note: note.Text}
	}
	for _, l := range lines {
		if !bad[l.repo] {
			kept = append(kept, l.text)
		}
	}
	if len(kept) == 0 {
		return nil, nil, fmt.Errorf("%s: no case over a repository that loads", cfg.Cases)
	}
	casesFile := cfg.Cases
	if len(bad) > 0 {
		tmp, err := os.CreateTemp("", "campaign-cases-*.jsonl")
		if err != nil {
			return nil, nil, err
		}
		defer os.Remove(tmp.Name())
		_, werr := tmp.WriteString(strings.Join(kept, "\n") + "\n")
		if err := errors.Join(werr, tmp.Close()); err != nil {
			return nil, nil, err
		}
		casesFile = tmp.Name()
	}
	ds, err := cases.Load(casesFile, cfg.Repos, cases.DefaultConfig())
	if err != nil {
		return nil, nil, err
	}
	ds.Name = cfg.Name
	if ds.Name == "" {
		base := strings.TrimSuffix(filepath.Base(cfg.Cases), filepath.Ext(cfg.Cases))
		if base == "cases" {
			if abs, err := filepath.Abs(cfg.Cases); err == nil {
				base = filepath.Base(filepath.Dir(abs))
			}
		}
		ds.Name = "cases-" + base
	}
	return ds, info, nil
}

func source(s cases.RepoSpec) string {
	switch {
	case s.Datapack != "" && s.Entry != "":
		return "datapack " + s.Datapack + " entry " + s.Entry
	case s.Datapack != "":
		return "datapack " + s.Datapack
	case s.Archive != "":
		return "archive " + s.Archive
	}
	return "path " + s.Path
}

// runConfig is the harness's run config of a campaign.
func runConfig(cfg Config) harness.RunConfig {
	rc := harness.DefaultRunConfig()
	rc.Depth = max(cfg.PoolDepth, slices.Max(cfg.Report.Ks))
	rc.TaskTimeout, rc.CacheDir, rc.NoCache, rc.Logf = cfg.TaskTimeout, cfg.CacheDir, cfg.NoCache, cfg.Logf
	rc.Measures = cfg.Report.Measures()
	rc.Tokens = cfg.Tokens
	return rc
}

// runCell runs spec on one chunked repository (matrix.Run): its records and
// what the cell cost and noticed, failures included, in the order they
// happened, and the outcome's measures.
func runCell(ctx context.Context, cfg Config, rc harness.RunConfig, spec systems.Spec, repo string, p *harness.Prepared,
	kinds map[string]string) (CellResult, []resultfmt.Record, matrix.Outcome) {
	name := spec.Name()
	c := CellResult{System: name, Repo: repo}
	fail := func(kind, task, msg string) {
		c.Failures = append(c.Failures, campaignfmt.Failure{Kind: kind, System: name, Repo: repo, Task: task, Message: msg})
	}
	cfg.logf("%s on %s: %d cases", name, repo, len(p.Dataset.Tasks))
	o := matrix.Run(ctx, p, spec, rc)
	c.Seconds = o.Seconds
	if o.Processes {
		c.ChildPeakRSS = o.PeakRSS
	}
	if err := o.Err; err != nil {
		kind := campaignfmt.FailIndex
		if errors.Is(err, harness.ErrNewSystem) {
			kind = campaignfmt.FailModel
		}
		fail(kind, "", err.Error())
		return c, nil, o
	}
	res := o.Result
	c.Ran = true
	c.IndexSeconds = res.IndexTime.Seconds()
	c.IndexBuildSeconds = res.IndexBuildTime.Seconds()
	c.IndexReused = len(res.IndexReused)
	c.IndexBuildCPUClasses = res.IndexBuildCPUClasses
	for _, m := range res.Models {
		c.Models = append(c.Models, campaignfmt.ModelInfo{ID: m.ID, Dimension: m.Dimension, Pooling: m.Pooling, MaxTokens: m.MaxTokens,
			QueryPrefix: m.QueryPrefix, PassagePrefix: m.PassagePrefix, Fingerprint: m.Fingerprint})
	}
	c.Warnings = res.Warnings
	c.IndexedDocs = res.IndexedDocs
	var recs []resultfmt.Record
	texts := map[string]*corpus.Doc{}
	if cp := p.Corpora[repo]; cp != nil {
		for i := range cp.Docs {
			texts[cp.Docs[i].ID] = &cp.Docs[i]
		}
	}
	for _, r := range res.Records(kinds, false) {
		for k := range r.Hits {
			// What a grade of the hit is bound to (report: grading sheet).
			if d := texts[r.Hits[k].DocID]; d != nil && !r.Hits[k].Located {
				sum := sha256.Sum256([]byte(d.Title + "\x00" + d.Text))
				r.Hits[k].TextSHA = hex.EncodeToString(sum[:])[:16]
			}
		}
		switch {
		case r.Error != "":
			fail(campaignfmt.FailQuery, r.Task, r.Error)
		case len(r.Hits) == 0:
			fail(campaignfmt.FailEmptyResults, r.Task, "no hits")
		}
		if r.Error == "" {
			c.Answered++
		}
		recs = append(recs, r)
	}
	c.Dimension = o.Dimension
	if o.DimensionErr != nil {
		c.DimensionError = o.DimensionErr.Error()
	}
	return c, recs, o
}

// foldSystem is the cost and status of one system from its cells (in
// repository order), as one campaign process running them one after the
// other records them, appending the system's failures to run: its
// cells', then those of the system as a whole. prepared is how many
// repositories chunked; peakMB is the campaign process's peak RSS over the
// system's cells (the largest of its cells', RSSMethod).
func foldSystem(run *campaignfmt.Campaign, sys PlanSystem, cells []CellResult, prepared int, peakMB float64) campaignfmt.SystemCost {
	name := sys.Name
	sr := campaignfmt.SystemCost{Name: name, Status: campaignfmt.StatusOK}
	fail := func(kind, msg string) {
		run.Failures = append(run.Failures, campaignfmt.Failure{Kind: kind, System: name, Message: msg})
	}
	missing := 0
	for _, c := range cells {
		if c.Missing != "" {
			if missing == 0 {
				fail(campaignfmt.FailModel, c.Missing)
			}
			missing++
		}
	}
	if missing > 0 && missing == len(cells) {
		sr.Status = campaignfmt.StatusFailed
		return sr
	}
	ran, answered := 0, 0
	var child uint64
	probed, dimErr := false, ""
	for _, c := range cells {
		if c.Missing != "" {
			continue
		}
		run.Failures = append(run.Failures, c.Failures...)
		if !probed && (c.Dimension > 0 || c.DimensionError != "") {
			// The first system to index measures the dimension, once.
			probed = true
			sr.Dimension, dimErr = c.Dimension, c.DimensionError
		}
		if !c.Ran {
			continue
		}
		ran++
		sr.IndexSeconds += c.IndexSeconds
		sr.IndexBuildSeconds += c.IndexBuildSeconds
		sr.IndexReused += c.IndexReused
		for _, cl := range c.IndexBuildCPUClasses {
			if i, found := slices.BinarySearch(sr.IndexBuildCPUClasses, cl); !found {
				sr.IndexBuildCPUClasses = slices.Insert(sr.IndexBuildCPUClasses, i, cl)
			}
		}
		sr.Warnings = append(sr.Warnings, c.Warnings...)
		sr.IndexedDocs += c.IndexedDocs
		answered += c.Answered
		child = max(child, c.ChildPeakRSS)
	}
	sr.PeakRSSMB = peakMB
	if child > 0 {
		// A system that runs its own processes (an external peer) costs
		// their memory, not the campaign's (RSSMethod).
		sr.PeakRSSMB = float64(child) / (1 << 20)
	}
	if sr.Dimension > 0 {
		if sys.Dimension > 0 && sr.Dimension != sys.Dimension {
			fail(campaignfmt.FailDimensionMismatch, fmt.Sprintf("vectors have %d dimensions, the model manifest says %d", sr.Dimension, sys.Dimension))
		}
	} else {
		sr.Dimension = sys.Dimension
	}
	if dimErr != "" {
		fail(campaignfmt.FailModel, "dimension probe: "+dimErr)
	}
	switch {
	case ran == 0 || answered == 0:
		// Indexed but every query failed (a model that loads nothing, a
		// tool that crashes on every call): no result is a result.
		sr.Status = campaignfmt.StatusFailed
	case ran < prepared || hasFailure(run, name):
		sr.Status = campaignfmt.StatusPartial
	}
	if sr.IndexReused == 0 {
		sr.IndexBuildSeconds = 0 // every index built now: IndexSeconds says it
	}
	return sr
}

func hasFailure(run *campaignfmt.Campaign, name string) bool {
	for _, f := range run.Failures {
		if f.System == name && f.Kind != campaignfmt.FailDimensionMismatch {
			return true
		}
	}
	return false
}

func appendOnce(xs []string, s string) []string {
	if slices.Contains(xs, s) {
		return xs
	}
	return append(xs, s)
}
