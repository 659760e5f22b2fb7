package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/retrievalbench/retrievalbench/metrics"
)

// trec_eval's measures that only eval computes: those of its "official"
// set (its default) that package metrics has no use for elsewhere. They
// are metrics.Defs of this package (not in metrics.Builtin, so the
// harness, the leaderboard and ParseMeasure do not know them), scored by
// the same Evaluator, with trec_eval 10.0's arithmetic in its order.
var (
	// gmMap is trec_eval's gm_map: per query log(max(AP, 0.00001)); the
	// "all" value is exp of their mean (printTrec), and no per-query line
	// is printed.
	gmMap = &metrics.Def{Name: "gm_map", Cut: metrics.WholeList, TrecWhole: "gm_map", Score: func(r *metrics.Ranking, _ int) float64 {
		return math.Log(max(metrics.MAP.Score(r, 0), minGeoMean))
	}}
	// bpref is trec_eval's bpref: for each relevant document retrieved,
	// the fraction of the judged non-relevant ones (at most R of them)
	// ranked below it, averaged over the R relevant documents. It needs
	// the ranks of the judged non-relevant documents
	// (metrics.EvalOptions.AllJudged).
	bpref = &metrics.Def{Name: "bpref", Cut: metrics.WholeList, TrecWhole: "bpref", Score: func(r *metrics.Ranking, _ int) float64 {
		var v float64
		nonrel := 0
		for _, g := range r.Grades {
			switch {
			case g < 0: // not judged
			case g < r.Level:
				nonrel++
			case nonrel > 0:
				v += 1.0 - float64(min(nonrel, r.NumRel))/float64(min(r.NumNonRel, r.NumRel))
			default:
				v += 1.0
			}
		}
		if r.NumRel > 0 {
			v /= float64(r.NumRel)
		}
		return v
	}}
	// iprecAtRecall is trec_eval's iprec_at_recall at recall K/100 (K from
	// 0 to 100; trec_eval's default cutoffs are 0.0, 0.1, …, 1.0): the
	// highest precision at any rank from the one where the relevant
	// documents retrieved reach round(K/100 × R) on.
	iprecAtRecall = &metrics.Def{Name: "iprec_at_recall", Cut: metrics.AnyCut, Score: func(r *metrics.Ranking, k int) float64 {
		return iprec(r, k, 0)
	}}
	// iprecAtRecallJ is iprecAtRecall under -J, where a query can have no
	// results left: trec_eval divides 0 by 0 there. (Without -J, a judged
	// query without results is ranked by trec_eval -c as one unjudged
	// document, whose precision is 0.)
	iprecAtRecallJ = &metrics.Def{Name: "iprec_at_recall", Cut: metrics.AnyCut, Score: func(r *metrics.Ranking, k int) float64 {
		return iprec(r, k, math.NaN())
	}}
)

// iprec is iprec_at_recall at recall k/100, with the value empty when
// nothing is ranked.
func iprec(r *metrics.Ranking, k int, empty float64) float64 {
	numRet := len(r.Grades)
	relRet := 0
	for _, g := range r.Grades {
		if g >= r.Level {
			relRet++
		}
	}
	cut := int(math.Round(float64(k) / 100 * float64(r.NumRel)))
	if cut > relRet {
		return 0
	}
	if numRet == 0 {
		return empty
	}
	best := float64(relRet) / float64(numRet)
	relSoFar := relRet
	for i := numRet; i > 0 && relSoFar > 0; i-- {
		if p := float64(relSoFar) / float64(i); best < p {
			best = p
		}
		if r.Grades[i-1] >= r.Level {
			if relSoFar == cut {
				return best
			}
			relSoFar--
		}
	}
	return best
}

// minGeoMean is trec_eval's MIN_GEO_MEAN.
const minGeoMean = .00001

// iprecCutoffs are trec_eval's default iprec_at_recall cutoffs, in
// hundredths.
var iprecCutoffs = []int{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100}

// trecOnly returns the eval-only measure trec_eval names name ("gm_map",
// "bpref", "iprec_at_recall"), expanded to its default cutoffs.
func trecOnly(name string, hasParams, judgedOnly bool) ([]metrics.Measure, bool, error) {
	switch name {
	case "gm_map", "bpref":
		d := gmMap
		if name == "bpref" {
			d = bpref
		}
		if hasParams {
			return nil, true, fmt.Errorf("measure %s takes no parameters", name)
		}
		return []metrics.Measure{d.At(0)}, true, nil
	case "iprec_at_recall":
		if hasParams {
			return nil, true, fmt.Errorf("measure %s: only its default recall levels (0.0, 0.1, …, 1.0) are supported", name)
		}
		d := iprecAtRecall
		if judgedOnly {
			d = iprecAtRecallJ
		}
		var ms []metrics.Measure
		for _, k := range iprecCutoffs {
			ms = append(ms, d.At(k))
		}
		return ms, true, nil
	}
	return nil, false, nil
}

// trecPrintName is the measure's name in trec_eval's output.
func trecPrintName(m metrics.Measure) string {
	if m.Def == iprecAtRecall || m.Def == iprecAtRecallJ {
		return "iprec_at_recall_" + strconv.FormatFloat(float64(m.K)/100, 'f', 2, 64)
	}
	if name := m.TrecName(); name != "" {
		return name
	}
	return m.String()
}
