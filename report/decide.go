package report

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Decision outcomes.
const (
	Default            = "default"             // better and affordable: make it the default
	QualityProfile     = "quality_profile"     // better, but over a cost budget: offer it as the quality profile
	InteractiveProfile = "interactive_profile" // no worse within a margin (non-inferior) and significantly faster
	Rejected           = "rejected"            // failed, significantly worse, or no gain at no saving
	NeedsMoreData      = "needs_more_data"     // too few cases, gain or non-inferiority not shown, or inconsistent
	BaselineOutcome    = "baseline"            // the system the others are judged against
)

// DecisionRules are the decision rules (the Codira seed's defaults, every number
// configurable). A candidate is compared with Baseline on the cases both
// ran, measure by measure, with a paired bootstrap test; each measure's
// p-values over the candidates are corrected for the number of candidates
// with Holm's step-down procedure (metrics.Holm), and the corrected value
// decides. A failed system is rejected; a partially failed one is never a
// default or a profile (needs_more_data, rule partial_failure).
//
// DecisionRules is campaignfmt.Rules, the value a campaign records in its
// run.json, with its methods; its fields:
//
//   - Baseline is the system ("system/config") the others are judged
//     against; "" means the first system of the run.
//   - Gains: a candidate improves when a measure gains at least its
//     threshold (absolute, 0.05 = 5 points) and the paired test finds it
//     significant. A measure whose Def is Lower (lower is better) gains
//     when it drops.
//   - Primary ranks systems and decides "weak on a repo or intent".
//   - Alpha is the significance level of the paired tests.
//   - MaxLatencyRatio, MaxIndexRatio: cost budgets relative to the
//     baseline (per-query paired latency ratio; cold index build time);
//     MaxPeakRSSMB is the absolute memory budget (0 = none).
//   - InteractiveLatencyRatio: a candidate without a significant gain or
//     loss whose latency is significantly below this fraction of the
//     baseline's is cheaper (non-inferiority, interactive profile).
//   - NonInferiorityMargin: how much (absolute) a gate measure may lose and
//     still be "no worse" (0 = DefaultNonInferiorityMargin).
//   - MaxTokensRatio: the token budget relative to the baseline — the
//     per-case paired ratio of tokens@10, the context an agent is handed
//     (docs/judging.md, Tokens); 0 = none. Like latency, over budget only
//     when its whole interval is above it; records counted by no tokenizer
//     leave it unchecked, and the decision says so.
//   - MinCases paired cases are needed to decide anything; a repository or
//     intent with at least MinGroupCases cases that loses at least the gain
//     threshold on a gaining measure makes the gain inconsistent.
//   - Resamples, Seed, Alpha: the paired tests' statistics (Stats).
//   - Pareto: what tells two systems apart on a cost in the Pareto set
//     (each zero field the default: ParetoCostTolerance, …).
type DecisionRules campaignfmt.Rules

// Gain is one quality rule: Measure must improve by at least Threshold.
type Gain = campaignfmt.Gain

// DefaultNonInferiorityMargin is the loss within which a candidate counts
// as no worse: the gain threshold of the default rules, so a difference too
// small to be a gain is also too small to be a loss.
const DefaultNonInferiorityMargin = 0.05

// margin is g's non-inferiority margin.
func (g DecisionRules) margin() float64 {
	if g.NonInferiorityMargin > 0 {
		return g.NonInferiorityMargin
	}
	return DefaultNonInferiorityMargin
}

// Record returns g as run.json records it.
func (g DecisionRules) Record() *campaignfmt.Rules {
	r := campaignfmt.Rules(g)
	r.Gains = append([]Gain(nil), g.Gains...)
	return &r
}

// DefaultDecisionRules returns the seed's rules: Recall@5 +5 points, or MRR@10 or
// nDCG@10 +0.05, significant at α = 0.05, with query latency ≤ 1.25× the
// baseline, index time ≤ 2× and peak RSS ≤ 4 GiB.
func DefaultDecisionRules() DecisionRules {
	ts := metrics.DefaultStats().ForTests()
	return DecisionRules{
		Gains:           []Gain{{Measure: "recall@5", Threshold: 0.05}, {Measure: "mrr@10", Threshold: 0.05}, {Measure: "ndcg@10", Threshold: 0.05}},
		Primary:         "ndcg@10",
		Alpha:           0.05,
		MaxLatencyRatio: 1.25, MaxIndexRatio: 2, MaxPeakRSSMB: 4096,
		InteractiveLatencyRatio: 0.8,
		MinCases:                20, MinGroupCases: 5,
		// The paired tests resample as metrics.DefaultStats().ForTests()
		// says (twice the CIs' resamples), so decisions stay as the
		// campaigns recorded them.
		Resamples: ts.Resamples, Seed: ts.Seed,
		NonInferiorityMargin: DefaultNonInferiorityMargin,
		// Recorded with the rules, so a later default does not move a
		// campaign's Pareto set.
		Pareto: campaignfmt.ParetoRules{CostTolerance: ParetoCostTolerance, LatencyFloorMS: ParetoLatencyFloorMS, IndexFloorSeconds: ParetoIndexFloorSeconds,
			MemoryTolerance: ParetoMemoryTolerance, MemoryFloorMB: ParetoMemoryFloorMB},
	}
}

// Stats returns the statistics of the rules' paired tests: Resamples, Seed
// and Alpha as one value.
func (g DecisionRules) Stats() metrics.Stats {
	return metrics.Stats{Resamples: g.Resamples, Seed: g.Seed, Alpha: g.Alpha}
}

// WithStats returns g with st's resamples, seed and alpha.
func (g DecisionRules) WithStats(st metrics.Stats) DecisionRules {
	g.Resamples, g.Seed, g.Alpha = st.Resamples, st.Seed, st.Alpha
	return g
}

// Validate reports rules Decide cannot use.
func (g DecisionRules) Validate() error { return g.validate(Config{}.measure) }

// validate is Validate with the measures parse knows.
func (g DecisionRules) validate(parse func(string) (metrics.Measure, error)) error {
	for _, r := range g.Gains {
		if _, err := parse(r.Measure); err != nil {
			return fmt.Errorf("decision rules: %w", err)
		}
		if r.Threshold <= 0 {
			return fmt.Errorf("decision rules: %s threshold %v is not positive", r.Measure, r.Threshold)
		}
	}
	if _, err := parse(g.Primary); err != nil && g.Primary != "" {
		return fmt.Errorf("decision rules: primary: %w", err)
	}
	if err := g.Stats().Validate(); err != nil {
		return fmt.Errorf("decision rules: %w", err)
	}
	if g.MaxLatencyRatio <= 0 || g.MaxIndexRatio <= 0 || g.MaxPeakRSSMB < 0 || g.InteractiveLatencyRatio <= 0 {
		return fmt.Errorf("decision rules: budgets must be positive")
	}
	if g.MaxTokensRatio < 0 || math.IsNaN(g.MaxTokensRatio) || math.IsInf(g.MaxTokensRatio, 0) {
		return fmt.Errorf("decision rules: token budget %v is not a positive ratio (0 = none)", g.MaxTokensRatio)
	}
	p := g.Pareto
	for _, t := range []struct {
		name  string
		v     float64
		ratio bool
	}{{"cost_tolerance", p.CostTolerance, true}, {"memory_tolerance", p.MemoryTolerance, true},
		{"latency_floor_ms", p.LatencyFloorMS, false}, {"index_floor_seconds", p.IndexFloorSeconds, false}, {"memory_floor_mb", p.MemoryFloorMB, false}} {
		if t.v < 0 || math.IsNaN(t.v) || math.IsInf(t.v, 0) || t.ratio && t.v != 0 && t.v < 1 {
			return fmt.Errorf("decision rules: pareto %s %v is not %s (0 = the default)", t.name, t.v, map[bool]string{true: "a ratio of at least 1", false: "a finite amount ≥ 0"}[t.ratio])
		}
	}
	return nil
}

// Decision is the verdict on one system.
type Decision struct {
	Model   string   `json:"model"`
	Outcome string   `json:"outcome"`
	Rule    string   `json:"rule"`   // which rule decided
	Detail  string   `json:"detail"` // the numbers behind it
	Tests   []Paired `json:"tests,omitempty"`
	// Latency is the paired comparison of its per-case query latencies
	// with the baseline's.
	Latency *LatencyTest `json:"latency,omitempty"`
	// Index is its cold index cost against the baseline's (IndexCost).
	Index *IndexCost `json:"index,omitempty"`
	// Tokens is the paired comparison of its per-case tokens@10 with the
	// baseline's, under a token budget (MaxTokensRatio); nil without one,
	// or when no case of both was counted by a tokenizer.
	Tokens *TokensTest `json:"tokens,omitempty"`
	// MoreCases, for needs_more_data, is how many more paired cases would
	// settle the undecided claim at the observed effect and spread (80%
	// power at α, normal approximation, before Holm's correction); 0 when
	// more cases would not settle it or it is not that kind of verdict.
	MoreCases int `json:"more_cases,omitempty"`
}

// Paired is the paired comparison of one measure with the baseline.
type Paired struct {
	Measure  string          `json:"measure"`
	Baseline resultfmt.Fixed `json:"baseline"`
	Model    resultfmt.Fixed `json:"model"`
	Diff     resultfmt.Fixed `json:"diff"`
	Low      resultfmt.Fixed `json:"ci_low"`
	High     resultfmt.Fixed `json:"ci_high"`
	// P is the raw paired bootstrap p-value; PHolm is P corrected with
	// Holm's procedure over every candidate tested on this measure against
	// the same baseline. PHolm decides.
	P     resultfmt.Fixed `json:"p"`
	PHolm resultfmt.Fixed `json:"p_holm"`
	N     int             `json:"n"`
	// SD is the standard deviation of the per-case differences (what
	// MoreCases is estimated from).
	SD resultfmt.Fixed `json:"sd_diff"`
	// Lower: lower values of the measure are better (its metrics.Def).
	Lower bool `json:"lower,omitempty"`
	// NotMeasured: the baseline's or the candidate's records lack the
	// measure (SystemSummary.NotMeasured); nothing was tested, P is 1.
	NotMeasured bool `json:"not_measured,omitempty"`
}

// RatioTest is a paired comparison of per-case ratios candidate/baseline
// on the cases both ran: Ratio is the geometric mean of the ratios,
// Low..High its 95% paired bootstrap interval (of the mean log ratio) and P
// the test's p-value (rules' statistics).
type RatioTest struct {
	Ratio resultfmt.Fixed `json:"ratio"`
	Low   resultfmt.Fixed `json:"ci_low"`
	High  resultfmt.Fixed `json:"ci_high"`
	P     resultfmt.Fixed `json:"p"`
	N     int             `json:"n"`
}

// ratioTest tests the per-case log ratios logs (candidate/baseline).
func ratioTest(st metrics.Stats, logs []float64) RatioTest {
	p := st.Paired(make([]float64, len(logs)), logs)
	return RatioTest{Ratio: resultfmt.Fixed(math.Exp(p.MeanDiff)), Low: resultfmt.Fixed(math.Exp(p.Low)), High: resultfmt.Fixed(math.Exp(p.High)),
		P: resultfmt.Fixed(p.P), N: p.N}
}

// above reports whether the ratio is significantly above r (its whole
// interval is); below whether it is significantly below r.
func (t RatioTest) above(r float64) bool { return t.N > 0 && float64(t.Low) > r }
func (t RatioTest) below(r float64) bool { return t.N > 0 && float64(t.High) < r }

// LatencyTest compares per-case query latencies with the baseline's on
// the cases both ran (RatioTest). A load that slows every query by the
// same factor leaves every ratio, and so the verdict, unchanged.
type LatencyTest struct{ RatioTest }

// Above reports whether the latency ratio is significantly above r (its
// whole interval is); Below whether it is significantly below r. Both are
// false for nil.
func (l *LatencyTest) Above(r float64) bool { return l != nil && l.above(r) }
func (l *LatencyTest) Below(r float64) bool { return l != nil && l.below(r) }

func (l *LatencyTest) String() string {
	if l == nil || l.N == 0 {
		return "latency not compared (no paired latencies)"
	}
	return fmt.Sprintf("latency %.2fx (95%% CI %.2fx..%.2fx, %d paired cases)", float64(l.Ratio), float64(l.Low), float64(l.High), l.N)
}

// TokensTest compares the per-case context cost, tokens@10 (the tokens of
// the top 10 hits' texts, docs/judging.md), with the baseline's on the
// cases both ran and a tokenizer counted (RatioTest; each count at least
// one token).
type TokensTest struct {
	RatioTest
	// Mean and BaselineMean are the mean tokens@10 of either on those
	// cases.
	Mean         resultfmt.Fixed `json:"mean_tokens"`
	BaselineMean resultfmt.Fixed `json:"baseline_mean_tokens"`
}

// tokensTest tests the paired tokens@10 of a candidate (cand) against its
// baseline's (base); nil when there are none.
func tokensTest(st metrics.Stats, base, cand []float64) *TokensTest {
	if len(base) == 0 {
		return nil
	}
	logs := make([]float64, len(base))
	for i := range base {
		logs[i] = math.Log(max(cand[i], 1) / max(base[i], 1))
	}
	return &TokensTest{RatioTest: ratioTest(st, logs), Mean: resultfmt.Fixed(metrics.Mean(cand)), BaselineMean: resultfmt.Fixed(metrics.Mean(base))}
}

// Above reports whether the tokens ratio is significantly above r (its
// whole interval is); false for nil.
func (t *TokensTest) Above(r float64) bool { return t != nil && t.above(r) }

func (t *TokensTest) String() string {
	if t == nil || t.N == 0 {
		return "tokens@10 not compared (no case of both counted by a tokenizer)"
	}
	return fmt.Sprintf("tokens@10 %.2fx (95%% CI %.2fx..%.2fx, %d paired cases; %.0f against %.0f tokens)",
		float64(t.Ratio), float64(t.Low), float64(t.High), t.N, float64(t.Mean), float64(t.BaselineMean))
}

// IndexCost is a system's cold index cost against the baseline's: what
// building every index from nothing took (a reused index counts with the
// build time recorded when it was built). Checked is false when a reused
// index of either has no recorded build time: then no index budget is
// checked, and the decision says so.
type IndexCost struct {
	Seconds         resultfmt.Fixed `json:"cold_seconds"`
	BaselineSeconds resultfmt.Fixed `json:"baseline_cold_seconds"`
	Ratio           resultfmt.Fixed `json:"ratio"`
	Checked         bool            `json:"checked"`
	Reused          bool            `json:"reused,omitempty"` // either side reused an index
	// CPUClasses, when the builds were timed on more than one CPU class,
	// names them (system's vs baseline's): the cost is then not checked.
	CPUClasses string `json:"cpu_classes,omitempty"`
}

func (ic *IndexCost) String() string {
	if ic.CPUClasses != "" {
		return "index cost not checked (builds timed on different CPU classes: " + ic.CPUClasses + ")"
	}
	if !ic.Checked {
		return "index cost not checked (a reused index without a recorded build time)"
	}
	s := fmt.Sprintf("index %.2fx (cold build)", float64(ic.Ratio))
	if ic.Reused {
		s = fmt.Sprintf("index %.2fx (cold build, recorded with a reused index)", float64(ic.Ratio))
	}
	return s
}

// coldIndex is ss's cold index cost in seconds, and whether it is known:
// a reused index counts with its recorded build time (IndexBuildSeconds).
func coldIndex(ss *SystemSummary) (float64, bool) {
	if ss.IndexReused == 0 {
		return float64(ss.IndexSeconds), true
	}
	if ss.IndexBuildSeconds > 0 {
		return float64(ss.IndexBuildSeconds), true
	}
	return 0, false
}

// sameBuildClass reports whether a's and b's builds were all timed on one
// CPU class, the same; an older record without classes is taken as this
// machine's. Otherwise it names the classes, a's vs b's.
func sameBuildClass(a, b *SystemSummary) (bool, string) {
	ac, bc := a.IndexBuildCPUClasses, b.IndexBuildCPUClasses
	if len(ac) == 0 || len(bc) == 0 || len(ac) == 1 && slices.Equal(ac, bc) {
		return true, ""
	}
	return false, strings.Join(ac, "+") + " vs " + strings.Join(bc, "+")
}

func indexCost(b, c *SystemSummary) *IndexCost {
	cs, cok := coldIndex(c)
	bs, bok := coldIndex(b)
	same, classes := sameBuildClass(c, b)
	ic := &IndexCost{Seconds: resultfmt.Fixed(cs), BaselineSeconds: resultfmt.Fixed(bs), Checked: cok && bok && bs > 0 && same,
		Reused: b.IndexReused > 0 || c.IndexReused > 0, CPUClasses: classes}
	if ic.Checked {
		ic.Ratio = resultfmt.Fixed(cs / bs)
	}
	return ic
}

func (s *Summary) system(name string) *SystemSummary {
	for i := range s.Systems {
		if s.Systems[i].Name == name {
			return &s.Systems[i]
		}
	}
	return nil
}

// decide fills s.Decisions: every system against the baseline.
func (s *Summary) decide() {
	g := s.cfg.Rules
	if len(g.Gains) == 0 {
		return // nothing to decide on
	}
	base := g.Baseline
	if base == "" {
		for _, sr := range s.order {
			base = sr
			break
		}
	}
	b := s.system(base)
	if b == nil || b.Status == campaignfmt.StatusFailed {
		for _, ss := range s.order {
			s.Decisions = append(s.Decisions, Decision{Model: ss, Outcome: NeedsMoreData, Rule: "no_baseline",
				Detail: fmt.Sprintf("baseline %q has no results to compare with", base)})
		}
		s.setDecisions()
		return
	}
	s.Baseline = base
	tests := s.pairedTests(b)
	for _, name := range s.order {
		if name == base {
			d := Decision{Model: name, Outcome: BaselineOutcome, Rule: "baseline", Detail: "the system the others are judged against"}
			if b.Failed > 0 {
				d.Detail += fmt.Sprintf("; it failed %d of %d cases, which score 0 in every comparison", b.Failed, s.Cases)
			}
			s.Decisions = append(s.Decisions, d)
			continue
		}
		s.Decisions = append(s.Decisions, s.decideOne(b, s.system(name), tests[name]))
	}
	s.setDecisions()
}

// pairedTests compares every candidate that ran (not the baseline, not a
// failed system) with b on the cases both have, one paired bootstrap test
// per gain measure, and corrects each measure's p-values over the
// candidates with Holm's procedure.
func (s *Summary) pairedTests(b *SystemSummary) map[string][]Paired {
	g := s.cfg.Rules
	out := map[string][]Paired{}
	var cands []string
	for _, name := range s.order {
		if c := s.system(name); name != b.Name && c.Status != campaignfmt.StatusFailed {
			cands = append(cands, name)
		}
	}
	bc := s.cols[b.Name]
	for _, name := range cands {
		cc := s.cols[name]
		var idx []int
		for i := range s.tasks {
			if bc.present[i] && cc.present[i] {
				idx = append(idx, i)
			}
		}
		pick := func(v []float64) []float64 {
			out := make([]float64, len(idx))
			for k, i := range idx {
				out[k] = v[i]
			}
			return out
		}
		for _, r := range g.Gains {
			if bc.vals[r.Measure] == nil || cc.vals[r.Measure] == nil {
				out[name] = append(out[name], Paired{Measure: r.Measure, P: 1, Lower: s.lower(r.Measure), NotMeasured: true})
				continue
			}
			bv, cv := pick(bc.vals[r.Measure]), pick(cc.vals[r.Measure])
			p := g.Stats().Paired(bv, cv)
			out[name] = append(out[name], Paired{Measure: r.Measure, Baseline: resultfmt.Fixed(metrics.Mean(bv)), Model: resultfmt.Fixed(metrics.Mean(cv)),
				Diff: resultfmt.Fixed(p.MeanDiff), Low: resultfmt.Fixed(p.Low), High: resultfmt.Fixed(p.High), P: resultfmt.Fixed(p.P), N: p.N,
				SD: resultfmt.Fixed(sdDiff(bv, cv)), Lower: s.lower(r.Measure)})
		}
	}
	for mi := range g.Gains {
		ps := make([]float64, len(cands))
		for ci, name := range cands {
			ps[ci] = float64(out[name][mi].P)
		}
		for ci, adj := range metrics.Holm(ps) {
			out[cands[ci]][mi].PHolm = resultfmt.Fixed(adj)
		}
	}
	return out
}

// latencyTest compares c's per-case latencies with b's on the cases both
// ran without an error: a paired bootstrap of the log ratios.
func (s *Summary) latencyTest(b, c *SystemSummary) *LatencyTest {
	bc, cc := s.cols[b.Name], s.cols[c.Name]
	var logs []float64
	for i := range s.tasks {
		if bc.present[i] && cc.present[i] && !bc.failed[i] && !cc.failed[i] {
			logs = append(logs, logRatio(cc.lat[i], bc.lat[i]))
		}
	}
	if len(logs) == 0 {
		return nil
	}
	return &LatencyTest{ratioTest(s.cfg.Rules.Stats(), logs)}
}

// tokensTest compares c's per-case tokens@10 with b's on the cases both
// ran without an error and a tokenizer counted: a paired bootstrap of the
// log ratios, as latencyTest.
func (s *Summary) tokensTest(b, c *SystemSummary) *TokensTest {
	bc, cc := s.cols[b.Name], s.cols[c.Name]
	var tb, tc []float64
	for i := range s.tasks {
		if bc.present[i] && cc.present[i] && !bc.failed[i] && !cc.failed[i] && !math.IsNaN(bc.tok[i]) && !math.IsNaN(cc.tok[i]) {
			tb, tc = append(tb, bc.tok[i]), append(tc, cc.tok[i])
		}
	}
	return tokensTest(s.cfg.Rules.Stats(), tb, tc)
}

// minLatencyMS is the floor of a latency in a ratio: a recorded 0 (below
// the clock's resolution) counts as one microsecond.
const minLatencyMS = 1e-3

// logRatio is log(c/b) of two latencies, each at least minLatencyMS.
func logRatio(c, b float64) float64 {
	return math.Log(max(c, minLatencyMS) / max(b, minLatencyMS))
}

// sdDiff is the sample standard deviation of the differences b[i] − a[i].
func sdDiff(a, b []float64) float64 {
	if len(a) < 2 {
		return 0
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	m := metrics.Mean(d)
	ss := 0.0
	for _, x := range d {
		ss += (x - m) * (x - m)
	}
	return math.Sqrt(ss / float64(len(d)-1))
}

// lower reports whether lower values of the named measure are better: its
// metrics.Def's Lower, the value the config resolves the name to.
func (s *Summary) lower(name string) bool {
	m, err := s.cfg.measure(name)
	if err != nil {
		m, err = metrics.ParseRecorded(name)
	}
	return err == nil && m.Lower
}

// casesToSettle is how many paired cases in all a difference of effect
// with per-case spread sd needs for its 95% interval to exclude 0 with
// 80% power (normal approximation: n = ((z₀.₉₇₅ + z₀.₈)·sd/effect)²); 0
// when effect is not positive.
func casesToSettle(effect, sd float64) int {
	if effect <= 0 {
		return 0
	}
	const z = 1.959964 + 0.841621
	return int(math.Ceil(math.Pow(z*sd/effect, 2)))
}

func (s *Summary) setDecisions() {
	for _, d := range s.Decisions {
		if ss := s.system(d.Model); ss != nil {
			ss.Decision = d.Outcome
		}
	}
}

// decideOne decides c against the baseline b from its paired tests.
func (s *Summary) decideOne(b, c *SystemSummary, tests []Paired) Decision {
	d := s.decideRan(b, c, tests)
	if c.Failed == 0 || d.Outcome == Rejected || d.Outcome == NeedsMoreData {
		return d
	}
	// A system that failed some cases is never picked: its numbers hold
	// zeros for the failed cases, and what it would do on them is unknown.
	d.Detail = fmt.Sprintf("it failed %d of %d cases; on the rest it would be %s (%s: %s)", c.Failed, s.Cases, d.Outcome, d.Rule, d.Detail)
	d.Outcome, d.Rule = NeedsMoreData, "partial_failure"
	return d
}

func (s *Summary) decideRan(b, c *SystemSummary, tests []Paired) Decision {
	g := s.cfg.Rules
	d := Decision{Model: c.Name}
	if c.Status == campaignfmt.StatusFailed {
		d.Outcome, d.Rule, d.Detail = Rejected, "system_failed", fmt.Sprintf("every case failed (%d)", c.Failed)
		return d
	}
	d.Tests = tests
	d.Latency = s.latencyTest(b, c)
	d.Index = indexCost(b, c)
	if g.MaxTokensRatio > 0 {
		d.Tokens = s.tokensTest(b, c)
	}
	n := 0
	var gains, losses, weakGains, inferior []string
	var gainMeasures, unmeasured []string
	nonInferior := true
	moreGain, moreNI := 0, 0
	margin := g.margin()
	for i, r := range g.Gains {
		t := tests[i]
		if t.NotMeasured {
			unmeasured = append(unmeasured, r.Measure)
			continue
		}
		n = t.N
		// eff, lo, hi: the change in the better direction (a Lower
		// measure gains when it drops).
		eff, lo, hi := float64(t.Diff), float64(t.Low), float64(t.High)
		if t.Lower {
			eff, lo, hi = -eff, -hi, -lo
		}
		sig := g.Stats().Significant(float64(t.PHolm))
		desc := fmt.Sprintf("%s %+.4f (95%% CI %+.4f..%+.4f, p=%.4f, Holm p=%.4f)", r.Measure, float64(t.Diff), float64(t.Low), float64(t.High), float64(t.P), float64(t.PHolm))
		switch {
		case eff >= r.Threshold && sig && lo > 0:
			gains = append(gains, desc)
			gainMeasures = append(gainMeasures, r.Measure)
		case eff >= r.Threshold:
			weakGains = append(weakGains, desc)
			moreGain = max(moreGain, casesToSettle(eff, float64(t.SD))-t.N)
		case eff <= -r.Threshold && sig && hi < 0:
			losses = append(losses, desc)
		}
		if lo <= -margin {
			nonInferior = false
			inferior = append(inferior, desc)
			moreNI = max(moreNI, casesToSettle(eff+margin, float64(t.SD))-t.N)
		}
	}
	costs := fmt.Sprintf("%s, %s, peak RSS %.0f MiB", d.Latency, d.Index, float64(c.PeakRSSMB))
	if g.MaxTokensRatio > 0 {
		costs += ", " + d.Tokens.String()
	}
	faster := d.Latency.Below(g.InteractiveLatencyRatio)
	switch {
	case len(unmeasured) > 0:
		// A rule that cannot be checked decides nothing: the missing
		// measure is no zero to lose on, and no gain either.
		d.Outcome, d.Rule = NeedsMoreData, "not_measured"
		d.Detail = fmt.Sprintf("%s not measured for %s or the baseline %s (their records do not carry it on every case)", strings.Join(unmeasured, ", "), c.Name, b.Name)
	case n < g.MinCases:
		d.Outcome, d.Rule = NeedsMoreData, "too_few_cases"
		d.Detail = fmt.Sprintf("%d paired cases < %d", n, g.MinCases)
		d.MoreCases = g.MinCases - n
	case len(losses) > 0:
		d.Outcome, d.Rule = Rejected, "significant_loss"
		d.Detail = strings.Join(losses, "; ")
	case len(gains) > 0:
		if inc := s.inconsistent(b.Name, c.Name, gainMeasures); inc != "" {
			d.Outcome, d.Rule, d.Detail = NeedsMoreData, "inconsistent_gain", strings.Join(gains, "; ")+"; but "+inc
			return d
		}
		var over []string
		// A budget decides only on what is shown: latency over budget when
		// its whole interval is, index time on the cold build.
		if d.Latency.Above(g.MaxLatencyRatio) {
			over = append(over, fmt.Sprintf("%s > %.2fx", d.Latency, g.MaxLatencyRatio))
		}
		if d.Index.Checked && float64(d.Index.Ratio) > g.MaxIndexRatio {
			over = append(over, fmt.Sprintf("%s > %.2fx", d.Index, g.MaxIndexRatio))
		}
		if g.MaxPeakRSSMB > 0 && float64(c.PeakRSSMB) > g.MaxPeakRSSMB {
			over = append(over, fmt.Sprintf("peak RSS %.0f MiB > %.0f MiB", float64(c.PeakRSSMB), g.MaxPeakRSSMB))
		}
		// The token budget, as latency's: over only when the whole
		// interval of the paired ratio is.
		if g.MaxTokensRatio > 0 && d.Tokens.Above(g.MaxTokensRatio) {
			over = append(over, fmt.Sprintf("%s > %.2fx", d.Tokens, g.MaxTokensRatio))
		}
		if len(over) == 0 {
			d.Outcome, d.Rule = Default, "significant_gain_within_budget"
			d.Detail = strings.Join(gains, "; ") + "; " + costs
		} else {
			d.Outcome, d.Rule = QualityProfile, "significant_gain_over_budget"
			d.Detail = strings.Join(gains, "; ") + "; over budget: " + strings.Join(over, ", ")
		}
	case nonInferior && faster:
		// Non-inferiority: every gate measure's interval lies above
		// −margin, and the latency's below the interactive ratio.
		d.Outcome, d.Rule = InteractiveProfile, "non_inferior_and_faster"
		d.Detail = fmt.Sprintf("no worse within %.2f on every gate measure (each 95%% CI above −%.2f) and %s < %.2fx", margin, margin, d.Latency, g.InteractiveLatencyRatio)
		if len(weakGains) > 0 {
			d.Detail += "; not significant: " + strings.Join(weakGains, "; ")
		}
	case len(weakGains) > 0:
		d.Outcome, d.Rule = NeedsMoreData, "gain_not_significant"
		d.Detail = strings.Join(weakGains, "; ") + fmt.Sprintf(" (α = %.2f on the Holm-corrected p)", g.Alpha)
		d.MoreCases = moreGain
		if moreGain > 0 {
			d.Detail += fmt.Sprintf("; about %d more paired cases would settle it at the observed effect and spread", moreGain)
		}
		if faster && moreNI > 0 {
			// Faster: showing it no worse settles the verdict too
			// (interactive_profile), usually with fewer cases.
			d.Detail += fmt.Sprintf("; it is %s, and about %d more would show it no worse within %.2f", d.Latency, moreNI, margin)
			if moreGain <= 0 || moreNI < moreGain {
				d.MoreCases = moreNI
			}
		}
	case faster:
		d.Outcome, d.Rule = NeedsMoreData, "non_inferiority_not_shown"
		d.Detail = fmt.Sprintf("%s < %.2fx, but not shown no worse within %.2f: %s", d.Latency, g.InteractiveLatencyRatio, margin, strings.Join(inferior, "; "))
		d.MoreCases = moreNI
		if moreNI > 0 {
			d.Detail += fmt.Sprintf("; about %d more paired cases would settle it at the observed effect and spread", moreNI)
		}
	default:
		d.Outcome, d.Rule = Rejected, "no_gain"
		d.Detail = "no gate measure gains its threshold, and it is not significantly faster; " + costs
	}
	return d
}

// inconsistent names a repository or intent (with at least MinGroupCases
// cases) where a gaining measure loses at least its threshold.
func (s *Summary) inconsistent(base, cand string, measures []string) string {
	g := s.cfg.Rules
	thr := map[string]float64{}
	for _, r := range g.Gains {
		thr[r.Measure] = r.Threshold
	}
	for _, rows := range [][]GroupRow{s.PerRepo, s.PerIntent} {
		bm, cm := map[string]GroupRow{}, map[string]GroupRow{}
		var order []string
		for _, r := range rows {
			switch r.Model {
			case base:
				bm[r.Group] = r
				order = append(order, r.Group)
			case cand:
				cm[r.Group] = r
			}
		}
		for _, grp := range order {
			br, cr := bm[grp], cm[grp]
			if br.N < g.MinGroupCases {
				continue
			}
			for _, m := range measures {
				diff := float64(cr.Values[m] - br.Values[m])
				if s.lower(m) {
					diff = -diff
				}
				if diff <= -thr[m] {
					return fmt.Sprintf("%s loses %.4f on %s (%d cases)", m, -diff, grp, br.N)
				}
			}
		}
	}
	return ""
}
