package metrics

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Options tunes how judgments are read.
type Options struct {
	// RelLevel is the lowest grade that counts as relevant (trec_eval -l).
	// The zero value means 1. nDCG ignores it: its gain is the grade.
	RelLevel int
	// Task is handed to every measure as Ranking.Task: what a measure
	// another package supplies reads beyond the grades (the judge's
	// library_resolution reads a judge.Resolution). The built-in measures
	// ignore it.
	Task any
	// Tokens holds the tokens of each ranked document, rank 1 first, for
	// the token measures (budget.go); nil for none.
	Tokens []int
}

func (o Options) relLevel() int {
	if o.RelLevel == 0 {
		return 1
	}
	return o.RelLevel
}

// Result is one retrieved document of a query with the system's score.
type Result struct {
	DocID string
	Score float64
}

// SortRun orders rs the way trec_eval ranks a query's results: by score
// descending, ties broken by document id descending (byte-wise comparison,
// as C's strcmp does). The rank a run file states is ignored by trec_eval
// and so by this order. NaN scores sort after every number.
func SortRun(rs []Result) {
	slices.SortFunc(rs, compareResults)
}

func compareResults(a, b Result) int {
	if c := cmp.Compare(b.Score, a.Score); c != 0 {
		return c
	}
	return strings.Compare(b.DocID, a.DocID)
}

// Score computes each measure of ms for one query: ranked holds the
// retrieved document ids in their final order (rank 1 first; see SortRun),
// qrels the query's judgments (document id → grade; a document missing from
// qrels is non-relevant, negative grades mean judged-as-unjudged as in
// trec_eval). The values come back in the order of ms. A document id that
// appears twice in ranked, or an unknown measure, is an error.
func Score(ranked []string, qrels map[string]int, ms []Measure, opt Options) ([]float64, error) {
	for _, m := range ms {
		if err := m.validate(); err != nil {
			return nil, err
		}
	}
	seen := make(map[string]int, len(ranked))
	grades := make([]int, len(ranked))
	for i, d := range ranked {
		if j, dup := seen[d]; dup {
			return nil, fmt.Errorf("document %q retrieved twice (ranks %d and %d)", d, j+1, i+1)
		}
		seen[d] = i
		grades[i] = gradeOf(qrels, d)
	}
	lvl := opt.relLevel()
	r := Ranking{Grades: grades, Level: lvl, Judged: summarize(qrels, lvl), Task: opt.Task, Tokens: opt.Tokens}
	out := make([]float64, len(ms))
	r.score(ms, out)
	return out, nil
}

// Unjudged is the grade of a retrieved document that the judgments do not
// mention (trec_eval's RELVALUE_NONPOOL).
const Unjudged = -1

func gradeOf(qrels map[string]int, doc string) int {
	if g, ok := qrels[doc]; ok {
		return g
	}
	return Unjudged
}

// Judged is what one query's judgments contribute, independent of the run.
type Judged struct {
	NumRel    int       // judged documents with grade ≥ the relevance level
	NumNonRel int       // judged documents with a grade from 0 to below the level
	MaxGrade  int       // highest grade judged (0 when none is positive)
	Ideal     []float64 // positive grades, highest first: the ideal ranking's gains
}

// add counts one judged document's grade g at relevance level lvl; its
// gain goes to the end of Ideal (see sortIdeal).
func (j *Judged) add(g, lvl int) {
	if g >= lvl {
		j.NumRel++
	} else if g >= 0 {
		j.NumNonRel++
	}
	if g > 0 {
		j.Ideal = append(j.Ideal, float64(g))
		j.MaxGrade = max(j.MaxGrade, g)
	}
}

// sortIdeal puts the gains of Ideal highest first. Gains that are all
// whole grades from 1 to maxCountedGain (as add makes them) are counted
// instead of sorted: a query with hundreds of judgments would otherwise
// spend more on this sort than on its ranking.
func (j *Judged) sortIdeal() {
	var counts [maxCountedGain + 1]int32
	for _, v := range j.Ideal {
		if !(v >= 1 && v <= maxCountedGain && v == math.Trunc(v)) {
			slices.SortFunc(j.Ideal, func(a, b float64) int { return cmp.Compare(b, a) })
			return
		}
		counts[int(v)]++
	}
	k := 0
	for g := maxCountedGain; g >= 1; g-- {
		for range counts[g] {
			j.Ideal[k] = float64(g)
			k++
		}
	}
}

// maxCountedGain is the highest gain sortIdeal counts.
const maxCountedGain = 64

func summarize(qrels map[string]int, lvl int) Judged {
	var j Judged
	for _, g := range qrels {
		j.add(g, lvl)
	}
	j.sortIdeal()
	return j
}

// Ranking is one query's ranked list as a measure (Def.Score) sees it.
type Ranking struct {
	// Grades holds the grade of each ranked document, rank 1 first
	// (Unjudged for a document the judgments do not mention).
	Grades []int
	// Level is the lowest relevant grade (Options.RelLevel).
	Level int
	Judged
	// Task is Options.Task.
	Task any
	// Tokens is Options.Tokens.
	Tokens []int
	// relRanks caches RelevantRanks (relRanksSet: computed).
	relRanks    []int32
	relRanksSet bool
}

// RelevantRanks returns the 1-based ranks of the relevant documents
// (grade ≥ Level) in rank order, computed on the first call and kept for
// the Ranking's other measures: a measure at many cutoffs can read them
// instead of walking the whole list at each. Grades must not change
// after the first call.
func (r *Ranking) RelevantRanks() []int32 {
	if !r.relRanksSet {
		r.relRanksSet = true
		for i, g := range r.Grades {
			if g >= r.Level {
				r.relRanks = append(r.relRanks, int32(i+1))
			}
		}
	}
	return r.relRanks
}

// cut returns the number of ranked documents a measure at cutoff k looks
// at: k, or the whole list when k is 0 or beyond it.
func (r *Ranking) cut(k int) int {
	if k > 0 {
		return min(k, len(r.Grades))
	}
	return len(r.Grades)
}

// firstRelevant returns the 0-based rank of the first relevant document
// within the first n, or -1.
func (r *Ranking) firstRelevant(n int) int {
	for i, g := range r.Grades[:n] {
		if g >= r.Level {
			return i
		}
	}
	return -1
}

// discount returns log2(i+2), the discount of the document at 0-based
// position i.
func discount(i int) float64 {
	if i >= 0 && i < len(discounts) {
		return discounts[i]
	}
	return math.Log2(float64(i + 2))
}

// discounts holds log2(i+2) for the first ranks: the same values
// (math.Log2 of the same argument), looked up instead of computed for
// every relevant document and ideal position of every nDCG cutoff.
var discounts = func() []float64 {
	d := make([]float64, 4096)
	for i := range d {
		d[i] = math.Log2(float64(i + 2))
	}
	return d
}()

// Discount is log2(i+2), nDCG's discount of the document at 0-based rank
// i (trec_eval's log2(rank+1)), from a table for the first ranks.
func Discount(i int) float64 { return discount(i) }

// score computes ms for r, one value per measure into out. The measures'
// arithmetic follows trec_eval's order of operations so that values agree
// to the last printed digit.
func (r *Ranking) score(ms []Measure, out []float64) {
	for i, m := range ms {
		out[i] = m.Score(r, m.K)
	}
}

func countRel(grades []int, lvl int) int {
	c := 0
	for _, g := range grades {
		if g >= lvl {
			c++
		}
	}
	return c
}
