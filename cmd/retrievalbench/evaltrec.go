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
// nothing is ranked. trec_eval walks the ranking backwards from its end,
// keeping the highest precision seen, and takes it at the relevant
// document where the relevant ones retrieved reach round(k/100 × R)
// (c). Precision only rises at a relevant document, so that is the
// highest j/rank(j) over the relevant documents j ≥ max(c, 1): the same
// divisions, found in one pass forwards.
func iprec(r *metrics.Ranking, k int, empty float64) float64 {
	cut := int(math.Round(float64(k) / 100 * float64(r.NumRel)))
	if len(r.Grades) == 0 {
		if cut > 0 {
			return 0
		}
		return empty
	}
	ranks := r.RelevantRanks()
	if len(ranks) < cut {
		return 0
	}
	best := 0.0
	for j := max(cut, 1); j <= len(ranks); j++ {
		if p := float64(j) / float64(ranks[j-1]); best < p {
			best = p
		}
	}
	return best
}

// More of trec_eval's all_trec measures, each as its m_*.c computes it
// from the ranked grades (with AllJudged: the judged non-relevant
// documents at their ranks, Unjudged for a document not in the qrels,
// pooledUnjudged for one judged with a negative grade).
var (
	numNonrelJudgedRet = &metrics.Def{Name: "num_nonrel_judged_ret", Cut: metrics.WholeList, TrecWhole: "num_nonrel_judged_ret", Score: func(r *metrics.Ranking, _ int) float64 {
		n := 0
		for _, g := range r.Grades {
			if g >= 0 && g < r.Level {
				n++
			}
		}
		return float64(n)
	}}
	setMap = &metrics.Def{Name: "set_map", Cut: metrics.WholeList, TrecWhole: "set_map", Score: func(r *metrics.Ranking, _ int) float64 {
		numRet, relRet := len(r.Grades), relRet(r, len(r.Grades))
		if numRet == 0 || r.NumRel == 0 {
			return 0
		}
		return (float64(relRet) * float64(relRet)) / (float64(numRet) * float64(r.NumRel))
	}}
	setF = &metrics.Def{Name: "set_F", Cut: metrics.WholeList, TrecWhole: "set_F", Score: func(r *metrics.Ranking, _ int) float64 {
		numRet, relRet := len(r.Grades), relRet(r, len(r.Grades))
		if relRet == 0 {
			return 0
		}
		p := float64(relRet) / float64(numRet)
		rc := float64(relRet) / float64(r.NumRel)
		const x = 1.0
		return (x + 1.0) * p * rc / (x*p + rc)
	}}
	setRelativeP = &metrics.Def{Name: "set_relative_P", Cut: metrics.WholeList, TrecWhole: "set_relative_P", Score: func(r *metrics.Ranking, _ int) float64 {
		numRet := len(r.Grades)
		if numRet == 0 || r.NumRel == 0 {
			return 0
		}
		return float64(relRet(r, numRet)) / float64(min(numRet, r.NumRel))
	}}
	// relativeP is relative_P at cutoff K: the relevant documents in the
	// first K over the most there could be, min(K, R).
	relativeP = &metrics.Def{Name: "relative_P", Cut: metrics.AtCutoff, TrecCut: "relative_P_", Score: func(r *metrics.Ranking, k int) float64 {
		if r.NumRel == 0 {
			return 0
		}
		return float64(relRet(r, min(k, len(r.Grades)))) / float64(min(k, r.NumRel))
	}}
	// rprecMult is Rprec_mult at K/100: precision at K/100 × R documents
	// (truncated after adding 0.9, as trec_eval still does here).
	rprecMult = &metrics.Def{Name: "Rprec_mult", Cut: metrics.AtCutoff, Score: func(r *metrics.Ranking, k int) float64 {
		c := int(float64(k)/100*float64(r.NumRel) + 0.9)
		numRet := len(r.Grades)
		switch {
		case c > numRet:
			return float64(relRet(r, numRet)) / float64(c)
		case c == 0:
			return 0
		}
		return float64(relRet(r, c)) / float64(c)
	}}
	// elevenPt is 11pt_avg: the mean of iprec_at_recall at 1.0, 0.9, …,
	// 0.0 (summed in that order).
	elevenPt = &metrics.Def{Name: "11pt_avg", Cut: metrics.WholeList, TrecWhole: "11pt_avg", Score: func(r *metrics.Ranking, _ int) float64 {
		return elevenPtAvg(r, 0)
	}}
	elevenPtJ = &metrics.Def{Name: "11pt_avg", Cut: metrics.WholeList, TrecWhole: "11pt_avg", Score: func(r *metrics.Ranking, _ int) float64 {
		return elevenPtAvg(r, math.NaN())
	}}
	// utility with trec_eval's default coefficients 1, -1, 0, 0: relevant
	// retrieved less non-relevant retrieved.
	utility = &metrics.Def{Name: "utility", Cut: metrics.WholeList, TrecWhole: "utility", Score: func(r *metrics.Ranking, _ int) float64 {
		numRet, rr := len(r.Grades), relRet(r, len(r.Grades))
		return 1.0*float64(rr) + -1.0*float64(numRet-rr)
	}}
	gmBpref = &metrics.Def{Name: "gm_bpref", Cut: metrics.WholeList, TrecWhole: "gm_bpref", Score: func(r *metrics.Ranking, _ int) float64 {
		return math.Log(max(bpref.Score(r, 0), minGeoMean))
	}}
	infAP = &metrics.Def{Name: "infAP", Cut: metrics.WholeList, TrecWhole: "infAP", Score: func(r *metrics.Ranking, _ int) float64 {
		var v float64
		nonrel, rel, pooled := 0, 0, 0
		for j, g := range r.Grades {
			switch {
			case g == metrics.Unjudged:
			case g < 0:
				pooled++
			case g < r.Level:
				nonrel++
			default:
				rel++
				if j == 0 {
					v += 1.0
					continue
				}
				fj := float64(j)
				v += 1.0/(fj+1.0) + (fj/(fj+1.0))*(float64(rel-1+nonrel+pooled)/fj)*((float64(rel-1)+infapEpsilon)/(float64(rel-1+nonrel)+2*infapEpsilon))
			}
		}
		if r.NumRel > 0 {
			v /= float64(r.NumRel)
		}
		return v
	}}
	// unj is unj at cutoff K: the share of the first K that is not
	// judged (divided by K even past the end of the ranking).
	unj = &metrics.Def{Name: "unj", Cut: metrics.AtCutoff, TrecCut: "unj_", Score: func(r *metrics.Ranking, k int) float64 {
		n := 0
		for _, g := range r.Grades[:min(k, len(r.Grades))] {
			if g < 0 {
				n++
			}
		}
		return float64(n) / float64(k)
	}}
	rbpResid = &metrics.Def{Name: "rbp_resid", Cut: metrics.WholeList, TrecWhole: "rbp_resid", Score: func(r *metrics.Ranking, _ int) float64 {
		const p = 0.9
		sum, cur, unjudged := 0.0, 1.0, 0
		for _, g := range r.Grades {
			if g < 0 {
				unjudged++
				sum += cur
			}
			cur = cur * p
		}
		if unjudged == 0 {
			return 0
		}
		return cur + (1-p)*sum
	}}
	binG = &metrics.Def{Name: "binG", Cut: metrics.WholeList, TrecWhole: "binG", Score: func(r *metrics.Ranking, _ int) float64 {
		sum, rel := 0.0, 0
		for i, g := range r.Grades {
			if g >= r.Level {
				rel++
				sum += 1.0 / math.Log2(float64(3+i-rel))
			}
		}
		if rel == 0 {
			return 0
		}
		return sum / float64(r.NumRel)
	}}
	// relstring is the first 10 grades as trec_eval's characters, packed
	// into the value (relstringText unpacks it): 4 bits a character and
	// the length.
	relstring = &metrics.Def{Name: "relstring", Cut: metrics.WholeList, TrecWhole: "relstring", Score: func(r *metrics.Ranking, _ int) float64 {
		n := min(10, len(r.Grades))
		v := uint64(n)
		for i, g := range r.Grades[:n] {
			var c uint64
			switch {
			case g > 9:
				c = 10 // '>'
			case g >= 0:
				c = uint64(g)
			case g == metrics.Unjudged:
				c = 11 // '-'
			default:
				c = 12 // '.'
			}
			v |= c << (4 + 4*i)
		}
		return float64(v)
	}}
)

// The gain measures with trec_eval's default gains (setup_gains: a
// judged grade's gain is the grade; the ideal ranking's gains are the
// judged positive grades, highest first, which is Ranking.Ideal).
var (
	gDef = &metrics.Def{Name: "G", Cut: metrics.WholeList, TrecWhole: "G", Score: func(r *metrics.Ranking, _ int) float64 {
		const minCost = 1.0
		numRet := len(r.Grades)
		var resultsG, sumResults, sumIdeal, sumCost float64
		ideal := idealAt(r, 0)
		i := 0
		for ; i < numRet && ideal > 0; i++ {
			rg := gainOf(r.Grades[i])
			sumResults += rg
			ideal = idealAt(r, i)
			if ideal > 0 {
				sumIdeal += ideal
			}
			if ideal >= minCost {
				sumCost += ideal
			} else {
				sumCost += minCost
			}
			if rg != 0 {
				resultsG += rg / math.Log2(2+sumCost-sumResults)
			}
		}
		for ; i < numRet; i++ {
			rg := gainOf(r.Grades[i])
			sumResults += rg
			sumCost += minCost
			if rg != 0 {
				resultsG += rg / math.Log2(2+sumCost-sumResults)
			}
		}
		for ideal > 0 {
			if ideal = idealAt(r, i); ideal > 0 {
				sumIdeal += ideal
			}
			i++
		}
		if sumIdeal > 0 {
			return resultsG / sumIdeal
		}
		return 0
	}}
	ndcgRel = &metrics.Def{Name: "ndcg_rel", Cut: metrics.WholeList, TrecWhole: "ndcg_rel", Score: func(r *metrics.Ranking, _ int) float64 {
		numRet := len(r.Grades)
		var resultsDCG, idealDCG, sum float64
		numRelRet, numRel := 0, 0
		ideal := idealAt(r, 0)
		i := 0
		for ; i < numRet && ideal > 0; i++ {
			rg := gainOf(r.Grades[i])
			if rg != 0 {
				resultsDCG += rg / metrics.Discount(i)
			}
			if ideal = idealAt(r, i); ideal > 0 {
				numRel++
				idealDCG += ideal / metrics.Discount(i)
			}
			if rg > 0 {
				sum += resultsDCG / idealDCG
				numRelRet++
			}
		}
		for ; i < numRet; i++ {
			rg := gainOf(r.Grades[i])
			if rg != 0 {
				resultsDCG += rg / metrics.Discount(i)
			}
			if rg > 0 {
				sum += resultsDCG / idealDCG
				numRelRet++
			}
		}
		for ideal > 0 {
			if ideal = idealAt(r, i); ideal > 0 {
				numRel++
				idealDCG += ideal / metrics.Discount(i)
			}
			i++
		}
		sum += float64(numRel-numRelRet) * resultsDCG / idealDCG
		if sum > 0 {
			return sum / float64(numRel)
		}
		return 0
	}}
	rndcg = &metrics.Def{Name: "Rndcg", Cut: metrics.WholeList, TrecWhole: "Rndcg", Score: func(r *metrics.Ranking, _ int) float64 {
		if r.NumRel == 0 {
			return 0
		}
		numRet := len(r.Grades)
		var resultsDCG, idealDCG, sum float64
		changed := 0
		ideal := idealAt(r, 0)
		old := ideal
		boundary := func() {
			if old != ideal {
				if idealDCG > 0 {
					sum += resultsDCG / idealDCG
					changed++
				}
				old = ideal
			}
		}
		i := 0
		for ; i < numRet && ideal > 0; i++ {
			rg := gainOf(r.Grades[i])
			ideal = idealAt(r, i)
			boundary()
			if rg != 0 {
				resultsDCG += rg / metrics.Discount(i)
			}
			if ideal > 0 {
				idealDCG += ideal / metrics.Discount(i)
			}
		}
		if i < numRet {
			for ; i < numRet; i++ {
				if rg := gainOf(r.Grades[i]); rg != 0 {
					resultsDCG += rg / metrics.Discount(i)
				}
			}
			if idealDCG > 0 {
				sum += resultsDCG / idealDCG
				changed++
			}
		}
		for ideal > 0 {
			ideal = idealAt(r, i)
			boundary()
			if ideal > 0 {
				idealDCG += ideal / metrics.Discount(i)
			}
			i++
		}
		return sum / float64(changed)
	}}
	// rbp is rank-biased precision at persistence 0.9 with the gains
	// scaled to [0, 1] by the highest judged grade when it is above 1.
	rbp = &metrics.Def{Name: "rbp", Cut: metrics.WholeList, TrecWhole: "rbp", Score: func(r *metrics.Ranking, _ int) float64 {
		const p = 0.9
		scale := 1.0
		if r.MaxGrade > 1 {
			scale = float64(r.MaxGrade)
		}
		sum, cur := 0.0, 1.0
		for _, g := range r.Grades {
			if gain := gainOf(g); gain != 0 {
				sum += gain / scale * cur
			}
			cur = cur * p
		}
		return (1.0 - p) * sum
	}}
)

// gainOf is a ranked document's default gain: its grade, 0 when it has
// none.
func gainOf(g int) float64 { return float64(max(g, 0)) }

// idealAt is the ideal ranking's gain at 0-based rank i.
func idealAt(r *metrics.Ranking, i int) float64 {
	if i < len(r.Ideal) {
		return r.Ideal[i]
	}
	return 0
}

// infapEpsilon is trec_eval's INFAP_EPSILON.
const infapEpsilon = .00001

// relRet counts the relevant documents among the first n ranked.
func relRet(r *metrics.Ranking, n int) int {
	ranks := r.RelevantRanks()
	lo, hi := 0, len(ranks)
	for lo < hi { // the first rank beyond n
		m := int(uint(lo+hi) >> 1)
		if int(ranks[m]) <= n {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// elevenPtAvg is 11pt_avg with iprec's empty value.
func elevenPtAvg(r *metrics.Ranking, empty float64) float64 {
	sum := 0.0
	for i := len(iprecCutoffs) - 1; i >= 0; i-- {
		sum += iprec(r, iprecCutoffs[i], empty)
	}
	return sum / float64(len(iprecCutoffs))
}

// relstringText unpacks relstring's value.
func relstringText(v float64) string {
	u := uint64(v)
	n := int(u & 15)
	b := make([]byte, n)
	for i := range b {
		b[i] = "0123456789>-."[u>>(4+4*i)&15]
	}
	return "'" + string(b) + "'"
}

// rprecMultCutoffs, relativePCutoffs and unjCutoffs are trec_eval's
// defaults (Rprec_mult in hundredths).
var (
	rprecMultCutoffs = []int{20, 40, 60, 80, 100, 120, 140, 160, 180, 200}
	relativePCutoffs = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	unjCutoffs       = []int{5, 10, 20}
)

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
	case "num_nonrel_judged_ret", "set_map", "set_F", "set_relative_P", "11pt_avg", "utility", "gm_bpref", "infAP", "rbp_resid", "binG", "relstring", "G", "ndcg_rel", "Rndcg", "rbp":
		if hasParams {
			return nil, true, fmt.Errorf("measure %s: only its default parameters are supported", name)
		}
		d := map[string]*metrics.Def{"num_nonrel_judged_ret": numNonrelJudgedRet, "set_map": setMap, "set_F": setF,
			"set_relative_P": setRelativeP, "11pt_avg": elevenPt, "utility": utility, "gm_bpref": gmBpref, "infAP": infAP,
			"rbp_resid": rbpResid, "binG": binG, "relstring": relstring, "G": gDef, "ndcg_rel": ndcgRel, "Rndcg": rndcg, "rbp": rbp}[name]
		if d == elevenPt && judgedOnly {
			d = elevenPtJ
		}
		return []metrics.Measure{d.At(0)}, true, nil
	case "relative_P", "Rprec_mult", "unj":
		if hasParams {
			return nil, true, fmt.Errorf("measure %s: only its default cutoffs are supported", name)
		}
		d, cuts := relativeP, relativePCutoffs
		switch name {
		case "Rprec_mult":
			d, cuts = rprecMult, rprecMultCutoffs
		case "unj":
			d, cuts = unj, unjCutoffs
		}
		var ms []metrics.Measure
		for _, k := range cuts {
			ms = append(ms, d.At(k))
		}
		return ms, true, nil
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
	if m.Def == rprecMult {
		return "Rprec_mult_" + strconv.FormatFloat(float64(m.K)/100, 'f', 2, 64)
	}
	if name := m.TrecName(); name != "" {
		return name
	}
	return m.String()
}

// trecOrder is trec_eval's print order (its table of measures) of the
// measure families eval computes.
var trecOrder = []string{"map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring", "recall",
	"infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG", "G", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut",
	"map_cut", "relative_P", "success", "set_P", "set_relative_P", "set_recall", "set_map", "set_F",
	"num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"}

// needsAllJudged reports whether m looks at documents that are not
// relevant (their ranks or whether they are judged), so every judged
// document must be ranked (metrics.EvalOptions.AllJudged).
func needsAllJudged(m metrics.Measure) bool {
	switch m.Def {
	case bpref, gmBpref, infAP, numNonrelJudgedRet, unj, rbpResid, relstring:
		return true
	}
	return false
}

// summed reports whether trec_eval's summary of m is the sum over the
// queries, printed as an integer, and its per-query value an integer.
func summed(m metrics.Measure) bool { return m.Def == numNonrelJudgedRet }

// geometric reports whether trec_eval's summary of m is a geometric mean
// (the per-query values are logs) and no per-query line is printed.
func geometric(m metrics.Measure) bool { return m.Def == gmMap || m.Def == gmBpref }
