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
	j := summarize(qrels, lvl)
	out := make([]float64, len(ms))
	scoreGrades(grades, &j, ms, lvl, out)
	return out, nil
}

// unjudged is the grade of a retrieved document that the judgments do not
// mention (trec_eval's RELVALUE_NONPOOL).
const unjudged = -1

func gradeOf(qrels map[string]int, doc string) int {
	if g, ok := qrels[doc]; ok {
		return g
	}
	return unjudged
}

// judged is what one query's judgments contribute, independent of the run.
type judged struct {
	numRel   int       // judged documents with grade ≥ the relevance level
	maxGrade int       // highest grade judged (0 when none is positive)
	ideal    []float64 // positive grades, highest first: the ideal ranking's gains
}

func summarize(qrels map[string]int, lvl int) judged {
	var j judged
	for _, g := range qrels {
		if g >= lvl {
			j.numRel++
		}
		if g > 0 {
			j.ideal = append(j.ideal, float64(g))
			j.maxGrade = max(j.maxGrade, g)
		}
	}
	slices.SortFunc(j.ideal, func(a, b float64) int { return cmp.Compare(b, a) })
	return j
}

// discount returns log2(i+2), the discount of the document at 0-based
// position i.
func discount(i int) float64 { return math.Log2(float64(i + 2)) }

// scoreGrades computes ms for a ranked list given as the grades of its
// documents in rank order, writing one value per measure into out. The
// arithmetic follows trec_eval's order of operations so that values agree
// to the last printed digit.
func scoreGrades(grades []int, j *judged, ms []Measure, lvl int, out []float64) {
	n := len(grades)
	for mi, m := range ms {
		k := n
		if m.K > 0 {
			k = min(m.K, n)
		}
		var v float64
		switch m.Name {
		case Hit:
			for i := range k {
				if grades[i] >= lvl {
					v = 1
					break
				}
			}
		case Coverage:
			for _, g := range grades {
				if g >= lvl {
					v = 1
					break
				}
			}
		case Recall:
			if j.numRel > 0 {
				v = float64(countRel(grades[:k], lvl)) / float64(j.numRel)
			}
		case Precision:
			switch {
			case m.K > 0:
				v = float64(countRel(grades[:k], lvl)) / float64(m.K)
			case n > 0:
				v = float64(countRel(grades, lvl)) / float64(n)
			}
		case MRR:
			for i := range k {
				if grades[i] >= lvl {
					v = 1 / float64(i+1)
					break
				}
			}
		case NDCG:
			var dcg, idcg float64
			for i := range k {
				if g := grades[i]; g > 0 {
					dcg += float64(g) / discount(i)
				}
			}
			ik := len(j.ideal)
			if m.K > 0 {
				ik = min(m.K, ik)
			}
			for i := range ik {
				idcg += j.ideal[i] / discount(i)
			}
			if idcg > 0 {
				v = dcg / idcg
			}
		case MAP:
			if j.numRel > 0 {
				var sum float64
				rel := 0
				for i := range k {
					if grades[i] >= lvl {
						rel++
						sum += float64(rel) / float64(i+1)
					}
				}
				v = sum / float64(j.numRel)
			}
		case RPrec:
			if r := min(n, j.numRel); r > 0 {
				v = float64(countRel(grades[:r], lvl)) / float64(j.numRel)
			}
		case PassNeedle:
			if n > 0 && grades[0] >= lvl && grades[0] == j.maxGrade {
				v = 1
			}
		}
		out[mi] = v
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
