package promote

import (
	"fmt"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/ledgerfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Estimate is a mean with its 95% confidence interval.
type Estimate struct {
	Mean float64 `json:"mean"`
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Gain is the mean difference in the better direction: Diff.Mean, or
// −Diff.Mean for a Lower measure.
func (c Paired) Gain() float64 {
	if c.Lower {
		return -c.Diff.Mean
	}
	return c.Diff.Mean
}

// Paired is a paired per-task comparison of a candidate with a baseline
// on one dataset, split and measure. Diff is candidate − baseline.
type Paired struct {
	Dataset string `json:"dataset"`
	Split   string `json:"split"`
	Measure string `json:"measure"`
	// Lower: lower values of the measure are better (its metrics.Def,
	// resolved from Measure): a win is then a drop, Wins count drops.
	Lower bool `json:"lower,omitempty"`
	N     int  `json:"n"`
	// Baseline and Candidate are the means with 95% bootstrap CIs.
	Baseline  Estimate `json:"baseline"`
	Candidate Estimate `json:"candidate"`
	// Diff is the mean per-task difference with its 95% paired bootstrap
	// CI; PBootstrap its shift-method p-value.
	Diff       Estimate `json:"diff"`
	PBootstrap float64  `json:"p_bootstrap"`
	// PPermutation is the sign-flip randomization p-value.
	PPermutation float64 `json:"p_permutation"`
	// McNemar is set for 0/1 measures (hit@k, success).
	McNemar *metrics.McNemarResult `json:"mcnemar,omitempty"`
	// P is the p-value the decision uses (Config.Test).
	P float64 `json:"p"`
	// Wins, Losses and Ties count tasks by the sign of their difference.
	Wins   int `json:"wins"`
	Losses int `json:"losses"`
	Ties   int `json:"ties"`
	// Errors counts tasks a system failed on (either side); their values
	// are those recorded (usually 0), so a failing candidate loses them.
	// CandidateErrors counts the candidate's alone: a candidate that failed
	// any task is never promoted or confirmed.
	Errors          int `json:"errors"`
	CandidateErrors int `json:"candidate_errors,omitempty"`
}

// Pair pairs base and cand records of dataset/split by task and compares
// their values of measure. Both sides must hold exactly the same tasks, once
// each, with the measure recorded; anything else is an error naming the
// first offending task, because a comparison over different task sets is
// not paired.
func Pair(recs []resultfmt.Record, base, cand ledgerfmt.Arm, dataset, split, measure string, cfg Config) (Paired, error) {
	c := Paired{Dataset: dataset, Split: split, Measure: measure}
	if m, err := metrics.ParseMeasure(measure); err == nil {
		c.Lower = m.Lower
	}
	bv, berr, err := column(recs, base, dataset, split, measure)
	if err != nil {
		return c, err
	}
	cv, cerr, err := column(recs, cand, dataset, split, measure)
	if err != nil {
		return c, err
	}
	ids := sortedKeys(bv)
	for _, id := range sortedKeys(cv) {
		if _, ok := bv[id]; !ok {
			return c, fmt.Errorf("%s[%s]: task %s has a result for %s but not for %s: the runs are not paired", dataset, split, id, cand.Name(), base.Name())
		}
	}
	a, b := make([]float64, len(ids)), make([]float64, len(ids))
	for i, id := range ids {
		v, ok := cv[id]
		if !ok {
			return c, fmt.Errorf("%s[%s]: task %s has a result for %s but not for %s: the runs are not paired", dataset, split, id, base.Name(), cand.Name())
		}
		a[i], b[i] = bv[id], v
		switch {
		case v > a[i] != c.Lower && v != a[i]:
			c.Wins++
		case v != a[i]:
			c.Losses++
		default:
			c.Ties++
		}
		if berr[id] || cerr[id] {
			c.Errors++
		}
		if cerr[id] {
			c.CandidateErrors++
		}
	}
	c.N = len(ids)
	st := cfg.Stats
	ba, ca := st.CI(a), st.CI(b)
	d := st.Paired(a, b)
	c.Baseline, c.Candidate = Estimate{ba.Mean, ba.Low, ba.High}, Estimate{ca.Mean, ca.Low, ca.High}
	c.Diff, c.PBootstrap = Estimate{d.MeanDiff, d.Low, d.High}, d.P
	c.PPermutation = st.Permutation(a, b)
	if mc, err := metrics.McNemar(a, b); err == nil {
		c.McNemar = &mc
	}
	c.P = c.PBootstrap
	if cfg.Test == TestPermutation {
		c.P = c.PPermutation
	}
	return c, nil
}

// column returns arm's values of measure on dataset/split by task id, and
// which tasks failed.
func column(recs []resultfmt.Record, arm ledgerfmt.Arm, dataset, split, measure string) (map[string]float64, map[string]bool, error) {
	vals, failed := map[string]float64{}, map[string]bool{}
	for _, r := range recs {
		if r.System != arm.System || r.Config != arm.Config || r.Dataset != dataset || r.Split != split {
			continue
		}
		if _, dup := vals[r.Task]; dup {
			return nil, nil, fmt.Errorf("%s[%s] %s: task %s appears twice (two runs in one results directory?)", dataset, split, arm.Name(), r.Task)
		}
		v, ok := r.Values[measure]
		if !ok {
			return nil, nil, fmt.Errorf("%s[%s] %s: task %s has no %s value (recorded: %s)", dataset, split, arm.Name(), r.Task, measure, strings.Join(sortedKeys(r.Values), ", "))
		}
		vals[r.Task] = v
		failed[r.Task] = r.Error != ""
	}
	if len(vals) == 0 {
		return nil, nil, &MissingError{Arm: arm, Dataset: dataset, Split: split}
	}
	return vals, failed, nil
}

// MissingError says that the results hold no record of an arm on a
// dataset/split.
type MissingError struct {
	Arm            ledgerfmt.Arm
	Dataset, Split string
}

func (e *MissingError) Error() string {
	return fmt.Sprintf("no results of %s on %s[%s]", e.Arm.Name(), e.Dataset, e.Split)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
