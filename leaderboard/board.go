// Package leaderboard turns a results directory of per-task records (what
// `go test ./bench -results DIR` writes, report's record format) into the
// leaderboard a person reads: per dataset and split, a table of every
// system/config with each measure's mean and 95% bootstrap CI, the paired
// test of each system against the best one, query latency percentiles,
// index time and peak RSS where the cell files record them; plots; one
// index.md and one self-contained index.html linking every dataset.
//
// Numbers come from report.Summarize (the same seeded bootstrap as every
// other report), so the leaderboard, the per-dataset reports and the plots
// agree. Everything is sorted and rounded: the same records give
// byte-identical files.
package leaderboard

import (
	"fmt"
	"maps"
	"slices"
	"sort"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/report"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Fixed is a number written with four decimals.
type Fixed = resultfmt.Fixed

// Config holds the tunables of a leaderboard.
type Config struct {
	// Primary ranks the systems and is the measure of the paired test
	// against the best; when a dataset's records lack it, their first
	// measure (in Measures order) is used.
	Primary string
	// Stats are the CIs' and the paired tests' resamples, seed and α
	// (metrics.DefaultStats).
	Stats metrics.Stats
	// Title, Commit and Generated head the pages; Generated is the only
	// clock reading, so fixed inputs with a fixed Generated give
	// byte-identical files.
	Title     string
	Commit    string
	Generated string
	// Languages are the task families asked in several programming
	// languages: each with at least two languages in the results gets a
	// table of every system across them (LanguageTable).
	Languages []LanguageFamily
	// Defs are the measures the records carry that package metrics does
	// not define, as values (report.Config.Defs): their Lower decides the
	// ranking's direction.
	Defs []*metrics.Def
}

// DefaultConfig ranks by nDCG@10 with metrics.DefaultStats (α = 0.05, the
// golden files' and the reports' resamples and seed).
func DefaultConfig() Config {
	return Config{Primary: "ndcg@10", Stats: metrics.DefaultStats(), Title: "retrievalbench leaderboard",
		Languages: []LanguageFamily{RepoQALanguages(), RepoQALanguagesMasked(), RepoQALanguagesUnnamed()}}
}

// Board is a whole leaderboard.
type Board struct {
	Title     string     `json:"title"`
	Commit    string     `json:"commit,omitempty"`
	Generated string     `json:"generated,omitempty"`
	Alpha     float64    `json:"alpha"`
	Resamples int        `json:"resamples"`
	Seed      uint64     `json:"seed"`
	Datasets  []*Dataset `json:"datasets"`
	// Languages are the language tables (Config.Languages), by family
	// and split.
	Languages []*LanguageTable `json:"languages,omitempty"`
	// Models are the embedding models the cells record, each with the
	// system/configs that ran it.
	Models []ModelRow `json:"models,omitempty"`
}

// Dataset is the leaderboard of one dataset and split.
type Dataset struct {
	// Key is "dataset.split", the name of the dataset's folder.
	Key      string   `json:"key"`
	Dataset  string   `json:"dataset"`
	Split    string   `json:"split"`
	Cases    int      `json:"cases"`
	Measures []string `json:"measures"`
	Primary  string   `json:"primary"`
	Best     string   `json:"best,omitempty"` // "" when every system failed
	Rows     []Row    `json:"rows"`           // ranked, best first
	// Costs says whether any row has index time and peak RSS (cell files).
	Costs bool `json:"costs"`

	summary *report.Summary
	// undrawn: the pages have no figures (Write without a Draw).
	undrawn bool
	cols    map[string][]float64 // per row, the primary measure of every task in task-id order
	naming  []string             // per task in task-id order, its records' naming ("" when none says)
}

// Row is one system/config of a dataset. A failed row (every task
// failed) comes after every row that ran, with rank 0 (never ranked among
// them), no scores, no latency and no paired test.
type Row struct {
	Rank   int                       `json:"rank"`
	Model  string                    `json:"model"`
	Status string                    `json:"status"`
	Cases  int                       `json:"cases"`
	Failed int                       `json:"failed"`
	Scores map[string]resultfmt.Stat `json:"scores"`
	// VsBest is the paired test of this row against the best row on the
	// primary measure; nil for the best row itself and failed rows.
	VsBest       *Paired `json:"vs_best,omitempty"`
	LatencyP50MS Fixed   `json:"latency_p50_ms"`
	LatencyP95MS Fixed   `json:"latency_p95_ms"`
	// Warnings counts what the system noticed without failing a task: the
	// warnings its records carry (hits outside the corpus, repeats).
	Warnings int `json:"warnings,omitempty"`
	// Cell is the row's cell file, nil when the results have none.
	Cell *resultfmt.Cell `json:"cell,omitempty"`
}

// Paired is a paired comparison with the best system, on the tasks of
// the dataset (a failed or missing task scores 0, as in the means).
//
// Holm's correction bounds the chance that a family of tests finds a gap
// where there is none, but the best row is chosen because it scored
// highest, which no correction of these p-values undoes: on 200 simulated
// boards of 20 equal systems (TestHolmLeaderboard, 1000 resamples) raw
// p-values marked 4.26 gaps per board significant, Holm-corrected ones
// 0.33, and 23% of boards still showed at least one.
type Paired struct {
	Measure string `json:"measure"`
	// Diff is this system's mean minus the best's, with the paired
	// bootstrap 95% CI.
	Diff Fixed `json:"diff"`
	Low  Fixed `json:"ci_low"`
	High Fixed `json:"ci_high"`
	// PBootstrap is the paired bootstrap p-value, PPermutation the paired
	// randomization (sign-flip) test's; PHolm is PPermutation corrected
	// with Holm's procedure over every row compared with the best, and
	// Significant is PHolm < α.
	PBootstrap   Fixed `json:"p_bootstrap"`
	PPermutation Fixed `json:"p_permutation"`
	PHolm        Fixed `json:"p_holm"`
	N            int   `json:"n"`
	Significant  bool  `json:"significant"`
}

// Build computes the leaderboard of recs, one Dataset per dataset and
// split in key order. cells (may be nil) add index time, peak RSS and
// hashes to the rows they match.
func Build(recs []resultfmt.Record, cells []resultfmt.Cell, cfg Config) (*Board, error) {
	if len(recs) == 0 {
		return nil, fmt.Errorf("leaderboard: no records")
	}
	if err := cfg.Stats.Validate(); err != nil {
		return nil, fmt.Errorf("leaderboard: %w", err)
	}
	b := &Board{Title: cfg.Title, Commit: cfg.Commit, Generated: cfg.Generated, Alpha: cfg.Stats.Alpha, Resamples: cfg.Stats.Resamples, Seed: cfg.Stats.Seed}
	groups := map[string][]resultfmt.Record{}
	for _, r := range recs {
		k := key(r.Dataset, r.Split)
		groups[k] = append(groups[k], r)
	}
	cellOf := map[string]*resultfmt.Cell{}
	for i := range cells {
		c := &cells[i]
		cellOf[key(c.Dataset, c.Split)+"\x00"+c.Model()] = c
	}
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		d, err := buildDataset(k, groups[k], cellOf, cfg)
		if err != nil {
			return nil, err
		}
		b.Datasets = append(b.Datasets, d)
	}
	b.Languages = buildLanguages(b.Datasets, cfg)
	b.Models = buildModels(b.Datasets)
	return b, nil
}

func key(dataset, split string) string { return dataset + "." + split }

func buildDataset(k string, rs []resultfmt.Record, cellOf map[string]*resultfmt.Cell, cfg Config) (*Dataset, error) {
	set := map[string]bool{}
	for _, r := range rs {
		for m := range r.Values {
			set[m] = true
		}
	}
	measures, err := orderMeasures(slices.Collect(maps.Keys(set)))
	if err != nil {
		return nil, fmt.Errorf("leaderboard %s: %w", k, err)
	}
	if len(measures) == 0 {
		return nil, fmt.Errorf("leaderboard %s: records carry no measure values", k)
	}
	primary := cfg.Primary
	if !set[primary] {
		primary = measures[0]
	}
	rc := report.DefaultConfig()
	rc.Ks = []int{10}
	rc.Stats = cfg.Stats
	rc.Only = measures
	rc.Defs = cfg.Defs
	rc.Rules.Primary = primary
	rc.Rules = rc.Rules.WithStats(cfg.Stats)
	// The gains name the measures plots.Write draws score figures for.
	rc.Rules.Gains = nil
	for _, m := range plotMeasures(measures, primary) {
		rc.Rules.Gains = append(rc.Rules.Gains, report.Gain{Measure: m, Threshold: 0.05})
	}
	s, err := report.Summarize(report.Input{Records: rs}, rc)
	if err != nil {
		return nil, fmt.Errorf("leaderboard %s: %w", k, err)
	}
	d := &Dataset{Key: k, Dataset: rs[0].Dataset, Split: rs[0].Split, Cases: s.Cases, Measures: measures, Primary: primary, summary: s}
	cols := taskColumns(rs, primary)
	d.cols, d.naming = cols, taskNaming(rs)
	// A measure only some systems record (library_resolution@1 of a hosted
	// documentation system) is left out of the others' rows rather than
	// shown as their zero.
	carries := map[string]bool{}
	for _, r := range rs {
		for m := range r.Values {
			carries[r.Model()+"\x00"+m] = true
		}
	}
	for i, ss := range s.Systems {
		row := Row{Rank: i + 1, Model: ss.Name, Status: ss.Status, Cases: ss.Cases, Failed: ss.Failed,
			Scores: map[string]resultfmt.Stat{}, LatencyP50MS: ss.LatencyP50MS, LatencyP95MS: ss.LatencyP95MS, Warnings: ss.Warnings}
		if ss.Status == campaignfmt.StatusFailed {
			row.Rank, row.LatencyP50MS, row.LatencyP95MS = 0, 0, 0
		}
		for _, m := range measures {
			if carries[ss.Name+"\x00"+m] && ss.Status != campaignfmt.StatusFailed {
				row.Scores[m] = ss.Micro[m]
			}
		}
		if c, ok := cellOf[k+"\x00"+ss.Name]; ok {
			cc := *c
			row.Cell = &cc
			d.Costs = true
		}
		d.Rows = append(d.Rows, row)
	}
	if len(d.Rows) > 0 && d.Rows[0].Status != campaignfmt.StatusFailed {
		d.Best = d.Rows[0].Model
		best := cols[d.Best]
		var tested []*Row
		var ps []float64
		for i := 1; i < len(d.Rows); i++ {
			r := &d.Rows[i]
			if r.Status == campaignfmt.StatusFailed {
				continue
			}
			p := cfg.Stats.Paired(best, cols[r.Model])
			perm := cfg.Stats.Permutation(best, cols[r.Model])
			r.VsBest = &Paired{Measure: primary, Diff: Fixed(p.MeanDiff), Low: Fixed(p.Low), High: Fixed(p.High),
				PBootstrap: Fixed(p.P), PPermutation: Fixed(perm), N: p.N}
			tested, ps = append(tested, r), append(ps, perm)
		}
		// Every row against the best is one family of tests: without the
		// correction, a table of 20 equal systems shows about one
		// "significant" gap by chance.
		for i, adj := range metrics.Holm(ps) {
			tested[i].VsBest.PHolm, tested[i].VsBest.Significant = Fixed(adj), cfg.Stats.Significant(adj)
		}
	}
	return d, nil
}

// Failed names the rows of b whose every task failed, as
// "dataset.split: system/config", in dataset and row order.
func (b *Board) Failed() []string {
	var out []string
	for _, d := range b.Datasets {
		for _, r := range d.Rows {
			if r.Status == campaignfmt.StatusFailed {
				out = append(out, d.Key+": "+r.Model)
			}
		}
	}
	return out
}

// taskColumns returns each model's values of measure m over every task of
// rs in task-id order; a task a model failed or lacks scores 0, as in
// report.Summarize's means.
func taskColumns(rs []resultfmt.Record, m string) map[string][]float64 {
	ids := map[string]bool{}
	for _, r := range rs {
		ids[r.Task] = true
	}
	tasks := slices.Sorted(maps.Keys(ids))
	pos := map[string]int{}
	for i, t := range tasks {
		pos[t] = i
	}
	cols := map[string][]float64{}
	for _, r := range rs {
		c, ok := cols[r.Model()]
		if !ok {
			c = make([]float64, len(tasks))
			cols[r.Model()] = c
		}
		if r.Error == "" {
			c[pos[r.Task]] = r.Values[m]
		}
	}
	return cols
}

// taskNaming returns the naming of every task of rs in task-id order (the
// order of taskColumns): the first non-empty one its records carry.
func taskNaming(rs []resultfmt.Record) []string {
	by := map[string]string{}
	for _, r := range rs {
		if by[r.Task] == "" {
			by[r.Task] = r.Naming
		}
	}
	tasks := slices.Sorted(maps.Keys(by))
	out := make([]string, len(tasks))
	for i, t := range tasks {
		out[i] = by[t]
	}
	return out
}

// orderMeasures sorts measure names by family in the order a reader
// expects (metrics.Builtin's: hit, recall, P, mrr, map, ndcg, rprec,
// coverage, pass@1-needle; then the rest by name) and by cutoff within a
// family.
func orderMeasures(names []string) ([]string, error) {
	type pm struct {
		name string
		m    metrics.Measure
	}
	var ps []pm
	for _, n := range names {
		m, err := metrics.ParseRecorded(n)
		if err != nil {
			return nil, err
		}
		ps = append(ps, pm{n, m})
	}
	builtin := metrics.Builtin()
	rank := func(m metrics.Measure) string {
		if i := slices.Index(builtin, m.Def); i >= 0 {
			return fmt.Sprintf("%02d", i)
		}
		if i := slices.Index(metrics.TokenDefs(), m.Def); i >= 0 {
			// After the rank measures: tokens, covered_tok, ndcg_tok.
			return fmt.Sprintf("98%02d", i)
		}
		return "99" + m.Name
	}
	sort.Slice(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if ra, rb := rank(a.m), rank(b.m); ra != rb {
			return ra < rb
		}
		if a.m.K != b.m.K {
			return a.m.K < b.m.K
		}
		return a.name < b.name
	})
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.name
	}
	return out, nil
}

// plotMeasures are the measures drawn as score figures: the primary, then
// hit@1, recall@10 and mrr@10 where present (at most three).
func plotMeasures(measures []string, primary string) []string {
	out := []string{primary}
	for _, m := range []string{"hit@1", "recall@10", "mrr@10"} {
		if m != primary && slices.Contains(measures, m) && len(out) < 3 {
			out = append(out, m)
		}
	}
	return out
}
