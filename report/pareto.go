package report

import (
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
)

// ParetoCostTolerance is how far apart two single cost measurements (peak
// RSS, cold index time) must be for one to beat the other: more than this
// ratio. Latency, measured on every case, is compared with its paired
// test instead.
const ParetoCostTolerance = 1.25

// Front is one verdict across all systems: the systems no other beats on
// quality and cost together. A system beats another when it is not
// significantly worse on any of quality (the primary measure, paired
// bootstrap at α), latency (paired per-case ratio, its interval), peak RSS
// and cold index time (each more than ParetoCostTolerance apart), and
// better on at least one. Systems on the front that no dimension tells
// apart are ties, and stated so. A failed or partially failed system is
// left out (its zeros are not scores).
type Front struct {
	Systems []FrontRow `json:"systems"`
	// Left lists the systems not considered, with why.
	Left []string `json:"left_out,omitempty"`
}

// FrontRow is one system's place.
type FrontRow struct {
	Model     string   `json:"model"`
	OnFront   bool     `json:"on_front"`
	BeatenBy  []string `json:"beaten_by,omitempty"`
	TiedWith  []string `json:"tied_with,omitempty"`
	Unchecked []string `json:"unchecked,omitempty"` // cost dimensions without a value
}

// cmp3 is −1 (a better), +1 (b better) or 0 (not told apart).
type cmp3 int

// compare compares a with b on each dimension; unchecked names the
// dimensions a value was missing on.
func (s *Summary) compare(a, b *SystemSummary) (dims map[string]cmp3, unchecked []string) {
	g := s.cfg.Rules
	dims = map[string]cmp3{}
	ac, bc := s.cols[a.Name], s.cols[b.Name]
	var qa, qb, la, lb []float64
	for i := range s.tasks {
		if ac.present[i] && bc.present[i] && !ac.failed[i] && !bc.failed[i] {
			qa, qb = append(qa, ac.vals[g.Primary][i]), append(qb, bc.vals[g.Primary][i])
			la, lb = append(la, 0), append(lb, logRatio(bc.lat[i], ac.lat[i]))
		}
	}
	st := g.Stats()
	// Quality: b − a on the primary measure.
	q := st.Paired(qa, qb)
	lower := s.lower(g.Primary)
	switch {
	case st.Significant(q.P) && q.Low > 0:
		dims["quality"] = 1
	case st.Significant(q.P) && q.High < 0:
		dims["quality"] = -1
	}
	if lower {
		dims["quality"] = -dims["quality"]
	}
	// Latency: log(b/a) per case; lower is better.
	l := st.Paired(la, lb)
	switch {
	case l.N > 0 && l.Low > 0:
		dims["latency"] = -1
	case l.N > 0 && l.High < 0:
		dims["latency"] = 1
	}
	single := func(name string, av, bv float64, aok, bok bool) {
		if !aok || !bok || av <= 0 || bv <= 0 {
			unchecked = append(unchecked, name)
			return
		}
		switch {
		case av > bv*ParetoCostTolerance:
			dims[name] = 1
		case bv > av*ParetoCostTolerance:
			dims[name] = -1
		}
	}
	single("memory", float64(a.PeakRSSMB), float64(b.PeakRSSMB), true, true)
	ai, aok := coldIndex(a)
	bi, bok := coldIndex(b)
	single("index", ai, bi, aok, bok)
	return dims, unchecked
}

// pareto fills s.Front.
func (s *Summary) pareto() {
	var ran []*SystemSummary
	s.Front = &Front{}
	for _, name := range s.order {
		ss := s.system(name)
		if ss.Status != campaignfmt.StatusOK {
			s.Front.Left = append(s.Front.Left, fmt.Sprintf("%s (%s)", name, ss.Status))
			continue
		}
		ran = append(ran, ss)
	}
	if len(ran) == 0 || s.cfg.Rules.Primary == "" {
		s.Front = nil
		return
	}
	rows := make([]FrontRow, len(ran))
	for i := range ran {
		rows[i].Model = ran[i].Name
	}
	for i := range ran {
		for j := i + 1; j < len(ran); j++ {
			dims, unchecked := s.compare(ran[i], ran[j])
			better, worse := false, false // i against j
			for _, d := range dims {
				better = better || d < 0
				worse = worse || d > 0
			}
			switch {
			case better && !worse:
				rows[j].BeatenBy = append(rows[j].BeatenBy, ran[i].Name)
			case worse && !better:
				rows[i].BeatenBy = append(rows[i].BeatenBy, ran[j].Name)
			case !better && !worse:
				rows[i].TiedWith = append(rows[i].TiedWith, ran[j].Name)
				rows[j].TiedWith = append(rows[j].TiedWith, ran[i].Name)
			}
			for _, u := range unchecked {
				rows[i].Unchecked, rows[j].Unchecked = appendOnce(rows[i].Unchecked, u), appendOnce(rows[j].Unchecked, u)
			}
		}
	}
	for i := range rows {
		rows[i].OnFront = len(rows[i].BeatenBy) == 0
	}
	s.Front.Systems = rows
}

func appendOnce(xs []string, x string) []string {
	for _, y := range xs {
		if y == x {
			return xs
		}
	}
	return append(xs, x)
}

// Names returns the systems on the front, in run order.
func (f *Front) Names() []string {
	if f == nil {
		return nil
	}
	var out []string
	for _, r := range f.Systems {
		if r.OnFront {
			out = append(out, r.Model)
		}
	}
	return out
}

// String is the front in one line: "a, b (tied: a = b)".
func (f *Front) String() string {
	names := f.Names()
	if len(names) == 0 {
		return "no system ran without failures"
	}
	on := map[string]bool{}
	for _, n := range names {
		on[n] = true
	}
	var ties []string
	for _, r := range f.Systems {
		for _, t := range r.TiedWith {
			if r.OnFront && on[t] && r.Model < t {
				ties = append(ties, r.Model+" = "+t)
			}
		}
	}
	out := strings.Join(names, ", ")
	if len(ties) > 0 {
		out += " (tied: " + strings.Join(ties, "; ") + ")"
	}
	return out
}
