package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
)

// What tells two systems apart on a cost by default (DecisionRules'
// Pareto, recorded with the rules; a zero field is the default): a
// difference that a rerun under another load, or a warm rerun, would not
// undo (docs/campaigns.md, "Pareto set"). Latency, measured on every case: the whole 95% interval of the
// paired per-case ratio beyond ParetoCostTolerance, and medians at least
// ParetoLatencyFloorMS apart (a significant 1.7× between two systems that
// answer in 0.2 ms came and went with the load). Cold index time (a
// recorded build when the index was reused): more than ParetoCostTolerance
// and ParetoIndexFloorSeconds apart. Peak RSS: more than
// ParetoMemoryTolerance and ParetoMemoryFloorMB apart — a warm run of a
// dense system peaks up to 1.8× lower than its cold run (it embeds no
// corpus), a structural difference a ratio of 1.25 would turn into a
// verdict.
const (
	ParetoCostTolerance     = 1.25
	ParetoLatencyFloorMS    = 1.0
	ParetoIndexFloorSeconds = 1.0
	ParetoMemoryTolerance   = 2.0
	ParetoMemoryFloorMB     = 64.0
)

// paretoRules is g's Pareto tolerances, each zero field the default.
func (g DecisionRules) paretoRules() campaignfmt.ParetoRules {
	p := g.Pareto
	or := func(v *float64, def float64) {
		if *v == 0 {
			*v = def
		}
	}
	or(&p.CostTolerance, ParetoCostTolerance)
	or(&p.LatencyFloorMS, ParetoLatencyFloorMS)
	or(&p.IndexFloorSeconds, ParetoIndexFloorSeconds)
	or(&p.MemoryTolerance, ParetoMemoryTolerance)
	or(&p.MemoryFloorMB, ParetoMemoryFloorMB)
	return p
}

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
	measured := ac.vals[g.Primary] != nil && bc.vals[g.Primary] != nil
	if !measured {
		unchecked = append(unchecked, "quality")
	}
	for i := range s.tasks {
		if ac.present[i] && bc.present[i] && !ac.failed[i] && !bc.failed[i] {
			if measured {
				qa, qb = append(qa, ac.vals[g.Primary][i]), append(qb, bc.vals[g.Primary][i])
			}
			la, lb = append(la, 0), append(lb, logRatio(bc.lat[i], ac.lat[i]))
		}
	}
	st := g.Stats()
	// Quality: b − a on the primary measure.
	q := st.Paired(qa, qb)
	lower := s.lower(g.Primary)
	switch {
	case !measured || q.N == 0:
	case st.Significant(q.P) && q.Low > 0:
		dims["quality"] = 1
	case st.Significant(q.P) && q.High < 0:
		dims["quality"] = -1
	}
	if lower {
		dims["quality"] = -dims["quality"]
	}
	// Latency: log(b/a) per case; lower is better.
	// It tells two systems apart only when the whole interval of the ratio
	// lies beyond ParetoCostTolerance and the medians are
	// ParetoLatencyFloorMS apart.
	l := st.Paired(la, lb)
	pr := g.paretoRules()
	margin := math.Log(pr.CostTolerance)
	apart := math.Abs(float64(a.LatencyP50MS-b.LatencyP50MS)) >= pr.LatencyFloorMS
	switch {
	case apart && l.N > 0 && l.Low > margin:
		dims["latency"] = -1
	case apart && l.N > 0 && l.High < -margin:
		dims["latency"] = 1
	}
	single := func(name string, av, bv float64, aok, bok bool, tol, floor float64) {
		if !aok || !bok || av <= 0 || bv <= 0 {
			unchecked = append(unchecked, name)
			return
		}
		if math.Abs(av-bv) < floor {
			return
		}
		switch {
		case av > bv*tol:
			dims[name] = 1
		case bv > av*tol:
			dims[name] = -1
		}
	}
	single("memory", float64(a.PeakRSSMB), float64(b.PeakRSSMB), true, true, pr.MemoryTolerance, pr.MemoryFloorMB)
	ai, aok := coldIndex(a)
	bi, bok := coldIndex(b)
	if same, _ := sameBuildClass(a, b); !same {
		aok = false // build times of two CPU classes do not compare
	}
	single("index", ai, bi, aok, bok, pr.CostTolerance, pr.IndexFloorSeconds)
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
