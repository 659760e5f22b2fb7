package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"runtime"
	"runtime/debug"
	rtmetrics "runtime/metrics"
	"runtime/pprof"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/trecfmt"
)

const evalUsage = `usage: retrievalbench eval [-m measure]... [-q] [-c] [-l level] [-M max] [-J] QRELS RUN

Evaluates the TREC run RUN against the TREC qrels QRELS and prints
trec_eval's output format, "measure<TAB>qid|all<TAB>value", with trec_eval's
measure names and 4 decimals, so the output can be diffed against trec_eval.

Measures (-m, repeatable): trec_eval names and parameter lists (map, Rprec,
recip_rank, ndcg, P.5,10, recall.100, success.1,5,10, ndcg_cut.10,
map_cut.10, set_P, set_recall, num_q, num_ret, num_rel, num_rel_ret, runid),
trec_eval's other official and all_trec measures at their default
parameters (gm_map, bpref, iprec_at_recall, relstring, unj, rbp, rbp_resid,
infAP, gm_bpref, utility, 11pt_avg, G, ndcg_rel, Rndcg, binG, relative_P,
Rprec_mult, set_relative_P, set_map, set_F, num_nonrel_judged_ret), the
groups official (the default) and all_trec (as trec_eval 10.0 prints
them), or this tool's names (hit@10, mrr@10, ndcg@10, pass@1-needle,
coverage, …). trec_eval's attached forms (-l2, -M100, -mP.5) are accepted
too.

Exit status: 0 on success, 1 on a data error, 2 on bad usage.

Flags:
`

// stringList is a repeatable string flag.
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// attached matches trec_eval's flags with the value glued on (-l2, -M100,
// -mP.5).
var attached = regexp.MustCompile(`^-([lmM])([^=-].*)$`)

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", evalUsage, stderr)
	var measures stringList
	fs.Var(&measures, "m", "measure to print (repeatable; default official)")
	perQuery := fs.Bool("q", false, "print each query's values before the averages")
	complete := fs.Bool("c", false, "average over all judged queries; a judged query without results scores 0")
	level := fs.Int("l", 1, "lowest grade that counts as relevant")
	maxDocs := fs.Int("M", 0, "evaluate only the first `max` ranked results of each query (0: all)")
	judgedOnly := fs.Bool("J", false, "evaluate only the judged results (after -M): unjudged ones are dropped and the rest ranked in order")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the evaluation to `file` (for go tool pprof)")
	var split []string
	for _, a := range args {
		if m := attached.FindStringSubmatch(a); m != nil {
			split = append(split, "-"+m[1], m[2])
			continue
		}
		split = append(split, a)
	}
	if err := parseFlags(fs, split); err != nil {
		return err
	}
	if fs.NArg() != 2 {
		return badUsage(fs, "eval: want QRELS and RUN, got %d arguments", fs.NArg())
	}
	if *level < 1 {
		return usagef("eval: -l %d: the relevance level must be at least 1", *level)
	}
	if *maxDocs < 0 {
		return usagef("eval: -M %d: must not be negative", *maxDocs)
	}
	if len(measures) == 0 {
		measures = stringList{"official"}
	}
	sel, err := selectMeasures(measures, *judgedOnly)
	if err != nil {
		return usagef("eval: %v", err)
	}
	opt := metrics.EvalOptions{RelLevel: *level, Complete: *complete, MaxDocs: *maxDocs, JudgedOnly: *judgedOnly}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	res, tag, err := evalFiles(fs.Arg(0), fs.Arg(1), sel.measures, opt)
	if err != nil {
		return err
	}
	if res.NumQ == 0 {
		return fmt.Errorf("eval: no query has both judgments in %s and results in %s", fs.Arg(0), fs.Arg(1))
	}
	w := bufio.NewWriter(stdout)
	if *perQuery {
		for _, q := range res.Queries {
			sel.print(w, q.QID, q.Values, q.NumRet, q.NumRel, q.NumRelRet)
		}
	}
	if sel.counts["runid"] {
		fmt.Fprintf(w, "%-22s\tall\t%s\n", "runid", tag)
	}
	if sel.counts["num_q"] {
		fmt.Fprintf(w, "%-22s\tall\t%d\n", "num_q", res.NumQ)
	}
	sel.numQ = res.NumQ
	sel.print(w, "all", res.Mean, res.NumRet, res.NumRel, res.NumRelRet)
	return w.Flush()
}

// evalFiles evaluates the run file against the qrels file. It parses the
// run in blocks on every core and scores queries as they complete; a run
// whose lines are grouped by query streams through in a few blocks' worth of
// memory, and only a run that is not grouped is held whole (packed) until
// its last line is read.
func evalFiles(qrelsPath, runPath string, ms []metrics.Measure, opt metrics.EvalOptions) (*metrics.RunResult, string, error) {
	// bpref counts the judged non-relevant documents above each relevant
	// one: every judged document is ranked, not only the relevant ones.
	if slices.ContainsFunc(ms, needsAllJudged) {
		opt.AllJudged = true
	}
	tj, err := trecfmt.ReadJudgmentsFile(qrelsPath)
	if err != nil {
		return nil, "", err
	}
	judgments := metrics.Judgments(*tj)
	e, err := metrics.NewJudgmentsEvaluator(&judgments, ms, opt)
	if err != nil {
		return nil, "", err
	}
	// A grouped run streams through, keeping a few blocks: the collector
	// may let the heap grow to five times what is live (a tenth less CPU
	// on the 10,000 × 1,000 run, 120 -> 250 MB), unless GOGC says
	// otherwise, but to no more than gcHeadroom above what the judgments
	// hold: millions of judgments are live all along, and five times them
	// would be most of the peak memory. A run that is not grouped is held
	// whole: the default.
	restore := func() {}
	if os.Getenv("GOGC") == "" && os.Getenv("GOMEMLIMIT") == "" {
		// What the qrels reader let go of (the file's contents, its
		// parts) is collected first, so that the limit is set over what
		// is live: the judgments, which hold no pointers (a collection
		// costs a few milliseconds).
		runtime.GC()
		gc := debug.SetGCPercent(400)
		limit := debug.SetMemoryLimit(int64(heapInUse()) + gcHeadroom)
		restore = func() {
			debug.SetGCPercent(gc)
			debug.SetMemoryLimit(limit)
		}
	}
	tag, err := scanRun(runPath, e, trecfmt.ScanGroups)
	restore()
	if errors.Is(err, trecfmt.ErrNotGrouped) {
		// The whole run is held: the limit above would make the
		// collector run without end once the run outgrows it.
		// Start over, holding the whole run packed in memory.
		if e, err = metrics.NewJudgmentsEvaluator(&judgments, ms, opt); err != nil {
			return nil, "", err
		}
		tag, err = scanRun(runPath, e, trecfmt.ScanQueries)
	}
	if err != nil {
		return nil, "", err
	}
	res := e.Result()
	if opt.Complete {
		// trec_eval's summary num_rel under -c counts every judgment
		// with a grade above 0, whatever the relevance level (-l): the
		// per-query values use the level, the summary does not.
		res.NumRel = 0
		for _, g := range judgments.Grades {
			if g > 0 {
				res.NumRel++
			}
		}
	}
	return res, tag, nil
}

// gcHeadroom is how far above the memory in use after reading the
// judgments a grouped scan lets the heap grow before collecting.
const gcHeadroom = 192 << 20

// heapInUse returns the bytes of heap objects, live or not yet swept.
func heapInUse() uint64 {
	s := []rtmetrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	rtmetrics.Read(s)
	return s[0].Value.Uint64()
}

// scanRun feeds the run at path to e through scan (trecfmt.ScanGroups or
// ScanQueries), which calls back from several goroutines: each query is
// scored where it was parsed (metrics.Evaluator.Score is safe for
// concurrent use) and recorded under a lock.
func scanRun(path string, e *metrics.Evaluator, scan func(io.Reader, string, trecfmt.ScanOptions, func(string, []trecfmt.Result) error) (string, error)) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	var mu sync.Mutex
	// trec_eval ignores fields after the run tag. ScoreChecked finds a
	// repeated document in the pass that looks up the grades (one hash
	// per id), and the scanner turns its indexes into the error naming
	// both lines.
	opt := trecfmt.ScanOptions{AllowExtraFields: true, FnChecksRepeats: true}
	return scan(f, path, opt, func(qid string, results []trecfmt.Result) error {
		q, judged, first, again := e.ScoreChecked(qid, asMetricsResults(results))
		if again >= 0 {
			return &trecfmt.RepeatedError{First: first, Again: again}
		}
		mu.Lock()
		defer mu.Unlock()
		if err := e.Record(qid, q, judged); err != nil {
			// Only ScanGroups can meet a query twice: the run is not
			// grouped, which it reports itself when its turn comes.
			return fmt.Errorf("%s: query %q: %w", path, qid, trecfmt.ErrNotGrouped)
		}
		return nil
	})
}

// asMetricsResults returns rs as metrics results, without a copy: the
// two types have the same fields (trecfmt is a leaf and does not import
// metrics), and the pointer conversion compiles only while they do. Score
// may reorder the slice, which is the scanner's to reuse after the call.
func asMetricsResults(rs []trecfmt.Result) []metrics.Result {
	if len(rs) == 0 {
		return nil
	}
	return unsafe.Slice((*metrics.Result)(&rs[0]), len(rs))
}

// selection is the parsed -m list: the measures to compute, in trec_eval's
// print order, and which count lines to print.
type selection struct {
	measures []metrics.Measure
	counts   map[string]bool // runid, num_q, num_ret, num_rel, num_rel_ret
	numQ     int             // the queries averaged ("all": summed measures)
}

// Default cutoffs of trec_eval's cutoff measures.
var (
	defaultCutoffs = []int{5, 10, 15, 20, 30, 100, 200, 500, 1000}
	successCutoffs = []int{1, 5, 10}
	countNames     = []string{"runid", "num_q", "num_ret", "num_rel", "num_rel_ret"}
	// measureSets are trec_eval's measure groups, restricted to the
	// measures this tool computes.
	measureSets = map[string][]string{
		"official": append(slices.Clone(countNames), "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
		"all_trec": append(slices.Clone(countNames), "map", "gm_map", "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P",
			"relstring", "recall", "unj", "rbp_resid", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P",
			"Rprec_mult", "success", "map_cut", "ndcg_cut", "binG", "G", "ndcg_rel", "Rndcg", "rbp", "set_P", "set_recall", "set_relative_P", "set_map",
			"set_F", "num_nonrel_judged_ret"),
	}
)

// trecFamily returns the trec_eval cutoff prefix ("P_") of the parameter
// family name ("P": P.5,10 or P alone for the default cutoffs), read from
// the measures' values.
func trecFamily(name string) (string, bool) {
	for _, d := range metrics.Builtin() {
		if d.TrecCut != "" && strings.TrimSuffix(d.TrecCut, "_") == name {
			return d.TrecCut, true
		}
	}
	return "", false
}

// selectMeasures expands -m values (trec_eval names, parameter lists,
// all_trec/official, or this tool's names) into a selection.
func selectMeasures(args []string, judgedOnly bool) (*selection, error) {
	sel := &selection{counts: map[string]bool{}}
	seen := map[metrics.Measure]bool{}
	add := func(m metrics.Measure) {
		if !seen[m] {
			seen[m] = true
			sel.measures = append(sel.measures, m)
		}
	}
	var expand func(a string) error
	expand = func(a string) error {
		if set, ok := measureSets[a]; ok {
			for _, n := range set {
				if err := expand(n); err != nil {
					return err
				}
			}
			return nil
		}
		if slices.Contains(countNames, a) {
			sel.counts[a] = true
			return nil
		}
		name, params, hasParams := strings.Cut(a, ".")
		if ms, ok, err := trecOnly(name, hasParams, judgedOnly); ok {
			if err != nil {
				return err
			}
			for _, m := range ms {
				add(m)
			}
			return nil
		}
		if prefix, ok := trecFamily(name); ok {
			cuts := defaultCutoffs
			if name == "success" {
				cuts = successCutoffs
			}
			if hasParams {
				cuts = nil
				for _, p := range strings.Split(params, ",") {
					// trec_eval reads cutoffs with atol: "23.4" is 23.
					p, _, _ = strings.Cut(p, ".")
					k, err := strconv.Atoi(p)
					if err != nil || k <= 0 {
						return fmt.Errorf("measure %q: cutoff %q is not a positive integer", a, p)
					}
					cuts = append(cuts, k)
				}
			}
			for _, k := range cuts {
				m, err := metrics.ParseMeasure(prefix + strconv.Itoa(k))
				if err != nil {
					return err
				}
				add(m)
			}
			return nil
		}
		m, err := metrics.ParseMeasure(a)
		if err != nil {
			return err
		}
		add(m)
		return nil
	}
	for _, a := range args {
		if err := expand(a); err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(sel.measures, func(a, b metrics.Measure) int {
		if c := printRank(a) - printRank(b); c != 0 {
			return c
		}
		if a.TrecName() == "" {
			return 0 // this tool's measures keep the order given
		}
		return a.K - b.K
	})
	return sel, nil
}

// printRank orders measures as trec_eval prints them; measures trec_eval
// does not have come last.
func printRank(m metrics.Measure) int {
	order := trecOrder
	switch m.Def {
	case iprecAtRecall, iprecAtRecallJ:
		return slices.Index(order, "iprec_at_recall")
	case rprecMult:
		return slices.Index(order, "Rprec_mult")
	}
	name := m.TrecName()
	if i := slices.Index(order, name); i >= 0 {
		return i
	}
	if i := strings.LastIndexByte(name, '_'); i > 0 {
		if j := slices.Index(order, name[:i]); j >= 0 {
			return j
		}
	}
	return len(order)
}

// print writes one query's (or "all") lines.
func (s *selection) print(w io.Writer, qid string, values []float64, numRet, numRel, numRelRet int) {
	for _, c := range []struct {
		name string
		v    int
	}{{"num_ret", numRet}, {"num_rel", numRel}, {"num_rel_ret", numRelRet}} {
		if s.counts[c.name] {
			fmt.Fprintf(w, "%-22s\t%s\t%d\n", c.name, qid, c.v)
		}
	}
	for i, m := range s.measures {
		v := values[i]
		switch {
		case geometric(m):
			// trec_eval prints gm_map and gm_bpref only over all
			// queries: the exponential of the mean of each query's log.
			if qid != "all" {
				continue
			}
			v = math.Exp(v)
		case m.Def == relstring:
			if qid != "all" {
				fmt.Fprintf(w, "%-22s\t%s\t%s\n", trecPrintName(m), qid, relstringText(v))
			}
			continue
		case summed(m):
			if qid == "all" {
				v *= float64(s.numQ)
			}
			fmt.Fprintf(w, "%-22s\t%s\t%d\n", trecPrintName(m), qid, int64(math.Round(v)))
			continue
		}
		if math.IsNaN(v) {
			// trec_eval's printf("%6.4f") of the NaN that 0.0/0.0
			// gives on x86-64.
			fmt.Fprintf(w, "%-22s\t%s\t  -nan\n", trecPrintName(m), qid)
			continue
		}
		fmt.Fprintf(w, "%-22s\t%s\t%.4f\n", trecPrintName(m), qid, v)
	}
}
