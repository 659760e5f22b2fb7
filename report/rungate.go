package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// RunGate compares two runs of a campaign on the same case file, system
// by system, on the cases both ran unchanged: the campaign's counterpart
// of the golden check. A system regressed when a gate measure drops, with
// a paired bootstrap test significant after Holm's correction (over the
// systems compared on that measure), by at least the measure's threshold.
// Latency is shown, not gated: two runs rarely share a machine's load, and
// a ratio across runs moves with it (within a run it does not). Tokens do
// not move with the load: under a token budget (MaxTokensRatio) a system
// whose tokens@10 grew significantly past that ratio of the old run's
// regressed.
type RunGate struct {
	// Cases is how many cases both runs have with the same query and gold
	// (campaignfmt.Task.SHA256); Changed lists those that differ, left out.
	Cases   int          `json:"cases"`
	Changed []string     `json:"changed_cases,omitempty"`
	Systems []SystemGate `json:"systems"`
}

// SystemGate is one system's comparison: new against old.
type SystemGate struct {
	Model string `json:"model"`
	// Status: "compared", "missing" (in the old run, not the new: a
	// regression), "new" (only in the new run), or "failed" (failed every
	// case in either run: a regression when it ran before).
	Status string   `json:"status"`
	Tests  []Paired `json:"tests,omitempty"`
	// Latency is the new run's per-case latency against the old's,
	// informative only.
	Latency *LatencyTest `json:"latency,omitempty"`
	// Tokens is the new run's per-case tokens@10 against the old's, under
	// a token budget (nil without one, or without token counts in either).
	Tokens      *TokensTest `json:"tokens,omitempty"`
	OldDecision string      `json:"old_decision,omitempty"`
	NewDecision string      `json:"new_decision,omitempty"`
	// Regressions name what failed the gate; empty when it passed.
	Regressions []string `json:"regressions,omitempty"`
}

// Failed reports whether any system regressed.
func (g *RunGate) Failed() bool {
	for _, s := range g.Systems {
		if len(s.Regressions) > 0 {
			return true
		}
	}
	return false
}

// CompareRuns gates new against old with rules (their gains, thresholds
// and statistics). Both summaries come from ScoreCampaign.
func CompareRuns(old, new *Summary, rules DecisionRules) *RunGate {
	g := &RunGate{}
	// The cases both ran, unchanged, in the new run's order.
	oldPos := map[string]int{}
	for i, t := range old.tasks {
		oldPos[t.ID] = i
	}
	var pairs [][2]int // new index, old index
	for i, t := range new.tasks {
		j, ok := oldPos[t.ID]
		switch {
		case !ok:
			continue
		case old.tasks[j].SHA256() != t.SHA256():
			g.Changed = append(g.Changed, t.ID)
		default:
			pairs = append(pairs, [2]int{i, j})
		}
	}
	g.Cases = len(pairs)
	st := rules.Stats()
	var compared []int // indexes into g.Systems with tests
	seen := map[string]bool{}
	for _, name := range old.order {
		seen[name] = true
		sg := SystemGate{Model: name, OldDecision: old.system(name).Decision}
		osum, ns := old.system(name), new.system(name)
		switch {
		case ns == nil:
			sg.Status = "missing"
			sg.Regressions = append(sg.Regressions, "not in the new run")
		case ns.Status == campaignfmt.StatusFailed && osum.Status != campaignfmt.StatusFailed:
			sg.Status, sg.NewDecision = "failed", ns.Decision
			sg.Regressions = append(sg.Regressions, "failed every case in the new run")
		case ns.Status == campaignfmt.StatusFailed || osum.Status == campaignfmt.StatusFailed:
			sg.Status, sg.NewDecision = "failed", ns.Decision
		default:
			sg.Status, sg.NewDecision = "compared", ns.Decision
			oc, nc := old.cols[name], new.cols[name]
			var idx [][2]int
			for _, p := range pairs {
				if nc.present[p[0]] && oc.present[p[1]] {
					idx = append(idx, p)
				}
			}
			var logs []float64
			for _, p := range idx {
				if !nc.failed[p[0]] && !oc.failed[p[1]] {
					logs = append(logs, logRatio(nc.lat[p[0]], oc.lat[p[1]]))
				}
			}
			if len(logs) > 0 {
				sg.Latency = &LatencyTest{ratioTest(st, logs)}
			}
			if rules.MaxTokensRatio > 0 {
				sg.Tokens = tokensAcross(oc, nc, idx, st)
				if sg.Tokens.Above(rules.MaxTokensRatio) {
					sg.Regressions = append(sg.Regressions, fmt.Sprintf("%s new/old > %.2fx (the token budget)", sg.Tokens, rules.MaxTokensRatio))
				}
			}
			for _, r := range rules.Gains {
				if oc.vals[r.Measure] == nil || nc.vals[r.Measure] == nil {
					sg.Tests = append(sg.Tests, Paired{Measure: r.Measure, P: 1, Lower: new.lower(r.Measure), NotMeasured: true})
					continue
				}
				ov, nv := make([]float64, len(idx)), make([]float64, len(idx))
				for k, p := range idx {
					ov[k], nv[k] = oc.vals[r.Measure][p[1]], nc.vals[r.Measure][p[0]]
				}
				p := st.Paired(ov, nv)
				sg.Tests = append(sg.Tests, Paired{Measure: r.Measure, Baseline: resultfmt.Fixed(metrics.Mean(ov)), Model: resultfmt.Fixed(metrics.Mean(nv)),
					Diff: resultfmt.Fixed(p.MeanDiff), Low: resultfmt.Fixed(p.Low), High: resultfmt.Fixed(p.High), P: resultfmt.Fixed(p.P), N: p.N,
					SD: resultfmt.Fixed(sdDiff(ov, nv)), Lower: new.lower(r.Measure)})
			}
			compared = append(compared, len(g.Systems))
		}
		g.Systems = append(g.Systems, sg)
	}
	for _, name := range new.order {
		if !seen[name] {
			g.Systems = append(g.Systems, SystemGate{Model: name, Status: "new", NewDecision: new.system(name).Decision})
		}
	}
	// Holm over the systems compared, measure by measure; then the rule.
	for mi, r := range rules.Gains {
		ps := make([]float64, len(compared))
		for k, si := range compared {
			ps[k] = float64(g.Systems[si].Tests[mi].P)
		}
		for k, adj := range metrics.Holm(ps) {
			sg := &g.Systems[compared[k]]
			t := &sg.Tests[mi]
			t.PHolm = resultfmt.Fixed(adj)
			drop, hi := -float64(t.Diff), float64(t.High)
			if t.Lower {
				drop, hi = float64(t.Diff), -float64(t.Low)
			}
			if drop >= r.Threshold && hi < 0 && st.Significant(adj) {
				sg.Regressions = append(sg.Regressions, fmt.Sprintf("%s %+.4f (95%% CI %+.4f..%+.4f, Holm p=%.4f, %d cases): a drop of at least %.2f",
					r.Measure, float64(t.Diff), float64(t.Low), float64(t.High), adj, t.N, r.Threshold))
			}
		}
	}
	return g
}

// tokensAcross compares the new run's tokens@10 (nc) with the old's (oc)
// on the paired cases idx (new, old) that both ran and a tokenizer
// counted; nil when none.
func tokensAcross(oc, nc *columns, idx [][2]int, st metrics.Stats) *TokensTest {
	var to, tn []float64
	for _, p := range idx {
		o, n := oc.tok[p[1]], nc.tok[p[0]]
		if nc.failed[p[0]] || oc.failed[p[1]] || math.IsNaN(o) || math.IsNaN(n) {
			continue
		}
		to, tn = append(to, o), append(tn, n)
	}
	return tokensTest(st, to, tn)
}

// Text renders g for a terminal: one block per system, then the verdict.
func (g *RunGate) Text() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d cases in both runs with the same query and gold", g.Cases)
	if len(g.Changed) > 0 {
		fmt.Fprintf(&b, "; %d changed, left out: %s", len(g.Changed), strings.Join(g.Changed, ", "))
	}
	b.WriteString("\n")
	for _, s := range g.Systems {
		verdict := "ok"
		if len(s.Regressions) > 0 {
			verdict = "REGRESSED"
		}
		fmt.Fprintf(&b, "%-28s %-9s %s", s.Model, s.Status, verdict)
		if s.OldDecision != "" || s.NewDecision != "" {
			fmt.Fprintf(&b, " (decision %s → %s)", dash(s.OldDecision), dash(s.NewDecision))
		}
		b.WriteString("\n")
		for _, t := range s.Tests {
			fmt.Fprintf(&b, "  %-10s %.4f → %.4f  %+.4f [%+.4f, %+.4f]  p=%.4f Holm p=%.4f  n=%d\n", t.Measure, float64(t.Baseline), float64(t.Model),
				float64(t.Diff), float64(t.Low), float64(t.High), float64(t.P), float64(t.PHolm), t.N)
		}
		if s.Latency != nil {
			fmt.Fprintf(&b, "  latency    %.2fx [%.2fx, %.2fx] new/old (not gated: it moves with the machines' load)\n", float64(s.Latency.Ratio), float64(s.Latency.Low), float64(s.Latency.High))
		}
		if s.Tokens != nil {
			fmt.Fprintf(&b, "  tokens@10  %.2fx [%.2fx, %.2fx] new/old (%.0f → %.0f)\n", float64(s.Tokens.Ratio), float64(s.Tokens.Low), float64(s.Tokens.High), float64(s.Tokens.BaselineMean), float64(s.Tokens.Mean))
		}
		for _, r := range s.Regressions {
			fmt.Fprintf(&b, "  regression: %s\n", r)
		}
	}
	return b.String()
}
