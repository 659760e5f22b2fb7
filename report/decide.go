package report

import (
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Decision outcomes.
const (
	Default            = "default"             // better and affordable: make it the default
	QualityProfile     = "quality_profile"     // better, but over a cost budget: offer it as the quality profile
	InteractiveProfile = "interactive_profile" // not better, not worse, and clearly faster
	Rejected           = "rejected"            // failed, significantly worse, or no gain at no saving
	NeedsMoreData      = "needs_more_data"     // too few cases, gain not significant, or inconsistent
	BaselineOutcome    = "baseline"            // the system the others are judged against
)

// DecisionRules are the decision rules (the Codira seed's defaults, every number
// configurable). A candidate is compared with Baseline on the cases both
// ran, measure by measure, with a paired bootstrap test; each measure's
// p-values over the candidates are corrected for the number of candidates
// with Holm's step-down procedure (metrics.Holm), and the corrected value
// decides. A failed system is rejected; a partially failed one is never a
// default or a profile (needs_more_data, rule partial_failure).
type DecisionRules struct {
	// Baseline is the system ("system/config") the others are judged
	// against; "" means the first system of the run.
	Baseline string `json:"baseline"`
	// Gains: a candidate improves when a measure gains at least this much
	// (absolute, 0.05 = 5 points) and the paired test finds it significant.
	Gains []Gain `json:"gains"`
	// Primary ranks systems and decides "weak on a repo or intent".
	Primary string  `json:"primary"`
	Alpha   float64 `json:"alpha"` // significance level of the paired tests
	// Cost budgets relative to the baseline (ratios) and absolute memory.
	MaxLatencyRatio float64 `json:"max_latency_ratio"` // p50 query latency
	MaxIndexRatio   float64 `json:"max_index_ratio"`   // index time
	MaxPeakRSSMB    float64 `json:"max_peak_rss_mb"`   // 0 = no memory budget
	// InteractiveLatencyRatio: a candidate without a significant gain or
	// loss whose p50 latency is at most this fraction of the baseline's is
	// an interactive profile.
	InteractiveLatencyRatio float64 `json:"interactive_latency_ratio"`
	// MinCases paired cases are needed to decide anything; a repository or
	// intent with at least MinGroupCases cases that loses at least the gain
	// threshold on a gaining measure makes the gain inconsistent.
	MinCases      int    `json:"min_cases"`
	MinGroupCases int    `json:"min_group_cases"`
	Resamples     int    `json:"resamples"`
	Seed          uint64 `json:"seed"`
}

// Gain is one quality rule: Measure must improve by at least Threshold.
type Gain struct {
	Measure   string  `json:"measure"`
	Threshold float64 `json:"threshold"`
}

// DefaultDecisionRules returns the seed's rules: Recall@5 +5 points, or MRR@10 or
// nDCG@10 +0.05, significant at α = 0.05, with query latency ≤ 1.25× the
// baseline, index time ≤ 2× and peak RSS ≤ 4 GiB.
func DefaultDecisionRules() DecisionRules {
	return DecisionRules{
		Gains:           []Gain{{"recall@5", 0.05}, {"mrr@10", 0.05}, {"ndcg@10", 0.05}},
		Primary:         "ndcg@10",
		Alpha:           0.05,
		MaxLatencyRatio: 1.25, MaxIndexRatio: 2, MaxPeakRSSMB: 4096,
		InteractiveLatencyRatio: 0.8,
		MinCases:                20, MinGroupCases: 5,
		// The seed's rules resample their paired tests twice as often as
		// the CIs (metrics.DefaultStats): kept, so decisions stay as the
		// campaigns recorded them.
		Resamples: 2 * metrics.DefaultResamples, Seed: metrics.DefaultSeed,
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
func (g DecisionRules) Validate() error {
	for _, r := range g.Gains {
		if _, err := metrics.ParseMeasure(r.Measure); err != nil {
			return fmt.Errorf("decision rules: %w", err)
		}
		if r.Threshold <= 0 {
			return fmt.Errorf("decision rules: %s threshold %v is not positive", r.Measure, r.Threshold)
		}
	}
	if _, err := metrics.ParseMeasure(g.Primary); err != nil && g.Primary != "" {
		return fmt.Errorf("decision rules: primary: %w", err)
	}
	if err := g.Stats().Validate(); err != nil {
		return fmt.Errorf("decision rules: %w", err)
	}
	if g.MaxLatencyRatio <= 0 || g.MaxIndexRatio <= 0 || g.MaxPeakRSSMB < 0 || g.InteractiveLatencyRatio <= 0 {
		return fmt.Errorf("decision rules: budgets must be positive")
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
			bv, cv := pick(bc.vals[r.Measure]), pick(cc.vals[r.Measure])
			p := g.Stats().Paired(bv, cv)
			out[name] = append(out[name], Paired{Measure: r.Measure, Baseline: resultfmt.Fixed(metrics.Mean(bv)), Model: resultfmt.Fixed(metrics.Mean(cv)),
				Diff: resultfmt.Fixed(p.MeanDiff), Low: resultfmt.Fixed(p.Low), High: resultfmt.Fixed(p.High), P: resultfmt.Fixed(p.P), N: p.N})
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
	n := 0
	var gains, losses, weakGains []string
	var gainMeasures []string
	for i, r := range g.Gains {
		t := tests[i]
		n = t.N
		diff, lo, hi := float64(t.Diff), float64(t.Low), float64(t.High)
		sig := g.Stats().Significant(float64(t.PHolm))
		desc := fmt.Sprintf("%s %+.4f (95%% CI %+.4f..%+.4f, p=%.4f, Holm p=%.4f)", r.Measure, diff, lo, hi, float64(t.P), float64(t.PHolm))
		switch {
		case diff >= r.Threshold && sig && lo > 0:
			gains = append(gains, desc)
			gainMeasures = append(gainMeasures, r.Measure)
		case diff >= r.Threshold:
			weakGains = append(weakGains, desc)
		case diff <= -r.Threshold && sig && hi < 0:
			losses = append(losses, desc)
		}
	}
	latRatio := ratio(float64(c.LatencyP50MS), float64(b.LatencyP50MS))
	idxRatio := ratio(float64(c.IndexSeconds), float64(b.IndexSeconds))
	costs := fmt.Sprintf("latency p50 %.2fx, index %.2fx, peak RSS %.0f MiB", latRatio, idxRatio, float64(c.PeakRSSMB))
	switch {
	case n < g.MinCases:
		d.Outcome, d.Rule = NeedsMoreData, "too_few_cases"
		d.Detail = fmt.Sprintf("%d paired cases < %d", n, g.MinCases)
	case len(losses) > 0:
		d.Outcome, d.Rule = Rejected, "significant_loss"
		d.Detail = strings.Join(losses, "; ")
	case len(gains) > 0:
		if inc := s.inconsistent(b.Name, c.Name, gainMeasures); inc != "" {
			d.Outcome, d.Rule, d.Detail = NeedsMoreData, "inconsistent_gain", strings.Join(gains, "; ")+"; but "+inc
			return d
		}
		var over []string
		if latRatio > g.MaxLatencyRatio {
			over = append(over, fmt.Sprintf("latency %.2fx > %.2fx", latRatio, g.MaxLatencyRatio))
		}
		if idxRatio > g.MaxIndexRatio {
			over = append(over, fmt.Sprintf("index time %.2fx > %.2fx", idxRatio, g.MaxIndexRatio))
		}
		if g.MaxPeakRSSMB > 0 && float64(c.PeakRSSMB) > g.MaxPeakRSSMB {
			over = append(over, fmt.Sprintf("peak RSS %.0f MiB > %.0f MiB", float64(c.PeakRSSMB), g.MaxPeakRSSMB))
		}
		if len(over) == 0 {
			d.Outcome, d.Rule = Default, "significant_gain_within_budget"
			d.Detail = strings.Join(gains, "; ") + "; " + costs
		} else {
			d.Outcome, d.Rule = QualityProfile, "significant_gain_over_budget"
			d.Detail = strings.Join(gains, "; ") + "; over budget: " + strings.Join(over, ", ")
		}
	case len(weakGains) > 0:
		d.Outcome, d.Rule = NeedsMoreData, "gain_not_significant"
		d.Detail = strings.Join(weakGains, "; ") + fmt.Sprintf(" (α = %.2f on the Holm-corrected p)", g.Alpha)
	case latRatio > 0 && latRatio <= g.InteractiveLatencyRatio:
		d.Outcome, d.Rule = InteractiveProfile, "faster_without_significant_loss"
		d.Detail = fmt.Sprintf("no gate measure changes significantly by its threshold; latency p50 %.2fx <= %.2fx", latRatio, g.InteractiveLatencyRatio)
	default:
		d.Outcome, d.Rule = Rejected, "no_gain"
		d.Detail = "no gate measure gains its threshold, and it is not faster; " + costs
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
				if diff := float64(cr.Values[m] - br.Values[m]); diff <= -thr[m] {
					return fmt.Sprintf("%s loses %.4f on %s (%d cases)", m, -diff, grp, br.N)
				}
			}
		}
	}
	return ""
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}
