package harness

import (
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// NewGolden summarises r as a golden baseline with the given tolerance; its
// CIs are metrics.DefaultStats()'s.
func NewGolden(r *Result, tolerance float64, reason string) *goldenfmt.Golden {
	g := &goldenfmt.Golden{
		Dataset: r.Dataset, Split: r.Split, System: r.System, Config: r.Config,
		ConfigHash: r.ConfigHash, DataHash: r.DataHash,
		Tolerance: resultfmt.Fixed(tolerance), ToleranceReason: reason,
		Versions: map[string]string{"go": runtime.Version()}, CPUClass: r.CPUClass,
		TasksRan: len(r.Tasks), Undefined: r.Undefined,
		Metrics: make(map[string]resultfmt.Stat, len(r.Measures)),
		Tasks:   make(map[string]goldenfmt.TaskOutcome, len(r.Tasks)),
	}
	for k, v := range r.Versions {
		g.Versions[k] = v
	}
	stats := metrics.DefaultStats()
	for _, m := range r.Measures {
		col, _ := r.Column(m.String())
		ci := stats.CI(col)
		g.Metrics[m.String()] = resultfmt.NewStat(ci.Mean, ci.Low, ci.High)
	}
	for _, t := range r.Tasks {
		o := goldenfmt.TaskOutcome{FirstRelevant: t.FirstRelevant, Values: make(map[string]resultfmt.Fixed, len(r.Measures))}
		for i, m := range r.Measures {
			o.Values[m.String()] = resultfmt.Fixed(t.Values[i])
		}
		g.Tasks[t.ID] = o
	}
	return g
}

// Check is the outcome of checking a run against its golden file
// (CheckGolden). The word "gate" is package gate's: a benchstat-style
// comparison of two benchmark files.
type Check struct {
	Failures     []string // each one fails the cell
	Improvements []string // reported with a hint to run -update
	// Versions lists what the run was made with that differs from the
	// baseline ("onnxruntime: 1.30.0 → 1.31.0"); shown with any failure, so
	// a drop that comes with a new library says so.
	Versions []string
	// CPU is set when the run's CPU class differs from the baseline's and
	// the golden file has no baseline of the run's class: a reason, other
	// than a regression, for a small drop of an embedding model's cell.
	CPU string
	// Excused lists the measures that fell below golden − tolerance only
	// through near-tie moves on a CPU class the golden file has no baseline
	// of (NearRanks), and on such a class the token costs (tokens@k) above
	// their tolerance of a config that has one, when no other measure of
	// the cell failed; they pass, and are shown.
	Excused []string
	// Unchecked lists the golden's token measures a run that counted no
	// tokens (-tokenizer none, or the tokenizer missing: "token measures
	// off") could not check; they pass, and are shown.
	Unchecked []string
}

// NearRanks is how far a task's first relevant document may move on a CPU
// class that the golden file has no baseline of and still be taken for a
// near-tie swap, not a regression: the other class's float rounding moves a
// gold among the documents whose scores it ties with (issue 32's AMD EPYC:
// e5-small-q, one RepoQA task from rank 7 to rank 12). A task that loses its
// relevant document, or moves further, is never excused; the baseline of the
// run's own class (goldenfmt.Golden.ByCPUClass) excuses nothing (docs/portability.md).
const NearRanks = 5

// OK reports whether the run passes its golden file.
func (v *Check) OK() bool { return len(v.Failures) == 0 }

// CheckGolden checks r against g with the tolerance of the system's config (from
// code, never from the file: editing a golden file cannot loosen the check).
// A measure passes when its mean, at four decimals, is at least
// golden − tolerance. A failing measure lists the tasks whose value for it
// dropped. Every measure of the run must have a baseline and every baseline
// measure must be measured, but for the token measures of a run that
// counted no tokens (Check.Unchecked). A different data or config hash is a stale
// baseline and fails regardless of the numbers; so does a golden file made
// with another tolerance, and any task the system failed on. The run is
// checked against the baseline of its CPU class (goldenfmt.Golden.For); when the file
// has none, against the main one, and a failing measure says that the CPU
// classes differ.
func CheckGolden(g *goldenfmt.Golden, r *Result, tolerance float64) *Check {
	v := &Check{}
	base, ofClass := g.For(r.CPUClass)
	note := ""
	if !ofClass {
		v.CPU = fmt.Sprintf("this run's CPU class %s is not the golden's %s, and the golden has no %s baseline: "+
			"embedding models round differently across CPU classes (docs/portability.md); if that is all the drop is, "+
			"record this class's baseline with -update on this machine", r.CPUClass, g.CPUClass, r.CPUClass)
		note = fmt.Sprintf("; CPU class %s, golden's %s", r.CPUClass, g.CPUClass)
	} else if base != g {
		note = fmt.Sprintf("; against the golden's %s baseline", base.CPUClass)
	}
	if g.DataHash != r.DataHash {
		now, was := hashPair(r.DataHash, g.DataHash)
		v.Failures = append(v.Failures, fmt.Sprintf("stale baseline: data hash %s ≠ golden %s (corpus, chunking or tasks changed)", now, was))
	}
	if g.ConfigHash != r.ConfigHash {
		now, was := hashPair(r.ConfigHash, g.ConfigHash)
		v.Failures = append(v.Failures, fmt.Sprintf("stale baseline: config hash %s ≠ golden %s: %s", now, was, configHashHelp))
	}
	tol := resultfmt.Round4(tolerance)
	if resultfmt.Round4(float64(g.Tolerance)) != tol {
		v.Failures = append(v.Failures, fmt.Sprintf("golden tolerance %.4f ≠ the config's %.4f: the baseline was made or edited with another tolerance (the check uses the config's)", resultfmt.Round4(float64(g.Tolerance)), tol))
	}
	for _, t := range r.Failed() {
		v.Failures = append(v.Failures, fmt.Sprintf("task %s failed: %s", t.ID, firstLine(t.Err)))
	}
	now := NewGolden(r, tolerance, g.ToleranceReason)
	for _, m := range sortedKeys(now.Metrics) {
		if _, ok := base.Metrics[m]; !ok && !isTokenMeasure(m) {
			v.Failures = append(v.Failures, fmt.Sprintf("%s: measured (%.4f) but not in golden: a new measure needs a baseline", m, resultfmt.Round4(float64(now.Metrics[m].Mean))))
		}
	}
	// Which way is worse is the measure's (metrics.Def.Lower), read from
	// the value, not its name: for a lower-is-better measure a rise fails.
	var costRises []string // tokens@k above tolerance on another CPU class
	lower := map[string]bool{}
	for _, m := range r.Measures {
		lower[m.String()] = m.Lower
	}
	for _, m := range sortedKeys(base.Metrics) {
		want := resultfmt.Round4(float64(base.Metrics[m].Mean))
		got, ok := now.Metrics[m]
		if !ok && r.Tokenizer == "" && isTokenMeasure(m) {
			v.Unchecked = append(v.Unchecked, m)
			continue
		}
		if !ok {
			v.Failures = append(v.Failures, fmt.Sprintf("%s: in golden (%.4f) but not measured by this run", m, want))
			continue
		}
		have := resultfmt.Round4(float64(got.Mean))
		if isTokenCost(m) {
			// A cost (tokens@k): lower is better, and the tolerance is a
			// share of the baseline, as counts have no common scale.
			switch {
			case have > resultfmt.Round4(want*(1+tol)) && !ofClass && tol > 0:
				// What the top k delivers follows the ranking: on a CPU
				// class the golden has no baseline of, a near-tie swap
				// across rank k changes it. Excused when no quality
				// measure of the cell failed (decided after the loop).
				costRises = append(costRises, fmt.Sprintf("%s: %.4f → %.4f (more than %.0f%% above the baseline; %s%s)", m, want, have, 100*tol, flips(m, base, now), note))
			case have > resultfmt.Round4(want*(1+tol)):
				v.Failures = append(v.Failures, fmt.Sprintf("%s: %.4f → %.4f (more than %.0f%% above the baseline; %s%s)", m, want, have, 100*tol, flips(m, base, now), note))
			case have < resultfmt.Round4(want*(1-tol)):
				v.Improvements = append(v.Improvements, fmt.Sprintf("%s: %.4f → %.4f (%s%s)", m, want, have, flips(m, base, now), note))
			}
			continue
		}
		worse, better := have < resultfmt.Round4(want-tol), have > resultfmt.Round4(want+tol)
		if lower[m] {
			worse, better = better, worse
		}
		switch {
		case worse && !lower[m] && !ofClass && nearMean(m, base, now) >= resultfmt.Round4(want-tol):
			v.Excused = append(v.Excused, fmt.Sprintf("%s: %.4f → %.4f (tolerance %.4f; %s%s): only moves of at most %d ranks, excused as near-tie swaps of another CPU class",
				m, want, have, tol, flips(m, base, now), note, NearRanks))
		case worse:
			v.Failures = append(v.Failures, fmt.Sprintf("%s: %.4f → %.4f (tolerance %.4f; %s%s)", m, want, have, tol, flips(m, base, now), note))
		case better:
			v.Improvements = append(v.Improvements, fmt.Sprintf("%s: %.4f → %.4f (%s%s)", m, want, have, flips(m, base, now), note))
		}
	}
	if len(costRises) > 0 {
		if len(v.Failures) == 0 {
			for _, c := range costRises {
				v.Excused = append(v.Excused, c+": excused on another CPU class, whose rounding reorders near ties across the cut, since no quality measure of the cell failed")
			}
		} else {
			v.Failures = append(v.Failures, costRises...)
		}
	}
	for _, k := range sortedKeys(mergeKeys(base.Versions, now.Versions)) {
		if a, b := base.Versions[k], now.Versions[k]; a != b {
			v.Versions = append(v.Versions, fmt.Sprintf("%s: %s → %s", k, orNone(a), orNone(b)))
		}
	}
	return v
}

// nearMean is the mean of measure m over the run now with every task whose
// value dropped against base while its first relevant rank moved by at most
// NearRanks (found in both) counted at its baseline value.
func nearMean(m string, base, now *goldenfmt.Golden) float64 {
	if len(now.Tasks) == 0 {
		return 0
	}
	sum := 0.0
	for id, n := range now.Tasks {
		val := float64(n.Values[m])
		if o, ok := base.Tasks[id]; ok && resultfmt.Round4(val) < resultfmt.Round4(float64(o.Values[m])) && near(o.FirstRelevant, n.FirstRelevant) {
			val = float64(o.Values[m])
		}
		sum += val
	}
	return resultfmt.Round4(sum / float64(len(now.Tasks)))
}

func near(before, after int) bool {
	d := after - before
	return before > 0 && after > 0 && d >= -NearRanks && d <= NearRanks
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mergeKeys(a, b map[string]string) map[string]bool {
	m := make(map[string]bool, len(a)+len(b))
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// flips describes the tasks whose value of measure m changed between the
// golden g and the run now, losses first.
func flips(m string, g, now *goldenfmt.Golden) string {
	ids := make([]string, 0, len(now.Tasks))
	for id := range now.Tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var lost, won []string
	for _, id := range ids {
		o, ok := g.Tasks[id]
		n := now.Tasks[id]
		if !ok {
			continue
		}
		before, after := resultfmt.Round4(float64(o.Values[m])), resultfmt.Round4(float64(n.Values[m]))
		switch {
		case after < before:
			lost = append(lost, id+" "+rankChange(o.FirstRelevant, n.FirstRelevant))
		case after > before:
			won = append(won, id+" "+rankChange(o.FirstRelevant, n.FirstRelevant))
		}
	}
	var parts []string
	if len(lost) > 0 {
		parts = append(parts, fmt.Sprintf("−%d %s: %s", len(lost), plural(len(lost), "task"), list(lost)))
	}
	if len(won) > 0 {
		parts = append(parts, fmt.Sprintf("+%d %s: %s", len(won), plural(len(won), "task"), list(won)))
	}
	if len(parts) == 0 {
		return "no per-task change"
	}
	return strings.Join(parts, "; ")
}

func rankChange(before, after int) string {
	r := func(n int) string {
		if n == 0 {
			return "none"
		}
		return "rank " + strconv.Itoa(n)
	}
	switch {
	case before != 0 && after == 0:
		return "lost " + r(before)
	case before == 0 && after != 0:
		return "found at " + r(after)
	case before == after:
		return "first relevant still at " + r(before)
	}
	return r(before) + " → " + r(after)
}

// list shows at most ten items; a check message stays readable.
func list(items []string) string {
	const max = 10
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(", … %d more", len(items)-max)
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// isTokenMeasure reports whether m names a token measure: one a golden file
// may leave out (docs/judging.md, "Tokens"), since not every run counts
// tokens; where the golden has it, it is checked as any other.
func isTokenMeasure(m string) bool {
	mm, err := metrics.ParseRecorded(m)
	return err == nil && metrics.IsToken(mm)
}

// isTokenCost reports whether m names a token measure whose lower values
// are better (tokens@k).
func isTokenCost(m string) bool {
	mm, err := metrics.ParseRecorded(m)
	return err == nil && metrics.IsToken(mm) && mm.Lower
}
