package report

import (
	"fmt"
	"strconv"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/metrics"
)

// Regression kinds, in the order regressions.md lists them.
const (
	LostTopResult     = "lost_top_result"      // the baseline's rank-1 hit was relevant, the model's is not
	FirstRelevantDown = "first_relevant_lower" // the first relevant hit moved down (or out of the list)
	EasySymbolMissed  = "easy_symbol_lookup"   // an easy symbol lookup without a relevant hit in the top 5
	WeakGroup         = "weak_group"           // a repository or intent where the primary measure trails the baseline
)

// Regression is one case (or group) where a model does worse than it
// should.
type Regression struct {
	Model  string `json:"model"`
	Kind   string `json:"kind"`
	Task   string `json:"task,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Intent string `json:"intent,omitempty"`
	Detail string `json:"detail"`
}

func rankText(r int) string {
	if r == 0 {
		return "none"
	}
	return strconv.Itoa(r)
}

// regressions fills s.Regressions, model by model in run order.
func (s *Summary) regressions() {
	g := s.cfg.Rules
	base := s.Baseline
	bc := s.cols[base]
	thr := 0.05
	for _, r := range g.Gains {
		if r.Measure == g.Primary {
			thr = r.Threshold
		}
	}
	for _, name := range s.order {
		c := s.cols[name]
		if c == nil || s.system(name).Status == campaignfmt.StatusFailed {
			continue // a failed system's cases are failures, not regressions
		}
		for i, t := range s.tasks {
			if !c.present[i] {
				continue
			}
			if bc != nil && name != base && bc.present[i] {
				if bc.top1[i] && !c.top1[i] {
					s.Regressions = append(s.Regressions, Regression{Model: name, Kind: LostTopResult, Task: t.ID, Repo: t.Repo, Intent: t.Intent,
						Detail: fmt.Sprintf("%s ranks a relevant result first; %s's first relevant is at %s", base, name, rankText(c.first[i]))})
				} else if bf, cf := bc.first[i], c.first[i]; bf > 0 && (cf == 0 || cf > bf) {
					s.Regressions = append(s.Regressions, Regression{Model: name, Kind: FirstRelevantDown, Task: t.ID, Repo: t.Repo, Intent: t.Intent,
						Detail: fmt.Sprintf("first relevant %d → %s", bf, rankText(cf))})
				}
			}
			if t.Intent == "symbol_lookup" && t.Difficulty == "easy" && (c.first[i] == 0 || c.first[i] > 5) {
				s.Regressions = append(s.Regressions, Regression{Model: name, Kind: EasySymbolMissed, Task: t.ID, Repo: t.Repo, Intent: t.Intent,
					Detail: fmt.Sprintf("first relevant at %s: %q", rankText(c.first[i]), t.Query)})
			}
		}
		if name == base || bc == nil {
			continue
		}
		for _, rows := range []struct {
			list  []GroupRow
			field string
		}{{s.PerRepo, "repo"}, {s.PerIntent, "intent"}} {
			bm := map[string]GroupRow{}
			for _, r := range rows.list {
				if r.Model == base {
					bm[r.Group] = r
				}
			}
			for _, r := range rows.list {
				if r.Model != name {
					continue
				}
				b := bm[r.Group]
				rv, rok := r.Values[g.Primary]
				bv, bok := b.Values[g.Primary]
				if !rok || !bok {
					continue // not measured on one side: no loss to see
				}
				diff := float64(rv - bv)
				if s.lower(g.Primary) {
					diff = -diff // a rise is the loss
				}
				if diff > -thr {
					continue
				}
				// A group is weak only with enough cases to say so, or a
				// paired loss significant on its own few cases (a sign-flip
				// randomization test: exact enough at n = 3, where no
				// p-value below 0.25 exists, unlike the bootstrap's).
				p, perm := s.groupTest(base, name, rows.field, r.Group, g.Primary)
				sig := g.Stats().Significant(perm) && (p.High < 0 && !s.lower(g.Primary) || p.Low > 0 && s.lower(g.Primary))
				if r.N < g.MinGroupCases && !sig {
					continue
				}
				why := fmt.Sprintf("%d cases ≥ %d", r.N, g.MinGroupCases)
				if sig {
					why = "a significant paired loss"
				}
				reg := Regression{Model: name, Kind: WeakGroup,
					Detail: fmt.Sprintf("%s %.4f vs %s %.4f on %d cases (paired diff %+.4f, 95%% CI %+.4f..%+.4f, randomization p=%.4f; %s)", g.Primary, float64(r.Values[g.Primary]), base,
						float64(b.Values[g.Primary]), r.N, p.MeanDiff, p.Low, p.High, perm, why)}
				if rows.field == "repo" {
					reg.Repo = r.Group
				} else {
					reg.Intent = r.Group
				}
				s.Regressions = append(s.Regressions, reg)
			}
		}
	}
}

// groupTest is the paired bootstrap of cand against base on measure over
// the cases of one repository or intent both ran, with the paired
// randomization test's p-value.
func (s *Summary) groupTest(base, cand, field, group, measure string) (metrics.Paired, float64) {
	bc, cc := s.cols[base], s.cols[cand]
	var a, b []float64
	if bc.vals[measure] == nil || cc.vals[measure] == nil {
		return metrics.Paired{P: 1}, 1 // not measured: nothing to test
	}
	for i, t := range s.tasks {
		key := t.Repo
		if field == "intent" {
			key = t.Intent
		}
		if key == group && bc.present[i] && cc.present[i] {
			a, b = append(a, bc.vals[measure][i]), append(b, cc.vals[measure][i])
		}
	}
	st := s.cfg.Rules.Stats()
	return st.Paired(a, b), st.Permutation(a, b)
}
