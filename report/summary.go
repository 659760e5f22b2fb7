package report

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Config holds the tunables of a report.
type Config struct {
	Ks    []int         // cutoffs of hit@k, recall@k, ndcg@k and judged@k
	Stats metrics.Stats // the CIs' resamples and seed (metrics.DefaultStats)
	Rules DecisionRules
	// Only, when set, replaces the measure list: records of `go test
	// ./bench` carry the harness's measures, not the campaign's.
	Only []string
	// Defs are measures package metrics does not define, as values (a
	// judge's, a user's): a name "Def.Name" or "Def.Name@k" in Only, the
	// gains or the primary is that Def, and its Lower decides which way is
	// better in the ranking, the decisions, the Pareto set and the gate.
	// They are code (a Def scores with a func), so they are not written
	// with the config (a sharded campaign's part.json): a caller passes
	// them again to whatever reads it back.
	Defs []*metrics.Def `json:"-"`
}

// measure resolves a measure name to its value: one of Defs, else a
// measure package metrics knows, else — when the records carry the values
// (Only) — a recorded name (metrics.ParseRecorded: higher is better).
func (c Config) measure(name string) (metrics.Measure, error) {
	base, cut, hasCut := strings.Cut(name, "@")
	for _, d := range c.Defs {
		if d.Name != base {
			continue
		}
		if !hasCut {
			return d.At(0), nil
		}
		k, err := strconv.Atoi(cut)
		if err != nil || k <= 0 {
			return metrics.Measure{}, fmt.Errorf("measure %q: cutoff %q is not a positive integer", name, cut)
		}
		return d.At(k), nil
	}
	m, err := metrics.ParseMeasure(name)
	if err != nil && slices.Contains(c.Only, name) {
		return metrics.ParseRecorded(name)
	}
	return m, err
}

// DefaultConfig returns K = 1, 3, 5, 10, 20, metrics.DefaultStats (the
// golden files' CIs) and DefaultDecisionRules.
func DefaultConfig() Config {
	return Config{Ks: []int{1, 3, 5, 10, 20}, Stats: metrics.DefaultStats(), Rules: DefaultDecisionRules()}
}

// Record returns what a campaign's run.json records of c: its decision
// rules (with the baseline) and its CIs' statistics.
func (c Config) Record() (*campaignfmt.Rules, *campaignfmt.Stats) {
	st := c.Stats
	return c.Rules.Record(), &campaignfmt.Stats{Resamples: st.Resamples, Seed: st.Seed, Alpha: st.Alpha}
}

// Recorded returns the config a campaign decided with, from its run.json's
// meta: its cutoffs, decision rules (baseline included) and statistics;
// ok is false for a run.json written before they were recorded, which
// gets DefaultConfig's rules and statistics (and no baseline).
func Recorded(meta campaignfmt.Meta) (cfg Config, ok bool) {
	cfg = DefaultConfig()
	if len(meta.Ks) > 0 {
		cfg.Ks = slices.Clone(meta.Ks)
	}
	if meta.Stats != nil {
		cfg.Stats = metrics.Stats{Resamples: meta.Stats.Resamples, Seed: meta.Stats.Seed, Alpha: meta.Stats.Alpha}
	}
	if meta.Rules == nil {
		return cfg, false
	}
	cfg.Rules = DecisionRules(*meta.Rules)
	cfg.Rules.Gains = slices.Clone(meta.Rules.Gains)
	return cfg, true
}

// Validate reports a config Summarize cannot use.
func (c Config) Validate() error {
	if len(c.Ks) == 0 {
		return fmt.Errorf("report: no K values")
	}
	for _, k := range c.Ks {
		if k <= 0 {
			return fmt.Errorf("report: K %d is not positive", k)
		}
	}
	if err := c.Rules.validate(c.measure); err != nil {
		return err
	}
	if len(c.Only) > 0 {
		// The decision rules read their gains and primary from the
		// records' values: one Only leaves out has nothing to read.
		have := map[string]bool{}
		for _, m := range c.Measures() {
			have[m.String()] = true
		}
		need := []string{c.Rules.Primary}
		for _, g := range c.Rules.Gains {
			need = append(need, g.Measure)
		}
		for _, n := range need {
			if m, err := c.measure(n); n != "" && (err != nil || !have[m.String()]) {
				return fmt.Errorf("report: the decision rules read %s, which the measure list (%s) does not have", n, strings.Join(c.Only, ", "))
			}
		}
	}
	return nil
}

// Measures returns the measures of a report over ks: hit@k, recall@k and
// ndcg@k per k, then mrr@10 — plus the measures the decision rules read, when ks
// lacks their cutoffs.
func (c Config) Measures() []metrics.Measure {
	var ms []metrics.Measure
	if len(c.Only) > 0 {
		for _, name := range c.Only {
			m, err := c.measure(name)
			if err != nil {
				m, err = metrics.ParseRecorded(name)
			}
			if err == nil {
				ms = append(ms, m)
			}
		}
		return ms
	}
	seen := map[string]bool{}
	add := func(m metrics.Measure) {
		if !seen[m.String()] {
			seen[m.String()] = true
			ms = append(ms, m)
		}
	}
	ks := append([]int(nil), c.Ks...)
	sort.Ints(ks)
	for _, k := range ks {
		add(metrics.Hit.At(k))
		add(metrics.Recall.At(k))
		add(metrics.NDCG.At(k))
	}
	add(metrics.MRR.At(10))
	for _, g := range c.Rules.Gains {
		m, err := c.measure(g.Measure)
		if err == nil {
			add(m)
		}
	}
	return ms
}

// tokensAt10 is the tokens@10 of hits (metrics.TokensAt over the tokens
// each hit carries, in rank order), what a token budget compares: from the
// hits, not the record's values, so that a rescored record (whose values
// are the report's measures) keeps it; NaN when no hit was counted.
func tokensAt10(hits []resultfmt.Hit) float64 {
	hs := slices.Clone(hits)
	sort.SliceStable(hs, func(a, b int) bool { return hs[a].Rank < hs[b].Rank })
	ids := make([]string, len(hs))
	for i := range hs {
		ids[i] = strconv.Itoa(i) // only the tokens count here
	}
	v, err := metrics.Score(ids, nil, []metrics.Measure{metrics.TokensAt.At(metrics.TokensDepth)}, metrics.Options{Tokens: hitTokens(hs)})
	if err != nil {
		return math.NaN()
	}
	return v[0]
}

// Summary is everything a report shows.
type Summary struct {
	Meta      campaignfmt.Meta `json:"meta"`
	Measures  []string         `json:"measures"`
	Cases     int              `json:"cases"`
	Systems   []SystemSummary  `json:"systems"` // ranked, best first
	PerRepo   []GroupRow       `json:"per_repo"`
	PerIntent []GroupRow       `json:"per_intent"`
	// PerNaming groups the tasks by whether the query names its target
	// (resultfmt.Record.Naming: exact, parts, none; "unknown" for a task
	// whose records do not say), when any record says: a system's lead on
	// tasks that name their target is not retrieval (docs/repoqa-languages.md).
	PerNaming   []GroupRow    `json:"per_naming,omitempty"`
	Baseline    string        `json:"baseline,omitempty"`
	Rules       DecisionRules `json:"gates"`
	Decisions   []Decision    `json:"decisions,omitempty"`
	Regressions []Regression  `json:"regressions,omitempty"`
	// Front is the one verdict across all systems: those no other beats
	// on quality and cost together (Front).
	Front    *Front                `json:"pareto,omitempty"`
	Failures []campaignfmt.Failure `json:"failures,omitempty"`
	// StaleGrades counts the people's grades set aside because their case
	// or hit changed since they were graded (listed in Failures).
	StaleGrades int `json:"stale_grades,omitempty"`
	// GoldKept lists the people's grades the case file's gold overrules
	// (goldKept): one rule, said where it applies.
	GoldKept []string `json:"gold_kept,omitempty"`
	// Effort is the grading effort per pool depth (Effort).
	Effort []EffortRow `json:"grading_effort,omitempty"`

	tasks []campaignfmt.Task  // evaluated tasks, in order
	cols  map[string]*columns // system → per-task values
	cfg   Config
	recs  []resultfmt.Record
	order []string       // systems in run order
	pos   map[string]int // task id → index in tasks
	// naming is each task's naming (by id) as its records say; nil when
	// none says.
	naming map[string]string
}

// SystemSummary is one row of the ranking.
type SystemSummary struct {
	Name    string `json:"name"`
	Dataset string `json:"dataset"`
	Status  string `json:"status"`
	Cases   int    `json:"cases"`
	Failed  int    `json:"failed"`
	// Micro averages every case once; MacroRepo every repository once
	// (stratified bootstrap CI); MacroIntent every intent once. A failed
	// system (no case ran without an error) has none of them: its rows show
	// no score, no CI and no latency, and it is never ranked among the
	// systems that ran.
	Micro       map[string]resultfmt.Stat  `json:"micro"`
	MacroRepo   map[string]resultfmt.Stat  `json:"macro_repo"`
	MacroIntent map[string]resultfmt.Fixed `json:"macro_intent"`
	// Judged is the share of the top-k hits that have a grade, per k
	// ("judged@10"); Unjudged counts the hits without one in the top
	// max(K).
	Judged       map[string]resultfmt.Fixed `json:"judged"`
	Unjudged     int                        `json:"unjudged"`
	LatencyP50MS resultfmt.Fixed            `json:"latency_p50_ms"`
	LatencyP95MS resultfmt.Fixed            `json:"latency_p95_ms"`
	IndexSeconds resultfmt.Fixed            `json:"index_seconds"`
	PeakRSSMB    resultfmt.Fixed            `json:"peak_rss_mb"`
	Dimension    int                        `json:"dimension,omitempty"`
	Decision     string                     `json:"decision,omitempty"`
	// IndexReused counts the repositories whose index an earlier run
	// built; IndexBuildSeconds is then the original build time (see
	// SystemCost).
	IndexReused       int             `json:"index_reused,omitempty"`
	IndexBuildSeconds resultfmt.Fixed `json:"index_build_seconds,omitempty"`
	// IndexBuildCPUClasses are the CPU classes those builds were timed on
	// (campaignfmt.SystemCost): cold index costs compare only on one.
	IndexBuildCPUClasses []string `json:"index_build_cpu_classes,omitempty"`
	// Warnings counts what the system noticed without failing: its
	// indexing warnings and those its records carry.
	Warnings int `json:"warnings,omitempty"`
	warnings []string
	// NotMeasured names the measures the system's records do not carry on
	// every case that ran (a composite answer has no nDCG@10, a run
	// without a tokenizer no token measure), with how many carried them:
	// such a measure has no value for it here, rather than zeros that
	// would rank it last, and no decision rests on it.
	NotMeasured []string `json:"not_measured,omitempty"`
}

// GroupRow is one system's means over one repository or intent.
type GroupRow struct {
	Model string `json:"model"`
	Group string `json:"group"`
	N     int    `json:"n"`
	// Failed counts the group's cases the system failed (each scores 0 in
	// Values).
	Failed int                        `json:"failed,omitempty"`
	Values map[string]resultfmt.Fixed `json:"values"`
	// CI is each measure's 95% bootstrap interval over the group's cases
	// (the report's statistics): at n = 3 it is wide, and the tables
	// show it.
	CI map[string][2]resultfmt.Fixed `json:"ci,omitempty"`
}

// columns holds one system's per-task values, aligned with Summary.tasks.
type columns struct {
	vals    map[string][]float64
	present []bool
	failed  []bool    // the record carries an error (its values are 0)
	lat     []float64 // query latency, ms
	tok     []float64 // tokens@10; NaN when no tokenizer counted the case
	first   []int     // first relevant rank, 0 = none
	top1    []bool
}

// Input is what Summarize reads.
type Input struct {
	// Campaign carries metadata, tasks with gold, system costs and failures;
	// nil for records of `go test ./bench` (tasks come from the records).
	Campaign *campaignfmt.Campaign
	Records  []resultfmt.Record
	// Qrels, when set, are the merged judgments the records were rescored
	// with: tasks without a relevant judgment are left out of every
	// average and reported as missing labels.
	Qrels metrics.Qrels
}

// Summarize computes the summary of in. Records of more than one dataset
// are refused: their numbers do not average. The stages, in order: the
// dataset and metadata, the tasks that count, the systems in order, each
// system's per-task columns and aggregates, the ranking, the decisions
// and regressions.
func Summarize(in Input, cfg Config) (*Summary, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	ds, err := datasetOf(in)
	if err != nil {
		return nil, err
	}
	s := &Summary{cfg: cfg, Rules: cfg.Rules, cols: map[string]*columns{}, recs: in.Records}
	for _, m := range cfg.Measures() {
		s.Measures = append(s.Measures, m.String())
	}
	var costs []campaignfmt.SystemCost
	if in.Campaign != nil {
		s.Meta = in.Campaign.Meta
		s.Failures = append(s.Failures, in.Campaign.Failures...)
		costs = in.Campaign.Systems
	}
	s.Meta.Dataset, s.Meta.Ks = ds, cfg.Ks
	if s.Meta.Split == "" && len(in.Records) > 0 {
		s.Meta.Split = in.Records[0].Split
	}
	s.selectTasks(in)
	var byModel map[string][]*resultfmt.Record
	s.order, byModel = systemOrder(costs, in.Records)
	costOf := map[string]campaignfmt.SystemCost{}
	for _, sc := range costs {
		costOf[sc.Name] = sc
	}
	// The groups are the tasks', the same for every system.
	repos, intents := s.keys(func(t campaignfmt.Task) string { return t.Repo }), s.keys(func(t campaignfmt.Task) string { return t.Intent })
	var namings []string
	if s.naming != nil {
		namings = s.keys(func(t campaignfmt.Task) string {
			if n := s.naming[t.ID]; n != "" {
				return n
			}
			return "unknown"
		})
	}
	for _, name := range s.order {
		ss := SystemSummary{Name: name, Dataset: ds, Status: campaignfmt.StatusOK, Micro: map[string]resultfmt.Stat{}, MacroRepo: map[string]resultfmt.Stat{},
			MacroIntent: map[string]resultfmt.Fixed{}, Judged: map[string]resultfmt.Fixed{}}
		if sc, ok := costOf[name]; ok {
			ss.Status, ss.IndexSeconds, ss.PeakRSSMB, ss.Dimension = sc.Status, resultfmt.Fixed(sc.IndexSeconds), resultfmt.Fixed(sc.PeakRSSMB), sc.Dimension
			ss.IndexReused, ss.IndexBuildSeconds = sc.IndexReused, resultfmt.Fixed(sc.IndexBuildSeconds)
			ss.IndexBuildCPUClasses = sc.IndexBuildCPUClasses
			for _, w := range sc.Warnings {
				ss.warnings = append(ss.warnings, "index: "+w)
			}
		}
		c := s.collect(&ss, byModel[name])
		s.cols[name] = c
		s.Systems = append(s.Systems, ss)
		if ss.Status == campaignfmt.StatusFailed {
			continue // nothing to average: no score, no CI, no group rows
		}
		s.aggregate(&s.Systems[len(s.Systems)-1], c, repos, intents)
		s.PerRepo = append(s.PerRepo, s.groups(name, c, repos)...)
		s.PerIntent = append(s.PerIntent, s.groups(name, c, intents)...)
		if namings != nil {
			s.PerNaming = append(s.PerNaming, s.groups(name, c, namings)...)
		}
	}
	s.rank()
	s.decide()
	s.pareto()
	if in.Campaign != nil {
		s.Effort = Effort(&campaignfmt.Campaign{Tasks: s.tasks}, s.recs, s.Meta.PoolDepth)
	}
	s.regressions()
	sortFailures(s.Failures)
	return s, nil
}

// sortFailures orders failures by kind, then text.
func sortFailures(fs []campaignfmt.Failure) {
	sort.SliceStable(fs, func(i, j int) bool {
		a, b := fs[i], fs[j]
		if a.Kind != b.Kind {
			return a.Kind < b.Kind
		}
		return a.String() < b.String()
	})
}

// datasetOf is the one dataset of in's records (or of its campaign, when
// every system failed).
func datasetOf(in Input) (string, error) {
	var ds string
	switch {
	case len(in.Records) > 0:
		ds = in.Records[0].Dataset
	case in.Campaign != nil:
		ds = in.Campaign.Meta.Dataset // every system failed: report the failures
	default:
		return "", fmt.Errorf("report: no records")
	}
	for _, r := range in.Records {
		if r.Dataset != ds {
			return "", fmt.Errorf("report: records of datasets %q and %q in one report; report each dataset on its own", ds, r.Dataset)
		}
	}
	return ds, nil
}

// selectTasks sets the tasks that count: the campaign's, or the records'
// in id order, without those the qrels give no relevant judgment (each a
// missing-labels failure).
func (s *Summary) selectTasks(in Input) {
	for _, r := range in.Records {
		if r.Naming != "" {
			if s.naming == nil {
				s.naming = map[string]string{}
			}
			s.naming[r.Task] = r.Naming
		}
	}
	var tasks []campaignfmt.Task
	if in.Campaign != nil {
		tasks = in.Campaign.Tasks
	} else {
		seen := map[string]bool{}
		for _, r := range in.Records {
			if !seen[r.Task] {
				seen[r.Task] = true
				tasks = append(tasks, campaignfmt.Task{ID: r.Task, Repo: r.Repo, Intent: r.Intent, Difficulty: r.Difficulty, Query: r.Query})
			}
		}
		sort.Slice(tasks, func(i, j int) bool { return tasks[i].ID < tasks[j].ID })
	}
	for _, t := range tasks {
		if in.Qrels != nil && relevant(in.Qrels, t.ID) == 0 {
			s.Failures = append(s.Failures, campaignfmt.Failure{Kind: campaignfmt.FailMissingLabels, Repo: t.Repo, Task: t.ID,
				Message: "no relevant judgment (gold or graded); left out of every average"})
			continue
		}
		s.tasks = append(s.tasks, t)
	}
	s.Cases = len(s.tasks)
	s.pos = make(map[string]int, len(s.tasks))
	for i, t := range s.tasks {
		s.pos[t.ID] = i
	}
}

// systemOrder is the campaign's systems in its order, then any others of
// recs by name, with each system's records.
func systemOrder(costs []campaignfmt.SystemCost, recs []resultfmt.Record) ([]string, map[string][]*resultfmt.Record) {
	var names []string
	known := map[string]bool{}
	for _, sc := range costs {
		names = append(names, sc.Name)
		known[sc.Name] = true
	}
	var extra []string
	byModel := map[string][]*resultfmt.Record{}
	for i := range recs {
		r := &recs[i]
		if !known[r.Model()] {
			known[r.Model()] = true
			extra = append(extra, r.Model())
		}
		byModel[r.Model()] = append(byModel[r.Model()], r)
	}
	sort.Strings(extra)
	return append(names, extra...), byModel
}

// collect lays one system's records out as columns aligned with s.tasks
// and fills in ss the counts (cases, failed, status), judged@k, unjudged
// hits and latency percentiles.
func (s *Summary) collect(ss *SystemSummary, recs []*resultfmt.Record) *columns {
	ks := s.cfg.Ks
	maxK := slices.Max(ks)
	c := &columns{vals: map[string][]float64{}, present: make([]bool, len(s.tasks)), failed: make([]bool, len(s.tasks)),
		first: make([]int, len(s.tasks)), top1: make([]bool, len(s.tasks)), lat: make([]float64, len(s.tasks)), tok: make([]float64, len(s.tasks))}
	for i := range c.tok {
		c.tok[i] = math.NaN()
	}
	for _, m := range s.Measures {
		c.vals[m] = make([]float64, len(s.tasks))
	}
	judged, shown := make([]int, len(ks)), make([]int, len(ks))
	var lat []float64
	carried := map[string]int{} // cases that ran with each measure's value
	for _, r := range recs {
		i, ok := s.pos[r.Task]
		if !ok {
			continue
		}
		c.present[i] = true
		for _, w := range r.Warnings {
			ss.warnings = append(ss.warnings, r.Task+": "+w)
		}
		if r.Error != "" {
			c.failed[i] = true
			ss.Failed++
			continue
		}
		lat = append(lat, r.LatencyMS)
		c.lat[i] = r.LatencyMS
		c.tok[i] = tokensAt10(r.Hits)
		for _, m := range s.Measures {
			if v, ok := r.Values[m]; ok && !math.IsNaN(v) {
				c.vals[m][i] = v
				carried[m]++
			}
		}
		c.first[i] = r.FirstRelevant
		c.top1[i] = r.FirstRelevant == 1
		for ki, k := range ks {
			for _, h := range r.Hits {
				if h.Rank <= k {
					shown[ki]++
					if h.Judged {
						judged[ki]++
					}
				}
			}
		}
		for _, h := range r.Hits {
			if h.Rank <= maxK && !h.Judged {
				ss.Unjudged++
			}
		}
	}
	for _, p := range c.present {
		if p {
			ss.Cases++
		}
	}
	ss.Warnings = len(ss.warnings)
	if missing := len(s.tasks) - ss.Cases; missing > 0 {
		ss.Failed += missing
	}
	// A system whose every case failed has failed, whatever its cost
	// record says: its zeros are not scores, its latency not a speed.
	if len(lat) == 0 {
		ss.Status = campaignfmt.StatusFailed
	} else if ss.Failed > 0 && ss.Status == campaignfmt.StatusOK {
		ss.Status = campaignfmt.StatusPartial
	}
	if ss.Status == campaignfmt.StatusFailed {
		return c
	}
	for _, m := range s.Measures {
		if n := carried[m]; n < len(lat) {
			c.vals[m] = nil
			ss.NotMeasured = append(ss.NotMeasured, fmt.Sprintf("%s (on %d of %d cases that ran)", m, n, len(lat)))
		}
	}
	for ki, k := range ks {
		frac := 0.0
		if shown[ki] > 0 {
			frac = float64(judged[ki]) / float64(shown[ki])
		}
		ss.Judged["judged@"+strconv.Itoa(k)] = resultfmt.Fixed(frac)
	}
	sort.Float64s(lat)
	ss.LatencyP50MS, ss.LatencyP95MS = resultfmt.Fixed(percentile(lat, 50)), resultfmt.Fixed(percentile(lat, 95))
	return c
}

// aggregate fills in ss the micro means with bootstrap CIs, the macro
// means over repos (stratified bootstrap CI) and over intents.
func (s *Summary) aggregate(ss *SystemSummary, c *columns, repos, intents []string) {
	st := s.cfg.Stats
	for _, m := range s.Measures {
		v := c.vals[m]
		if v == nil {
			continue // not measured
		}
		ci := st.CI(v)
		ss.Micro[m] = resultfmt.NewStat(ci.Mean, ci.Low, ci.High)
		lo, hi := stratifiedBootstrap(v, repos, st)
		ss.MacroRepo[m] = resultfmt.NewStat(metrics.Macro(v, repos), lo, hi)
		ss.MacroIntent[m] = resultfmt.Fixed(metrics.Macro(v, intents))
	}
}

// rank orders the systems: failed ones last, those without the primary
// measure before them, then by the primary measure's micro mean, best first (lowest first for a Lower measure), then by name.
func (s *Summary) rank() {
	primary := s.cfg.Rules.Primary
	lower := s.lower(primary)
	sort.SliceStable(s.Systems, func(i, j int) bool {
		a, b := s.Systems[i], s.Systems[j]
		if (a.Status == campaignfmt.StatusFailed) != (b.Status == campaignfmt.StatusFailed) {
			return b.Status == campaignfmt.StatusFailed
		}
		_, ha := a.Micro[primary]
		_, hb := b.Micro[primary]
		if ha != hb {
			return ha // a system without the primary measure after those with it
		}
		if a.Micro[primary].Mean != b.Micro[primary].Mean {
			return (a.Micro[primary].Mean > b.Micro[primary].Mean) != lower
		}
		return a.Name < b.Name
	})
}

func (s *Summary) keys(f func(campaignfmt.Task) string) []string {
	ks := make([]string, len(s.tasks))
	for i, t := range s.tasks {
		ks[i] = f(t)
	}
	return ks
}

func (s *Summary) groups(name string, c *columns, keys []string) []GroupRow {
	var rows []GroupRow
	idx := map[string]int{}
	for _, m := range s.Measures {
		if c.vals[m] == nil {
			continue // not measured
		}
		for _, g := range metrics.PerGroup(c.vals[m], keys) {
			i, ok := idx[g.Key]
			if !ok {
				i = len(rows)
				idx[g.Key] = i
				rows = append(rows, GroupRow{Model: name, Group: g.Key, N: g.N, Values: map[string]resultfmt.Fixed{}})
			}
			rows[i].Values[m] = resultfmt.Fixed(g.Mean)
		}
	}
	for _, m := range s.Measures {
		if c.vals[m] == nil {
			continue
		}
		byKey := map[string][]float64{}
		for ti, k := range keys {
			byKey[k] = append(byKey[k], c.vals[m][ti])
		}
		for k, i := range idx {
			ci := s.cfg.Stats.CI(byKey[k])
			if rows[i].CI == nil {
				rows[i].CI = map[string][2]resultfmt.Fixed{}
			}
			rows[i].CI[m] = [2]resultfmt.Fixed{resultfmt.Fixed(ci.Low), resultfmt.Fixed(ci.High)}
		}
	}
	for ti, k := range keys {
		if c.failed[ti] || !c.present[ti] {
			if i, ok := idx[k]; ok {
				rows[i].Failed++
			}
		}
	}
	return rows
}

// percentile is the nearest-rank percentile of sorted xs (0 when empty).
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[min(max(i, 0), len(sorted)-1)]
}

// macroStream is the PCG stream of the macro-over-repositories CIs, as the
// reports have always drawn them ("macro").
const macroStream = 0x6d6163726f

// stratifiedBootstrap is the 95% percentile interval of the macro mean
// over keys (metrics.Stats.Stratified over the groups of keys, in key
// order).
func stratifiedBootstrap(values []float64, keys []string, st metrics.Stats) (lo, hi float64) {
	groups := map[string][]float64{}
	for i, k := range keys {
		groups[k] = append(groups[k], values[i])
	}
	var cols [][]float64
	for _, k := range slices.Sorted(maps.Keys(groups)) {
		cols = append(cols, groups[k])
	}
	return st.Stratified(cols, macroStream)
}
