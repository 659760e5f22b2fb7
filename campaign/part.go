package campaign

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/internal/shard"
	"github.com/retrievalbench/retrievalbench/matrix"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// PartFile is the file of a campaign's output directory that Merge reads:
// the campaign's plan and what each of its cells cost and noticed.
const PartFile = matrix.PartFile

// A cell of a campaign is one system on one repository: the unit a
// sharded campaign deals to its parts (RunPart) and whose wall time the
// next sharded run balances by.
//
// Part is what one part of a campaign ran (part.json): the plan every part
// shares, and this part's repositories, systems and cells. A whole run is
// the one part of a campaign sharded in one ("1/1"), and so is the output
// of Merge: either is a part, and -shard-costs reads the cells' times of
// any part.
type Part struct {
	Shard string `json:"shard"` // "I/N"
	// Campaign is the plan: the same in every part of a campaign run with
	// the same command but -shard (Merge refuses parts that differ).
	Campaign Plan `json:"campaign"`
	// Generated and Host are this part's Meta.Generated and Meta.Host.
	Generated string `json:"generated"`
	Host      string `json:"host"`
	// Repos are the repositories this part chunked, Spans where the gold
	// of their tasks lies.
	Repos []RepoChunks `json:"repos"`
	Spans []GoldSpans  `json:"spans,omitempty"`
	// Systems are the systems this part ran a cell of.
	Systems []SystemRun `json:"systems"`
	// Cells are this part's cells, in plan order.
	Cells []CellResult `json:"cells"`
}

// Plan is what every part of a campaign shares.
type Plan struct {
	// Meta is the campaign's metadata without Generated, Host and the
	// repositories' chunk counts.
	Meta      campaignfmt.Meta      `json:"meta"`
	PoolDepth int                   `json:"pool_depth"`
	Report    report.Config         `json:"report"`
	Tasks     []campaignfmt.Task    `json:"tasks"`    // without their gold's spans
	Failures  []campaignfmt.Failure `json:"failures"` // those of loading the cases
	Systems   []PlanSystem          `json:"systems"`
	Cells     []PlanCell            `json:"cells"` // system-major, repositories in name order
}

// PlanSystem is one system of a campaign, in run order.
type PlanSystem struct {
	Name string `json:"name"`
	// Dimension is the model manifest's vector dimension (0: none).
	Dimension int `json:"dimension,omitempty"`
}

// dealt is the part each cell of the plan is dealt to (matrix.Plan.Dealt,
// as part.json records it): what every part of a campaign must agree on.
func (pl Plan) dealt() matrix.Dealt {
	d := make(matrix.Dealt, len(pl.Cells))
	for _, c := range pl.Cells {
		d[cellKey(c.System, c.Repo)] = c.Shard
	}
	return d
}

// PlanCell is one cell of the campaign's matrix.Plan and the part it is
// dealt to.
type PlanCell struct {
	System string `json:"system"`
	Repo   string `json:"repo"`
	Shard  int    `json:"shard"`
}

// RepoChunks is one chunked repository: its chunk count, or why chunking
// failed.
type RepoChunks struct {
	Name    string `json:"name"`
	Chunks  int    `json:"chunks"`
	Failure string `json:"failure,omitempty"`
	// Notes are what the chunking noticed (harness.Prepared.Notes: files
	// excluded, chunks cut, gold in excluded files); run.json shows them in
	// the repository's note.
	Notes []string `json:"notes,omitempty"`
}

// GoldSpans are the spans of gold Gold of task Task.
type GoldSpans struct {
	Task  string        `json:"task"`
	Gold  int           `json:"gold"`
	Spans []corpus.Span `json:"spans"`
}

// SystemRun is the campaign process's peak RSS over one system's cells of
// a part (the largest of its cells', each reset before it: RSSMethod), and
// whether a reset failed.
type SystemRun struct {
	Name        string  `json:"name"`
	PeakRSSMB   float64 `json:"peak_rss_mb"`
	ResetFailed bool    `json:"reset_failed,omitempty"`
}

// CellResult is what one cell cost and noticed.
type CellResult struct {
	System string `json:"system"`
	Repo   string `json:"repo"`
	// Seconds is the cell's wall time: indexing and searching (what
	// -shard-costs balances by).
	Seconds float64 `json:"seconds"`
	// Missing says what the system needs and lacks: the cell did not run.
	Missing           string  `json:"missing,omitempty"`
	Ran               bool    `json:"ran"` // indexed
	Answered          int     `json:"answered"`
	IndexSeconds      float64 `json:"index_seconds"`
	IndexBuildSeconds float64 `json:"index_build_seconds"`
	IndexReused       int     `json:"index_reused"`
	// IndexBuildCPUClasses are the CPU classes the builds were timed on
	// (harness.Result).
	IndexBuildCPUClasses []string `json:"index_build_cpu_classes,omitempty"`
	// Models are the embedding models the system reported (systems.ModelsOf:
	// a hybrid's or graph's members' too), for run.json's models.
	Models      []campaignfmt.ModelInfo `json:"models,omitempty"`
	IndexedDocs int                     `json:"indexed_docs"`
	Warnings    []string                `json:"warnings,omitempty"`
	// ChildPeakRSS is the peak RSS of the processes the system runs, in
	// bytes (0: none).
	ChildPeakRSS   uint64                `json:"child_peak_rss"`
	Dimension      int                   `json:"dimension,omitempty"`
	DimensionError string                `json:"dimension_error,omitempty"`
	Failures       []campaignfmt.Failure `json:"failures,omitempty"`
}

// cellKey is the key of the cell of the system named "system/config" on
// repo: the key every runner names a cell by (matrix.Key), here of family
// matrix.CampaignFamily.
func cellKey(system, repo string) matrix.Key {
	return matrix.SpecKey(matrix.CampaignFamily, system, repo)
}

// Costs are the wall times of a previous run's cells (matrix.Costs).
type Costs = matrix.Costs

// ReadCosts reads the cell times recorded in each directory
// (matrix.ReadCosts): the part.json of a campaign's output — a whole
// run's, a merged one's or a part's. A directory that does not exist or
// records no cell is an error naming it.
func ReadCosts(dirs []string) (Costs, error) { return matrix.ReadCosts(dirs...) }

// ReadPart reads dir's part.json.
func ReadPart(dir string) (*Part, error) {
	var p Part
	if err := datafile.ReadJSON(filepath.Join(dir, PartFile), &p); err != nil {
		return nil, err
	}
	return &p, nil
}

func writePartFile(dir string, p *Part) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return atomicfile.WriteJSON(filepath.Join(dir, PartFile), p)
}

// RunPart runs part sh of the campaign: the cells dealt to it, longest
// first by costs (see package shard; without a recorded cost, a cell costs
// the mean of those recorded, else 1), and writes outDir/part.json and
// outDir/results/ (its records). It writes no report: Merge builds the
// campaign's from every part. Every part must run the same config.
func RunPart(ctx context.Context, cfg Config, sh shard.Shard, costs Costs, outDir string) (*Part, error) {
	p, recs, err := runPart(ctx, cfg, sh, costs)
	if err != nil {
		return nil, err
	}
	var syss []campaignfmt.SystemCost
	for _, s := range p.Systems {
		syss = append(syss, campaignfmt.SystemCost{Name: s.Name})
	}
	if err := writeRecords(outDir, p.Campaign.Meta.Dataset, p.Campaign.Meta.Split, syss, recs); err != nil {
		return nil, err
	}
	return p, writePartFile(outDir, p)
}

// newPlan is the campaign's matrix.Plan: every system of cfg on every
// repository, in that order (system-major, repositories in name order),
// dealt to the parts of sh by costs. Costs that record none of the cells
// fail the run.
func newPlan(cfg Config, repos []string, sh shard.Shard, costs Costs) (*matrix.Plan, error) {
	pl := matrix.NewPlan(matrix.PlanInput{Family: matrix.CampaignFamily, Specs: cfg.Specs, Datasets: repos, Costs: costs, Shard: sh})
	return pl, pl.NoCosts
}

// runPart loads the cases, describes the campaign, deals its cells, chunks
// the repositories of part sh's cells and runs them.
func runPart(ctx context.Context, cfg Config, sh shard.Shard, costs Costs) (*Part, []resultfmt.Record, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	run := &campaignfmt.Campaign{Meta: cfg.Meta}
	ds, repoInfo, err := loadCases(cfg, run)
	if err != nil {
		return nil, nil, err
	}
	man, err := cases.ReadManifest(cfg.Repos)
	if err != nil {
		return nil, nil, err
	}
	if err := describe(&run.Meta, cfg, ds, cfg.Chunk); err != nil {
		return nil, nil, err
	}
	for _, r := range slices.Sorted(maps.Keys(repoInfo)) {
		run.Meta.Repos = append(run.Meta.Repos, repoInfo[r])
	}
	p := &Part{Shard: sh.String(), Generated: run.Meta.Generated, Host: run.Meta.Host}
	run.Meta.Generated, run.Meta.Host = "", ""
	p.Campaign = Plan{Meta: run.Meta, PoolDepth: cfg.PoolDepth, Report: cfg.Report, Tasks: reportTasks(ds), Failures: run.Failures}

	repoNames := slices.Sorted(maps.Keys(ds.Corpora))
	pl, err := newPlan(cfg, repoNames, sh, costs)
	if err != nil {
		return nil, nil, err
	}
	mine := map[string]bool{}
	for _, spec := range cfg.Specs {
		p.Campaign.Systems = append(p.Campaign.Systems, PlanSystem{Name: spec.Name(), Dimension: spec.Dimension})
	}
	for _, c := range pl.Cells {
		p.Campaign.Cells = append(p.Campaign.Cells, PlanCell{System: c.Spec.Name(), Repo: c.Key.Dataset, Shard: c.Part})
		if pl.Mine(c) {
			mine[c.Key.Dataset] = true
		}
	}

	var chunkNames []string
	for _, r := range repoNames {
		if mine[r] {
			chunkNames = append(chunkNames, r)
		}
	}
	optFor := func(r string) chunk.Options { return man.ChunkOptions(r, cfg.Chunk) }
	rs, done, spans, err := chunkRepos(ds, optFor, chunkNames)
	if err != nil {
		return nil, nil, err
	}
	p.Repos, p.Spans = done, spans

	rc := runConfig(cfg)
	var recs []resultfmt.Record
	for _, spec := range cfg.Specs {
		name := spec.Name()
		var cells []string
		for _, c := range pl.Cells {
			if c.Spec.Name() == name && pl.Mine(c) {
				cells = append(cells, c.Key.Dataset)
			}
		}
		if len(cells) == 0 {
			continue
		}
		if err := ctx.Err(); err != nil {
			return nil, nil, fmt.Errorf("campaign: interrupted: %w", err)
		}
		if r := spec.Missing(cfg.CacheDir); r != nil {
			for _, repo := range cells {
				p.Cells = append(p.Cells, CellResult{System: name, Repo: repo, Missing: fmt.Sprintf("needs %s: %v", r.Kind, r.Reason)})
			}
			cfg.logf("%s: needs %s: %v", name, r.Kind, r.Reason)
			continue
		}
		sr := SystemRun{Name: name}
		for _, repo := range cells {
			pr := rs.prepared[repo]
			if pr == nil {
				p.Cells = append(p.Cells, CellResult{System: name, Repo: repo}) // not chunked: not run
				continue
			}
			c, rr, o := runCell(ctx, cfg, rc, spec, repo, pr, rs.kinds[repo])
			p.Cells = append(p.Cells, c)
			recs = append(recs, rr...)
			sr.ResetFailed = sr.ResetFailed || o.ResetFailed
			if !o.Processes {
				sr.PeakRSSMB = max(sr.PeakRSSMB, float64(o.PeakRSS)/(1<<20))
			}
		}
		p.Systems = append(p.Systems, sr)
		cfg.logf("%s: %d cells, peak RSS of the campaign process %.0f MiB", name, len(cells), sr.PeakRSSMB)
	}
	if err := ctx.Err(); err != nil {
		// Interrupted during the last system: its cells are not results.
		return nil, nil, fmt.Errorf("campaign: interrupted: %w", err)
	}
	return p, recs, nil
}

// Merge reads the parts of a sharded campaign (each a RunPart output
// directory: part.json and results/) and writes into outDir what one
// whole run would have: the same files, the same bytes but for measured
// times and memory. The parts must be every part of one campaign, each
// once.
func Merge(dirs []string, outDir string, logf func(string, ...any)) (*Result, error) {
	var parts []*Part
	var recs []resultfmt.Record
	for _, d := range dirs {
		p, err := ReadPart(d)
		if err != nil {
			return nil, err
		}
		parts = append(parts, p)
		if len(p.Systems) == 0 {
			continue // a part without a cell that ran has no records
		}
		rs, err := resultfmt.ReadRecords(filepath.Join(d, "results"))
		if err != nil {
			return nil, err
		}
		recs = append(recs, rs...)
	}
	whole, err := mergeParts(dirs, parts)
	if err != nil {
		return nil, err
	}
	return writeWhole(outDir, whole, recs, logf)
}

// mergeParts checks that parts are every part of one campaign, each once,
// and makes them one: the whole run's part.
func mergeParts(dirs []string, parts []*Part) (*Part, error) {
	if len(parts) == 0 {
		return nil, fmt.Errorf("campaign: no parts to merge")
	}
	plan := func(p *Part) ([]byte, error) {
		pl := p.Campaign
		pl.Cells = nil // the assignment is compared cell by cell below
		return json.Marshal(pl)
	}
	first, err := plan(parts[0])
	if err != nil {
		return nil, err
	}
	var n int
	seen := map[int]string{}
	for i, p := range parts {
		sh, err := shard.Parse(p.Shard)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(dirs[i], PartFile), err)
		}
		if i == 0 {
			n = sh.N
		}
		if sh.N != n {
			return nil, fmt.Errorf("%s is part %s, %s part %s: parts of runs sharded in %d and in %d", dirs[0], parts[0].Shard, dirs[i], p.Shard, n, sh.N)
		}
		if other, ok := seen[sh.I]; ok {
			return nil, fmt.Errorf("%s and %s are both part %s", other, dirs[i], p.Shard)
		}
		seen[sh.I] = dirs[i]
		b, err := plan(p)
		if err != nil {
			return nil, err
		}
		if !bytes.Equal(b, first) {
			return nil, fmt.Errorf("%s and %s are parts of different campaigns (cases, systems, flags or code differ): every part must run the same command but -shard", dirs[0], dirs[i])
		}
		if !slices.Equal(p.Campaign.Cells, parts[0].Campaign.Cells) {
			return nil, fmt.Errorf("%s and %s dealt the cells differently: every part must run with the same -shard-costs", dirs[0], dirs[i])
		}
	}
	for i := 1; i <= n; i++ {
		if _, ok := seen[i]; !ok {
			return nil, fmt.Errorf("part %d/%d is missing (have %s)", i, n, strings.Join(dirs, ", "))
		}
	}

	whole := &Part{Shard: shard.Whole.String(), Campaign: parts[0].Campaign}
	whole.Campaign.Cells = slices.Clone(whole.Campaign.Cells)
	for i := range whole.Campaign.Cells {
		whole.Campaign.Cells[i].Shard = 1
	}
	var hosts []string
	repos := map[string]RepoChunks{}
	spans := map[[2]string]GoldSpans{}
	systems := map[string]SystemRun{}
	cells := map[matrix.Key]CellResult{}
	for i, p := range parts {
		whole.Generated = max(whole.Generated, p.Generated) // RFC 3339 in UTC: the latest
		if !slices.Contains(hosts, p.Host) {
			hosts = append(hosts, p.Host)
		}
		for _, r := range p.Repos {
			if o, ok := repos[r.Name]; ok && !reflect.DeepEqual(o, r) {
				return nil, fmt.Errorf("%s chunked %s into %d chunks, another part into %d", dirs[i], r.Name, r.Chunks, o.Chunks)
			}
			repos[r.Name] = r
		}
		for _, s := range p.Spans {
			spans[[2]string{s.Task, fmt.Sprint(s.Gold)}] = s
		}
		for _, s := range p.Systems {
			o := systems[s.Name]
			systems[s.Name] = SystemRun{Name: s.Name, PeakRSSMB: max(o.PeakRSSMB, s.PeakRSSMB), ResetFailed: o.ResetFailed || s.ResetFailed}
		}
		sh, _ := shard.Parse(p.Shard)
		for _, c := range p.Cells {
			k := cellKey(c.System, c.Repo)
			if _, ok := cells[k]; ok {
				return nil, fmt.Errorf("%s: cell %s twice", dirs[i], k)
			}
			cells[k] = c
		}
		dealt := p.Campaign.dealt()
		for _, c := range p.Campaign.Cells {
			k := cellKey(c.System, c.Repo)
			if _, ok := cells[k]; dealt[k] == sh.I && !ok {
				return nil, fmt.Errorf("%s: part %s lacks its cell %s", dirs[i], p.Shard, k)
			}
		}
	}
	whole.Host = strings.Join(hosts, "; ")
	for _, r := range slices.Sorted(maps.Keys(repos)) {
		whole.Repos = append(whole.Repos, repos[r])
	}
	order := map[string]int{}
	for i, t := range whole.Campaign.Tasks {
		order[t.ID] = i
	}
	for _, s := range spans {
		whole.Spans = append(whole.Spans, s)
	}
	sort.Slice(whole.Spans, func(i, j int) bool {
		a, b := whole.Spans[i], whole.Spans[j]
		if order[a.Task] != order[b.Task] {
			return order[a.Task] < order[b.Task]
		}
		return a.Gold < b.Gold
	})
	for _, s := range whole.Campaign.Systems {
		if r, ok := systems[s.Name]; ok {
			whole.Systems = append(whole.Systems, r)
		}
	}
	for _, c := range whole.Campaign.Cells {
		if r, ok := cells[cellKey(c.System, c.Repo)]; ok {
			whole.Cells = append(whole.Cells, r)
		}
	}
	return whole, nil
}

// writeWhole assembles the campaign of a whole run's part and its records
// and writes the output directory.
func writeWhole(outDir string, p *Part, recs []resultfmt.Record, logf func(string, ...any)) (*Result, error) {
	run, recs := assemble(p, recs)
	return write(p, outDir, run, recs, logf)
}

// assemble builds the campaign of a whole run's part, as one campaign
// process running its cells one after the other records it, and orders its
// records by system in run order, then by case, so that files diff well.
func assemble(p *Part, recs []resultfmt.Record) (*campaignfmt.Campaign, []resultfmt.Record) {
	pl := p.Campaign
	run := &campaignfmt.Campaign{Meta: pl.Meta}
	run.Meta.Generated, run.Meta.Host = p.Generated, p.Host
	run.Meta.Notes = slices.Clone(pl.Meta.Notes)
	chunks := map[string]RepoChunks{}
	for _, r := range p.Repos {
		chunks[r.Name] = r
	}
	run.Meta.Repos = nil
	for _, r := range pl.Meta.Repos {
		r.Chunks = chunks[r.Name].Chunks
		if n := chunks[r.Name].Notes; len(n) > 0 {
			r.Note = strings.Join(append(slices.DeleteFunc([]string{r.Note}, func(s string) bool { return s == "" }), n...), "; ")
		}
		run.Meta.Repos = append(run.Meta.Repos, r)
	}
	run.Tasks = make([]campaignfmt.Task, len(pl.Tasks))
	byID := map[string]int{}
	for i, t := range pl.Tasks {
		t.Gold = slices.Clone(t.Gold)
		run.Tasks[i] = t
		byID[t.ID] = i
	}
	for _, s := range p.Spans {
		if i, ok := byID[s.Task]; ok && s.Gold < len(run.Tasks[i].Gold) {
			run.Tasks[i].Gold[s.Gold].Spans = s.Spans
		}
	}
	run.Failures = slices.Clone(pl.Failures)
	prepared := 0
	for _, r := range p.Repos {
		if r.Failure != "" {
			run.Failures = append(run.Failures, campaignfmt.Failure{Kind: campaignfmt.FailIndex, Repo: r.Name, Message: r.Failure})
		} else {
			prepared++
		}
	}
	peaks := map[string]SystemRun{}
	for _, s := range p.Systems {
		peaks[s.Name] = s
		if s.ResetFailed {
			run.Meta.Notes = appendOnce(run.Meta.Notes, "peak RSS could not be reset between cells (/proc/self/clear_refs not writable): later cells include earlier peaks")
		}
	}
	for _, sys := range pl.Systems {
		var cells []CellResult
		for _, c := range p.Cells {
			if c.System == sys.Name {
				cells = append(cells, c)
			}
		}
		run.Systems = append(run.Systems, foldSystem(run, sys, cells, prepared, peaks[sys.Name].PeakRSSMB))
	}
	// Every model a system embedded with, not only those a dense config
	// names (the caller's Meta.Models): a hybrid's or graph's members', in
	// id order after the caller's.
	listed := map[string]bool{}
	for _, m := range run.Meta.Models {
		listed[m.ID] = true
	}
	var used []campaignfmt.ModelInfo
	for _, c := range p.Cells {
		for _, m := range c.Models {
			if !listed[m.ID] {
				listed[m.ID] = true
				used = append(used, m)
			}
		}
	}
	sort.Slice(used, func(i, j int) bool { return used[i].ID < used[j].ID })
	run.Meta.Models = append(slices.Clone(run.Meta.Models), used...)
	order := map[string]int{}
	for i, t := range run.Tasks {
		order[t.ID] = i
	}
	sysOrder := map[string]int{}
	for i, sc := range run.Systems {
		sysOrder[sc.Name] = i
	}
	recs = slices.Clone(recs)
	sort.SliceStable(recs, func(i, j int) bool {
		a, b := recs[i], recs[j]
		if sa, sb := sysOrder[a.Model()], sysOrder[b.Model()]; sa != sb {
			return sa < sb
		}
		return order[a.Task] < order[b.Task]
	})
	return run, recs
}
