package report

import (
	"fmt"
	"strconv"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
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
				if diff := float64(r.Values[g.Primary] - b.Values[g.Primary]); diff <= -thr {
					reg := Regression{Model: name, Kind: WeakGroup,
						Detail: fmt.Sprintf("%s %.4f vs %s %.4f on %d cases", g.Primary, float64(r.Values[g.Primary]), base, float64(b.Values[g.Primary]), r.N)}
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
}
