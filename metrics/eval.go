package metrics

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
)

// Qrels holds the judgments of many queries: query id → document id → grade.
type Qrels map[string]map[string]int

// Run holds the results of many queries: query id → results in any order.
type Run map[string][]Result

// EvalOptions tunes a run-level evaluation; the zero value is trec_eval's
// default.
type EvalOptions struct {
	// RelLevel is the lowest relevant grade (trec_eval -l); 0 means 1.
	RelLevel int
	// Complete averages over every query that has judgments: a judged query
	// without results is evaluated as an empty ranking and scores 0
	// (trec_eval -c). Without it only queries with both judgments and results
	// are averaged.
	Complete bool
	// MaxDocs keeps only the first MaxDocs results of each query after
	// ranking (trec_eval -M); 0 keeps all.
	MaxDocs int
	// JudgedOnly drops the results that are not judged (no grade, or a
	// negative one) after ranking and the MaxDocs cut, and ranks the rest
	// in their order (trec_eval -J): every measure, num_ret included, is
	// over the judged documents only.
	JudgedOnly bool
	// AllJudged ranks every judged document, not only those with a
	// positive grade: Ranking.Grades holds the judged non-relevant ones
	// at their ranks too, for measures that count them (trec_eval's
	// bpref). Without it only positive grades are placed (the others
	// may read Unjudged), which is all the built-in measures need.
	AllJudged bool
}

// QueryResult is the evaluation of one query.
type QueryResult struct {
	QID    string
	Values []float64 // one per measure, in the order of RunResult.Measures
	// NumRet is the number of results evaluated, NumRel the number of
	// relevant judged documents, NumRelRet the relevant ones retrieved
	// (trec_eval num_ret, num_rel, num_rel_ret).
	NumRet, NumRel, NumRelRet int
}

// RunResult is the evaluation of a run.
type RunResult struct {
	Measures []Measure
	// Queries are the averaged queries, ordered by query id (byte-wise).
	Queries []QueryResult
	// Mean is the arithmetic mean of each measure over Queries (trec_eval's
	// "all" line); zeros when no query was evaluated.
	Mean []float64
	// NumQ is len(Queries); the other counts are sums over Queries.
	NumQ, NumRet, NumRel, NumRelRet int
}

// ErrDuplicateQuery is returned by Evaluator.Add for a query id added twice.
var ErrDuplicateQuery = errors.New("query added twice")

// Evaluator evaluates a run one query at a time, so that a large run never
// has to be in memory at once. Feed each query's complete results to Add,
// then call Result. An Evaluator is not safe for concurrent use.
type Evaluator struct {
	qrels Qrels
	// jg, when not nil, holds the judgments instead of qrels
	// (NewJudgmentsEvaluator), jgIndex its query ids' positions.
	jg      *Judgments
	jgIndex map[string]int32
	ms      []Measure
	opt     EvalOptions
	lvl     int
	done    map[string]bool
	qs      []QueryResult
	scratch
	seen map[string]struct{}
}

// scratch holds the buffers of one query's scoring, reused from query to
// query.
type scratch struct {
	grades []int
	rg     []int // ScoreChecked: each result's grade, in the results' order
	tab    gradeTable
	judged Judged // the summary of tab's judgments
}

// NewEvaluator returns an Evaluator of ms against qrels. It fails on an
// unknown measure or a negative MaxDocs.
func NewEvaluator(qrels Qrels, ms []Measure, opt EvalOptions) (*Evaluator, error) {
	for _, m := range ms {
		if err := m.validate(); err != nil {
			return nil, err
		}
	}
	if opt.MaxDocs < 0 {
		return nil, fmt.Errorf("negative MaxDocs %d", opt.MaxDocs)
	}
	return &Evaluator{
		qrels: qrels,
		ms:    slices.Clone(ms),
		opt:   opt,
		lvl:   Options{RelLevel: opt.RelLevel}.relLevel(),
		done:  make(map[string]bool),
		seen:  make(map[string]struct{}),
	}, nil
}

// Add evaluates one query's results. It may reorder results (SortRun)
// and keeps no reference to them. A query without judgments is skipped, as
// trec_eval skips it. A query id added twice (ErrDuplicateQuery) or a
// document id repeated within the query is an error.
func (e *Evaluator) Add(qid string, results []Result) error {
	clear(e.seen)
	for _, r := range results {
		if _, dup := e.seen[r.DocID]; dup {
			return fmt.Errorf("query %q: document %q retrieved twice", qid, r.DocID)
		}
		e.seen[r.DocID] = struct{}{}
	}
	return e.AddUnique(qid, results)
}

// AddUnique is Add without the check for repeated document ids, for callers
// whose reader has made it already (trecfmt.GroupReader reports a repeat
// with its line numbers); with repeated ids the values are meaningless.
func (e *Evaluator) AddUnique(qid string, results []Result) error {
	if e.done[qid] {
		return fmt.Errorf("query %q: %w", qid, ErrDuplicateQuery)
	}
	e.done[qid] = true
	if !e.build(qid, &e.scratch, 0) {
		return nil
	}
	e.qs = append(e.qs, e.score(qid, results, &e.scratch))
	return nil
}

// build fills sc's grade table with the judgments of qid, with room for
// extra results to be checked, and returns whether it has any (a query
// without judgments is not evaluated; its table is left empty, with the
// room).
func (e *Evaluator) build(qid string, sc *scratch, extra int) bool {
	if e.jg != nil {
		i, ok := e.jgIndex[qid]
		if !ok {
			sc.tab.reset(0, extra)
			return false
		}
		sc.judged = sc.tab.buildJudgments(e.jg, e.jg.Starts[i], e.jg.Starts[i+1], e.lvl, extra)
		return true
	}
	qr, ok := e.qrels[qid]
	if !ok {
		sc.tab.reset(0, extra)
		return false
	}
	sc.judged = sc.tab.build(qr, e.lvl, extra)
	return true
}

// score ranks and scores one judged query with the buffers of sc, whose
// grade table build has filled.
func (e *Evaluator) score(qid string, results []Result, sc *scratch) QueryResult {
	sc.grades = e.rank(&sc.tab, results, nil, sc.grades[:0])
	return e.evaluateJudged(qid, &sc.judged, sc.grades)
}

// rank returns the grades of results in trec_eval's order (SortRun), cut
// to MaxDocs, appended to grades. Every measure depends only on where the
// documents with a positive grade land (the relevance level is at least 1
// and gains are positive grades), so the rest keep the grade "unjudged" and
// are not sorted: a positive document's rank is the number of results that
// SortRun puts before it. Results already in order are taken as they are,
// and with many positive documents they are sorted in place; the grades are
// the same either way. rg, when not nil, holds each result's grade
// (gradeTable.check); else each is looked up in qr.
func (e *Evaluator) rank(qr *gradeTable, results []Result, rg, grades []int) []int {
	if e.opt.JudgedOnly || e.opt.AllJudged {
		return e.rankJudged(qr, results, rg, grades)
	}
	gr := grader{qr, results, rg}
	n := len(results)
	if e.opt.MaxDocs > 0 && n > e.opt.MaxDocs {
		n = e.opt.MaxDocs
	}
	grades = slices.Grow(grades[:0], n)[:n]
	if inRankOrder(results) {
		// Runs are mostly written in rank order already.
		for i := range grades {
			grades[i] = gr.at(i)
		}
		return grades
	}
	for i := range grades {
		grades[i] = Unjudged
	}
	var pos [maxCounted]int32
	np := 0
	for i := range results {
		if g := gr.at(i); g > 0 {
			if np == maxCounted {
				return e.rankSorted(qr, results, grades)
			}
			pos[np] = int32(i)
			np++
		}
	}
	// Order the positive documents, then count for each the results that
	// come before it: a result precedes the positives from the first one
	// it is ordered before (a binary search) on, so one count per result
	// at that index and a prefix sum give every positive's rank.
	ps := pos[:np]
	slices.SortFunc(ps, func(a, b int32) int { return compareResults(results[a], results[b]) })
	var before [maxCounted + 1]int32
	// The search compares scores alone (the positives' scores in order in
	// an array), then walks the positives tied with the result, if any, by
	// document id: the same index as a search with compareResults. A NaN
	// score, which compares equal to nothing, takes compareResults.
	var scores [maxCounted]float64
	for k, p := range ps {
		scores[k] = results[p].Score
	}
	nanFree := np == 0 || !math.IsNaN(scores[np-1]) // NaN sorts last
	// With enough positives whose scores span a finite range, a bucket
	// table replaces the binary search: bucket(v) = (v - low) * inv,
	// truncated to 0 … rankBuckets, is monotone in v (each float operation
	// is), so the positives in buckets above a result's all score above
	// it (first[b] counts them) and those in buckets below all score below
	// it; only the positives of the result's own bucket are compared. It
	// is exact however the float arithmetic rounds; the table only decides
	// where the comparisons start.
	var first [rankBuckets + 1]int32
	var low, inv float64
	buckets := false
	if nanFree && np >= 8 {
		low = scores[np-1]
		if span := scores[0] - low; span > 0 && span <= math.MaxFloat64 {
			inv = rankBuckets / span
			buckets = inv <= math.MaxFloat64
		}
	}
	if buckets {
		var count [rankBuckets + 1]int32
		for _, v := range scores[:np] {
			count[bucketOf(v, low, inv)]++
		}
		var above int32
		for b := rankBuckets; b >= 0; b-- {
			first[b] = above
			above += count[b]
		}
	}
	for _, x := range results {
		lo, hi := 0, np
		if xs := x.Score; buckets && xs == xs {
			lo = int(first[bucketOf(xs, low, inv)])
			for lo < np && scores[lo] > xs {
				lo++
			}
			for lo < np && scores[lo] == xs && results[ps[lo]].DocID >= x.DocID {
				lo++
			}
		} else if nanFree && xs == xs {
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if scores[m] > xs {
					lo = m + 1
				} else {
					hi = m
				}
			}
			for lo < np && scores[lo] == xs && results[ps[lo]].DocID >= x.DocID {
				lo++
			}
		} else {
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if compareResults(x, results[ps[m]]) < 0 {
					hi = m
				} else {
					lo = m + 1
				}
			}
		}
		before[lo]++
	}
	r := 0
	for k, p := range ps {
		r += int(before[k])
		if r < n {
			grades[r] = gr.at(int(p))
		}
	}
	return grades
}

// grader is a result's grade for rank: from rg when it holds them, else
// looked up in t.
type grader struct {
	t  *gradeTable
	rs []Result
	rg []int
}

func (g grader) at(i int) int {
	if g.rg != nil {
		return g.rg[i]
	}
	return g.t.grade(g.rs[i].DocID)
}

// rankBuckets is the number of buckets (less one) of rank's table.
const rankBuckets = 64

// bucketOf returns v's bucket in rank's table: (v - low) * inv truncated
// to 0 … rankBuckets (monotone in v; v is not NaN).
func bucketOf(v, low, inv float64) int {
	f := (v - low) * inv
	switch {
	case !(f > 0):
		return 0
	case f >= rankBuckets:
		return rankBuckets
	}
	return int(f)
}

// inRankOrder reports whether results are in SortRun's order, as
// slices.IsSortedFunc with compareResults does, comparing float scores
// inline; a NaN score takes compareResults.
func inRankOrder(results []Result) bool {
	for i := 1; i < len(results); i++ {
		a, b := results[i-1].Score, results[i].Score
		switch {
		case a > b:
		case a == b && results[i-1].DocID >= results[i].DocID:
		case a < b || a == b:
			return false
		default: // a NaN
			return slices.IsSortedFunc(results[i-1:], compareResults)
		}
	}
	return true
}

// maxCounted is the number of positive documents up to which rank counts
// ranks (n log maxCounted comparisons) instead of sorting (n log n).
const maxCounted = 128

// rankSorted is rank by sorting results in place.
func (e *Evaluator) rankSorted(qr *gradeTable, results []Result, grades []int) []int {
	SortRun(results)
	for i := range grades {
		grades[i] = qr.grade(results[i].DocID)
	}
	return grades
}

// rankJudged is rank for JudgedOnly and AllJudged: the grades of the
// first MaxDocs results in trec_eval's order, in that order, without the
// unjudged ones (JudgedOnly). Every judged document's rank counts here
// (with JudgedOnly the non-relevant ones move the relevant ones up), so
// results not in order are sorted.
func (e *Evaluator) rankJudged(qr *gradeTable, results []Result, rg, grades []int) []int {
	if !inRankOrder(results) {
		SortRun(results)
		rg = nil // in the results' old order
	}
	gr := grader{qr, results, rg}
	n := len(results)
	if e.opt.MaxDocs > 0 && n > e.opt.MaxDocs {
		n = e.opt.MaxDocs
	}
	grades = grades[:0]
	for i := range n {
		if g := gr.at(i); g >= 0 || !e.opt.JudgedOnly {
			grades = append(grades, g)
		}
	}
	return grades
}

// Score is the evaluation half of AddUnique, safe for concurrent use (it
// reads only the qrels and the options): it may reorder results (SortRun) and
// scores them. judged is false for a query without judgments, which Record
// then skips. Hand the outcome to Record, which is not safe for concurrent
// use.
func (e *Evaluator) Score(qid string, results []Result) (q QueryResult, judged bool) {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer scratchPool.Put(sc)
	if !e.build(qid, sc, 0) {
		return QueryResult{}, false
	}
	return e.score(qid, results, sc), true
}

// ScoreChecked is Score for results not yet checked for repeated
// documents: it finds a document id that appears twice among results
// (in every query, judged or not) in the same pass that looks up each
// result's grade, one hash per id. A repeat is returned as the indexes of
// its first occurrence and of its repetition in results' order (the first
// repetition in that order, as a scan finds it: first < again), with q
// zero and judged false; else first and again are -1.
func (e *Evaluator) ScoreChecked(qid string, results []Result) (q QueryResult, judged bool, first, again int) {
	sc, _ := scratchPool.Get().(*scratch)
	if sc == nil {
		sc = new(scratch)
	}
	defer scratchPool.Put(sc)
	judged = e.build(qid, sc, len(results))
	sc.rg = slices.Grow(sc.rg[:0], len(results))[:len(results)]
	if first, again = sc.tab.check(results, sc.rg); again >= 0 {
		return QueryResult{}, false, first, again
	}
	if !judged {
		return QueryResult{}, false, -1, -1
	}
	sc.grades = e.rank(&sc.tab, results, sc.rg, sc.grades[:0])
	return e.evaluateJudged(qid, &sc.judged, sc.grades), true, -1, -1
}

// scratchPool recycles Score's buffers.
var scratchPool sync.Pool

// Record adds a query scored by Score, in any order; a query id recorded
// (or added) twice is an error wrapping ErrDuplicateQuery.
func (e *Evaluator) Record(qid string, q QueryResult, judged bool) error {
	if e.done[qid] {
		return fmt.Errorf("query %q: %w", qid, ErrDuplicateQuery)
	}
	e.done[qid] = true
	if judged {
		e.qs = append(e.qs, q)
	}
	return nil
}

func (e *Evaluator) evaluate(qid string, qr map[string]int, grades []int) QueryResult {
	j := summarize(qr, e.lvl)
	return e.evaluateJudged(qid, &j, grades)
}

// evaluateJudged is evaluate with the judgments summarized.
func (e *Evaluator) evaluateJudged(qid string, j *Judged, grades []int) QueryResult {
	q := QueryResult{
		QID:       qid,
		Values:    make([]float64, len(e.ms)),
		NumRet:    len(grades),
		NumRel:    j.NumRel,
		NumRelRet: countRel(grades, e.lvl),
	}
	r := Ranking{Grades: grades, Level: e.lvl, Judged: *j}
	r.score(e.ms, q.Values)
	return q
}

// Result returns the evaluation of the queries added so far (plus, with
// Complete, every judged query not added, evaluated as an empty ranking).
func (e *Evaluator) Result() *RunResult {
	qs := slices.Clone(e.qs)
	if e.opt.Complete {
		for qid, qr := range e.qrels {
			if !e.done[qid] {
				qs = append(qs, e.evaluate(qid, qr, nil))
			}
		}
		if e.jg != nil {
			for _, qid := range e.jg.QIDs {
				if !e.done[qid] && e.build(qid, &e.scratch, 0) {
					qs = append(qs, e.evaluateJudged(qid, &e.scratch.judged, nil))
				}
			}
		}
	}
	slices.SortFunc(qs, func(a, b QueryResult) int { return strings.Compare(a.QID, b.QID) })
	res := &RunResult{
		Measures: slices.Clone(e.ms),
		Queries:  qs,
		Mean:     make([]float64, len(e.ms)),
		NumQ:     len(qs),
	}
	for _, q := range qs {
		for i, v := range q.Values {
			res.Mean[i] += v
		}
		res.NumRet += q.NumRet
		res.NumRel += q.NumRel
		res.NumRelRet += q.NumRelRet
	}
	if len(qs) > 0 {
		for i := range res.Mean {
			res.Mean[i] /= float64(len(qs))
		}
	}
	return res
}

// Evaluate evaluates a whole in-memory run against qrels with trec_eval's
// rules: each query of run that has judgments is ranked (SortRun, on a copy),
// cut to MaxDocs and scored; queries of run without judgments are ignored;
// with Complete, judged queries missing from run score 0 and count in the
// mean. The mean of each measure is the plain average over the evaluated
// queries.
func Evaluate(qrels Qrels, run Run, ms []Measure, opt EvalOptions) (*RunResult, error) {
	e, err := NewEvaluator(qrels, ms, opt)
	if err != nil {
		return nil, err
	}
	qids := make([]string, 0, len(run))
	for qid := range run {
		qids = append(qids, qid)
	}
	slices.Sort(qids)
	for _, qid := range qids {
		if err := e.Add(qid, slices.Clone(run[qid])); err != nil {
			return nil, err
		}
	}
	return e.Result(), nil
}
