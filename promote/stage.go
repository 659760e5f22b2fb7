package promote

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/ledgerfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Decisions of a stage.
const (
	DecisionReport    = "report"    // small_dev: numbers only
	DecisionPromote   = "promote"   // dev: paired win beyond noise
	DecisionHold      = "hold"      // dev: no promotion; iterate on small_dev
	DecisionConfirmed = "confirmed" // test: win confirmed and no harm
	DecisionRejected  = "rejected"  // test: back to small_dev; variants get no test shot
)

// Rule outcomes.
const (
	RulePass     = "pass"
	RuleViolated = "violated"
	RuleSkipped  = "skipped" // does not apply to the primary dataset
	RuleMissing  = "missing" // no results to evaluate it: fails closed
)

// StageResult is the outcome of one stage with the numbers behind it.
type StageResult struct {
	Stage     string        `json:"stage"`
	Baseline  ledgerfmt.Arm `json:"baseline"`
	Candidate ledgerfmt.Arm `json:"candidate"`
	Alpha     float64       `json:"alpha"`
	Test      string        `json:"test"`
	Decision  string        `json:"decision"`
	Reasons   []string      `json:"reasons"`
	Primary   Paired        `json:"primary"`
	// Comparisons is how many candidates the test split has compared with
	// this baseline on this dataset and measure, this one included (the
	// ledger's earlier verdicts plus one); when more than one, PHolm is
	// Primary.P corrected for them with Holm's procedure, and decides.
	Comparisons int          `json:"comparisons,omitempty"`
	PHolm       float64      `json:"p_holm,omitempty"`
	Rules       []RuleResult `json:"rules,omitempty"`
}

// RuleResult is one do-no-harm rule as evaluated.
type RuleResult struct {
	Rule       Rule    `json:"rule"`
	Status     string  `json:"status"`
	Reason     string  `json:"reason"`
	Comparison *Paired `json:"comparison,omitempty"`
}

// Datasets lists "dataset[split]" of every comparison v made.
func (v *StageResult) Datasets() []string {
	out := []string{v.Primary.Dataset + "[" + v.Primary.Split + "]"}
	for _, r := range v.Rules {
		if r.Comparison != nil {
			out = append(out, r.Comparison.Dataset+"["+r.Comparison.Split+"]")
		}
	}
	return out
}

// Evaluate decides stage for cand against base from recs (the results of
// the stage's split: the primary dataset and, at the test stage, the rules'
// datasets). The primary records are those of cfg.Dataset with split
// stage. An error means the primary comparison could not be made; a rule
// that cannot be evaluated is RuleMissing, which rejects.
func Evaluate(stage string, recs []resultfmt.Record, base, cand ledgerfmt.Arm, cfg Config) (*StageResult, error) {
	return EvaluateAmong(stage, recs, base, cand, cfg, nil)
}

// EvaluateAmong is Evaluate for a candidate that is one of several the
// test split compares with the same baseline: prior are the raw p-values
// of the earlier ones (Ledger.PriorP), and the candidate's p-value is
// corrected for all of them with Holm's procedure before it decides — the
// tenth variant tried against one baseline should not win by the luck that
// one in twenty null comparisons has.
func EvaluateAmong(stage string, recs []resultfmt.Record, base, cand ledgerfmt.Arm, cfg Config, prior []float64) (*StageResult, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	switch stage {
	case StageSmallDev, StageDev, StageTest:
	default:
		return nil, fmt.Errorf("stage %q: want %s", stage, strings.Join(Stages(), ", "))
	}
	if base.Name() == cand.Name() {
		return nil, fmt.Errorf("baseline and candidate are both %s", base.Name())
	}
	primary, err := Pair(recs, base, cand, cfg.Dataset, stage, cfg.Measure, cfg)
	if err != nil {
		return nil, err
	}
	v := &StageResult{Stage: stage, Baseline: base, Candidate: cand, Alpha: cfg.Stats.Alpha, Test: cfg.Test, Primary: primary}
	if len(prior) > 0 {
		ps := append(slices.Clone(prior), primary.P)
		v.Comparisons, v.PHolm = len(ps), metrics.Holm(ps)[len(prior)]
	}
	win, why := v.isWin(cfg)
	switch stage {
	case StageSmallDev:
		v.Decision = DecisionReport
		v.Reasons = []string{"small_dev is free iteration: " + why}
		return v, nil
	case StageDev:
		v.Decision = DecisionHold
		if win {
			v.Decision = DecisionPromote
		}
		v.Reasons = []string{why}
		return v, nil
	}
	v.Reasons = []string{why}
	ok := win
	for _, r := range cfg.Rules {
		rr := evalRule(recs, base, cand, r, cfg)
		v.Rules = append(v.Rules, rr)
		if rr.Status == RuleViolated || rr.Status == RuleMissing {
			ok = false
			v.Reasons = append(v.Reasons, "rule "+r.Name+": "+rr.Reason)
		}
	}
	v.Decision = DecisionRejected
	if ok {
		v.Decision = DecisionConfirmed
	}
	return v, nil
}

// isWin reports whether the primary comparison is a paired win beyond
// noise, and says why in words with the numbers.
func (v *StageResult) isWin(cfg Config) (bool, string) {
	c := v.Primary
	d := c.Gain() // in the better direction (the measure's Def)
	nums := fmt.Sprintf("%s %+.4f (95%% CI %+.4f..%+.4f), %s p=%.4f, n=%d, %d wins/%d losses",
		c.Measure, c.Diff.Mean, c.Diff.Low, c.Diff.High, cfg.Test, c.P, c.N, c.Wins, c.Losses)
	if c.Lower {
		nums += " (lower is better)"
	}
	p, which := c.P, "p"
	if v.Comparisons > 1 {
		p, which = v.PHolm, "Holm p"
		nums += fmt.Sprintf(", Holm p=%.4f over the %d candidates the test split compared with this baseline", v.PHolm, v.Comparisons)
	}
	switch {
	case d <= 0 && p < cfg.Stats.Alpha:
		return false, "loss beyond noise: " + nums
	case d <= 0:
		return false, "no gain: " + nums
	case p >= cfg.Stats.Alpha:
		return false, fmt.Sprintf("not significant (%s ≥ α=%g): %s", which, cfg.Stats.Alpha, nums)
	case c.CandidateErrors > 0:
		return false, fmt.Sprintf("the candidate failed %d of %d tasks (scored 0): a partially failed candidate is never promoted: %s", c.CandidateErrors, c.N, nums)
	case d <= cfg.MinGain:
		return false, fmt.Sprintf("significant but below the minimum gain %g: %s", cfg.MinGain, nums)
	}
	return true, fmt.Sprintf("win beyond noise (p < α=%g): %s", cfg.Stats.Alpha, nums)
}

func evalRule(recs []resultfmt.Record, base, cand ledgerfmt.Arm, r Rule, cfg Config) RuleResult {
	rr := RuleResult{Rule: r}
	if !r.Applies(cfg.Dataset) {
		rr.Status, rr.Reason = RuleSkipped, fmt.Sprintf("applies to %s, not %s", r.When, cfg.Dataset)
		return rr
	}
	c, err := Pair(recs, base, cand, r.Dataset, r.Split, r.Measure, cfg)
	if err != nil {
		var me *MissingError
		rr.Status = RuleMissing
		if errors.As(err, &me) {
			rr.Reason = err.Error() + " (a rule without results fails closed)"
		} else {
			rr.Reason = err.Error()
		}
		return rr
	}
	rr.Comparison = &c
	alpha := cfg.Stats.Alpha
	if r.Alpha > 0 {
		alpha = r.Alpha
	}
	d := c.Gain() // a drop is negative whichever way the measure is better
	nums := fmt.Sprintf("%s on %s[%s] %+.4f (95%% CI %+.4f..%+.4f), p=%.4f, n=%d",
		r.Measure, r.Dataset, r.Split, c.Diff.Mean, c.Diff.Low, c.Diff.High, c.P, c.N)
	if d < -r.MaxDrop && c.P < alpha {
		rr.Status, rr.Reason = RuleViolated, fmt.Sprintf("regressed beyond max drop %g and noise (p < α=%g): %s", r.MaxDrop, alpha, nums)
		return rr
	}
	rr.Status = RulePass
	switch {
	case d < -r.MaxDrop:
		rr.Reason = fmt.Sprintf("dropped by more than %g but not significantly (p ≥ α=%g): %s", r.MaxDrop, alpha, nums)
	default:
		rr.Reason = "no regression beyond max drop: " + nums
	}
	return rr
}
