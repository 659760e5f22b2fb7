package metrics

import (
	"fmt"
	"strconv"
	"strings"
)

// A Def is what a measure is, as a value (the shape of x/perf benchmath's
// Assumption): its name, trec_eval's names for it, the cutoffs it takes,
// which direction is better, and how it scores one ranking. Builtin
// returns this package's; another package supplies its own as a Def (the
// judge's library_resolution), and every consumer — Score, ParseMeasure,
// TrecName, the benchmark's units, the leaderboard's order — reads the
// value, never a name.
type Def struct {
	// Name is the measure in this package's spelling ("hit", "P",
	// "pass@1-needle"); a measure at cutoff k is written Name@k.
	Name string
	// Label is the name people read in a table or a benchmark unit
	// ("nDCG", "MRR"); "" means Name.
	Label string
	// Cut is its kind: which cutoffs it takes.
	Cut Cut
	// TrecCut is trec_eval's prefix of the measure at a cutoff
	// ("success_": success_10), TrecWhole its name without one
	// ("recip_rank"); "" when trec_eval has no measure with these
	// semantics.
	TrecCut, TrecWhole string
	// Lower reports that lower values are better (none of the built-in
	// measures: every one is a rate of success).
	Lower bool
	// Score returns the measure of r at cutoff k (0: the whole list).
	// nil: a name whose recorded values can be averaged and compared but
	// not computed here (ParseRecorded).
	Score func(r *Ranking, k int) float64
}

// Cut is the kind of a measure: whether it is defined at a cutoff, on the
// whole list, or both.
type Cut uint8

const (
	AtCutoff  Cut = 1 << iota // name@k, k > 0
	WholeList                 // name alone: the whole ranked list
	AnyCut    = AtCutoff | WholeList
)

// At returns the measure d at cutoff k (0: the whole list).
func (d *Def) At(k int) Measure { return Measure{d, k} }

// label is d.Label, or d.Name when it has none.
func (d *Def) label() string {
	if d.Label != "" {
		return d.Label
	}
	return d.Name
}

// A Measure is one per-query measure at one cutoff: a Def and K (0 means
// the whole ranked list). Measures are comparable: two are equal when they
// are the same Def at the same cutoff. See the package documentation for
// what each built-in computes.
type Measure struct {
	*Def
	K int
}

// Equal reports whether m and o are the same Def at the same cutoff (what
// == says; go-cmp calls it, as it cannot compare a Def's Score).
func (m Measure) Equal(o Measure) bool { return m == o }

// Builtin returns this package's measures, in the order a reader expects
// them (the leaderboard's and report's column order): hit, recall, P, mrr,
// map, ndcg, rprec, coverage, pass@1-needle.
func Builtin() []*Def {
	return []*Def{Hit, Recall, Precision, MRR, MAP, NDCG, RPrec, Coverage, PassNeedle}
}

// The built-in measures (Builtin).
var (
	Hit = &Def{Name: "hit", Cut: AnyCut, TrecCut: "success_", Score: func(r *Ranking, k int) float64 {
		return boolValue(r.firstRelevant(r.cut(k)) >= 0)
	}}
	Recall = &Def{Name: "recall", Cut: AnyCut, TrecCut: "recall_", TrecWhole: "set_recall", Score: func(r *Ranking, k int) float64 {
		if r.NumRel == 0 {
			return 0
		}
		return float64(countRel(r.Grades[:r.cut(k)], r.Level)) / float64(r.NumRel)
	}}
	Precision = &Def{Name: "P", Cut: AnyCut, TrecCut: "P_", TrecWhole: "set_P", Score: func(r *Ranking, k int) float64 {
		switch n := len(r.Grades); {
		case k > 0:
			return float64(countRel(r.Grades[:r.cut(k)], r.Level)) / float64(k)
		case n > 0:
			return float64(countRel(r.Grades, r.Level)) / float64(n)
		}
		return 0
	}}
	MRR = &Def{Name: "mrr", Label: "MRR", Cut: AnyCut, TrecWhole: "recip_rank", Score: func(r *Ranking, k int) float64 {
		if i := r.firstRelevant(r.cut(k)); i >= 0 {
			return 1 / float64(i+1)
		}
		return 0
	}}
	MAP = &Def{Name: "map", Label: "MAP", Cut: AnyCut, TrecCut: "map_cut_", TrecWhole: "map", Score: func(r *Ranking, k int) float64 {
		if r.NumRel == 0 {
			return 0
		}
		var sum float64
		rel := 0
		for i, g := range r.Grades[:r.cut(k)] {
			if g >= r.Level {
				rel++
				sum += float64(rel) / float64(i+1)
			}
		}
		return sum / float64(r.NumRel)
	}}
	NDCG = &Def{Name: "ndcg", Label: "nDCG", Cut: AnyCut, TrecCut: "ndcg_cut_", TrecWhole: "ndcg", Score: func(r *Ranking, k int) float64 {
		var dcg, idcg float64
		for i, g := range r.Grades[:r.cut(k)] {
			if g > 0 {
				dcg += float64(g) / discount(i)
			}
		}
		ik := len(r.Ideal)
		if k > 0 {
			ik = min(k, ik)
		}
		for i := range ik {
			idcg += r.Ideal[i] / discount(i)
		}
		if idcg > 0 {
			return dcg / idcg
		}
		return 0
	}}
	RPrec = &Def{Name: "rprec", Cut: WholeList, TrecWhole: "Rprec", Score: func(r *Ranking, _ int) float64 {
		if n := min(len(r.Grades), r.NumRel); n > 0 {
			return float64(countRel(r.Grades[:n], r.Level)) / float64(r.NumRel)
		}
		return 0
	}}
	Coverage = &Def{Name: "coverage", Cut: WholeList, Score: func(r *Ranking, _ int) float64 {
		return boolValue(r.firstRelevant(len(r.Grades)) >= 0)
	}}
	PassNeedle = &Def{Name: "pass@1-needle", Cut: WholeList, Score: func(r *Ranking, _ int) float64 {
		return boolValue(len(r.Grades) > 0 && r.Grades[0] >= r.Level && r.Grades[0] == r.MaxGrade)
	}}
)

func boolValue(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// ParseMeasure reads a measure in this package's spelling ("hit@10",
// "recall@5", "P@5", "mrr", "mrr@10", "ndcg@10", "ndcg", "map", "map@10",
// "rprec", "pass@1-needle", "coverage"; "hit", "recall" and "P" without a
// cutoff mean the whole list) or in trec_eval's ("success_10", "recall_5",
// "P_5", "recip_rank", "ndcg_cut_10", "ndcg", "map", "map_cut_10", "Rprec",
// "set_P", "set_recall"). Cutoffs must be positive integers. It knows
// the Builtin measures.
func ParseMeasure(s string) (Measure, error) {
	return parse(s, Builtin())
}

// parse is ParseMeasure over defs.
func parse(s string, defs []*Def) (Measure, error) {
	for _, d := range defs {
		if d.TrecWhole != "" && s == d.TrecWhole || d.Cut&WholeList != 0 && s == d.Name {
			return d.At(0), nil
		}
	}
	for _, d := range defs {
		if rest, ok := strings.CutPrefix(s, d.TrecCut); ok && d.TrecCut != "" {
			k, err := parseCutoff(rest)
			if err != nil {
				return Measure{}, fmt.Errorf("measure %q: %w", s, err)
			}
			return d.At(k), nil
		}
	}
	name, cut, hasCut := strings.Cut(s, "@")
	var d *Def
	for _, c := range defs {
		if strings.EqualFold(name, c.Name) {
			d = c
			break
		}
	}
	switch {
	case d == nil:
		return Measure{}, fmt.Errorf("unknown measure %q", s)
	case !hasCut && d.Cut&WholeList == 0:
		return Measure{}, fmt.Errorf("measure %q needs a cutoff", s)
	case !hasCut:
		return d.At(0), nil
	case d.Cut&AtCutoff == 0:
		return Measure{}, fmt.Errorf("measure %q takes no cutoff", s)
	}
	k, err := parseCutoff(cut)
	if err != nil {
		return Measure{}, fmt.Errorf("measure %q: %w", s, err)
	}
	return d.At(k), nil
}

// ParseRecorded reads the name of a per-task value a result records: a
// measure ParseMeasure knows, or one another package computes in the same
// "name@k" spelling (the judge's library_resolution@1), which this package
// cannot score (its Def has no Score) but whose recorded values can still
// be averaged and compared. The name must be lower-case letters, digits and
// underscores, starting with a letter; the cutoff, when there is one, a
// positive integer.
func ParseRecorded(s string) (Measure, error) {
	if m, err := ParseMeasure(s); err == nil {
		return m, nil
	}
	if m, err := parse(s, TokenDefs()); err == nil {
		return m, nil
	}
	name, cut, hasCut := strings.Cut(s, "@")
	if name == "" || name[0] < 'a' || name[0] > 'z' || strings.IndexFunc(name, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_')
	}) >= 0 {
		return Measure{}, fmt.Errorf("unknown measure %q", s)
	}
	d := &Def{Name: name, Cut: AnyCut}
	if !hasCut {
		return d.At(0), nil
	}
	k, err := parseCutoff(cut)
	if err != nil {
		return Measure{}, fmt.Errorf("measure %q: %w", s, err)
	}
	return d.At(k), nil
}

func parseCutoff(s string) (int, error) {
	k, err := strconv.Atoi(s)
	if err != nil || k <= 0 || strings.HasPrefix(s, "+") {
		return 0, fmt.Errorf("cutoff %q is not a positive integer", s)
	}
	return k, nil
}

// String returns the measure in this package's spelling: "hit@10", "mrr",
// "ndcg@10", "pass@1-needle". It is what ParseMeasure reads back.
func (m Measure) String() string {
	if m.Def == nil {
		return ""
	}
	if m.K == 0 {
		return m.Name
	}
	return m.Name + "@" + strconv.Itoa(m.K)
}

// Label returns the measure as people read it in a table or a benchmark
// unit: "nDCG@10", "MRR", "hit@1".
func (m Measure) Label() string {
	if m.K == 0 {
		return m.label()
	}
	return m.label() + "@" + strconv.Itoa(m.K)
}

// TrecName returns trec_eval's name for the measure ("success_10",
// "recip_rank", "ndcg_cut_10", "Rprec", "set_P"…), or "" when trec_eval has
// no measure with these semantics (mrr@k, hit without a cutoff,
// pass@1-needle, coverage).
func (m Measure) TrecName() string {
	switch {
	case m.Def == nil:
		return ""
	case m.K > 0 && m.TrecCut != "":
		return m.TrecCut + strconv.Itoa(m.K)
	case m.K == 0:
		return m.TrecWhole
	}
	return ""
}

// validate reports whether m is a measure Score can compute.
func (m Measure) validate() error {
	switch {
	case m.Def == nil:
		return fmt.Errorf("measure without a definition")
	case m.Score == nil:
		return fmt.Errorf("unknown measure %q", m.Name)
	case m.K < 0:
		return fmt.Errorf("measure %s: negative cutoff %d", m.Name, m.K)
	case m.K > 0 && m.Cut&AtCutoff == 0:
		return fmt.Errorf("measure %s takes no cutoff", m.Name)
	case m.K == 0 && m.Cut&WholeList == 0:
		return fmt.Errorf("measure %s needs a cutoff", m.Name)
	}
	return nil
}
