package gate

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strings"

	"github.com/aclements/go-moremath/stats"
	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchmath"

	"github.com/retrievalbench/retrievalbench/fileline"
)

// Verdict is what the gate concluded about one benchmark and unit. The
// values are in report order.
type Verdict int

const (
	// Regressed: worse beyond what the gate tolerates; fails the gate.
	Regressed Verdict = iota
	// Improved: significantly better (exact units: better at all).
	Improved
	// Unchanged: no significant change, or a significant one in the bad
	// direction that stays within Config.Threshold.
	Unchanged
	// TooFew: the samples are too small for the U test to ever reach
	// Config.Alpha, so nothing can be concluded.
	TooFew
	// OneSide: the benchmark and unit appear in only one of the files.
	OneSide
)

var verdictNames = [...]string{
	Regressed: "regressed",
	Improved:  "improved",
	Unchanged: "unchanged or noisy",
	TooFew:    "too few runs",
	OneSide:   "present on one side only",
}

func (v Verdict) String() string {
	if v < 0 || int(v) >= len(verdictNames) {
		return fmt.Sprintf("Verdict(%d)", int(v))
	}
	return verdictNames[v]
}

// Side summarises one file's sample for a benchmark and unit.
type Side struct {
	N int
	// Center is the median (assume=nothing) or the most frequent value
	// (assume=exact).
	Center float64
	// Lo and Hi bound Center's confidence interval at Config.Confidence;
	// they are ±Inf when the sample is too small for one. For exact units
	// they are the smallest and largest value.
	Lo, Hi float64
	// Values are the measurements, ascending.
	Values []float64
}

// Row is the comparison of one benchmark and unit.
type Row struct {
	Name string // full name as benchfmt gives it, without "Benchmark": RepoQA/system=bm25/op=search-2
	Unit string // tidied unit, e.g. sec/op (from ns/op), hit@10

	// Better is +1 when higher values are better, -1 when lower are.
	Better int
	// Exact reports assume=exact: compared by value, no statistics.
	Exact bool

	// Old and New are nil when the sample is absent from that file.
	Old, New *Side

	// Delta is (new-old)/|old| of the centers: +0.30 is 30% higher.
	// It is ±Inf when old is 0 and new is not, NaN when a side is absent.
	Delta float64
	// RatioLo and RatioHi bound new/old using the two medians' confidence
	// intervals (new.Lo/old.Hi, new.Hi/old.Lo): a conservative interval
	// for the ratio. NaN when either interval is infinite or old spans 0.
	RatioLo, RatioHi float64
	// P is the Mann–Whitney U test's p-value; NaN for exact units, too
	// few runs, and one-sided rows.
	P float64

	Verdict Verdict
	// Note says why the row got its verdict.
	Note string
	// Warnings from benchmath (e.g. an exact unit whose values vary).
	Warnings []string
}

// Report is the outcome of Compare.
type Report struct {
	OldName, NewName string
	Config           Config
	// Rows are ordered by Verdict, then Name, then Unit.
	Rows []Row
	// Warnings are about units rather than rows, sorted.
	Warnings []string
}

// Failed reports whether the gate fails: any regression, or, with
// Config.FailOnMissing, any benchmark present on one side only.
func (r *Report) Failed() bool {
	return r.Count(Regressed) > 0 || (r.Config.FailOnMissing && r.Count(OneSide) > 0)
}

// Count returns the number of rows with verdict v.
func (r *Report) Count(v Verdict) int {
	n := 0
	for _, row := range r.Rows {
		if row.Verdict == v {
			n++
		}
	}
	return n
}

// CompareFiles is Compare of the files at oldPath and newPath, named by
// their paths. A file that cannot be opened is an error, as unreadable
// input is.
func CompareFiles(oldPath, newPath string, cfg Config) (*Report, error) {
	oldF, err := os.Open(oldPath)
	if err != nil {
		return nil, err
	}
	defer oldF.Close()
	newF, err := os.Open(newPath)
	if err != nil {
		return nil, err
	}
	defer newF.Close()
	return Compare(oldF, newF, oldPath, newPath, cfg)
}

// Compare reads two benchmark files in the Go benchmark format and compares
// every benchmark and unit they contain. oldName and newName are used in
// messages and the report. An error means the input could not be used
// (errors.Is(err, ErrBadInput) for malformed files); a regression is not an
// error but Report.Failed.
func Compare(oldR, newR io.Reader, oldName, newName string, cfg Config) (*Report, error) {
	if err := cfg.Validate(); err != nil {
		return nil, fmt.Errorf("gate config: %w", err)
	}
	rd := new(benchfmt.Reader) // Reset by readFile; shared so unit metadata spans both files
	o, err := readFile(rd, oldR, oldName)
	if err != nil {
		return nil, err
	}
	n, err := readFile(rd, newR, newName)
	if err != nil {
		return nil, err
	}
	units := rd.Units()
	rep := &Report{OldName: oldName, NewName: newName, Config: cfg}

	keys := make(map[key]bool)
	for k := range o.values {
		keys[k] = true
	}
	for k := range n.values {
		keys[k] = true
	}
	unitSeen := make(map[string]bool)
	var bad []error
	for k := range keys {
		better, exact, warn, err := unitInfo(units, k.Unit)
		if err != nil {
			bad = append(bad, err)
			continue
		}
		if warn != "" && !unitSeen[k.Unit] {
			rep.Warnings = append(rep.Warnings, warn)
		}
		unitSeen[k.Unit] = true
		rep.Rows = append(rep.Rows, compareOne(k, o.values[k], n.values[k], better, exact, cfg))
	}
	if len(bad) > 0 {
		slices.SortFunc(bad, func(a, b error) int { return strings.Compare(a.Error(), b.Error()) })
		return nil, fmt.Errorf("%w: %w", ErrBadInput, errors.Join(slices.CompactFunc(bad, func(a, b error) bool { return a.Error() == b.Error() })...))
	}
	slices.SortFunc(rep.Rows, func(a, b Row) int {
		return cmp.Or(cmp.Compare(a.Verdict, b.Verdict), strings.Compare(a.Name, b.Name), strings.Compare(a.Unit, b.Unit))
	})
	slices.Sort(rep.Warnings)
	return rep, nil
}

// unitInfo resolves a unit's direction and assumption from its metadata,
// falling back to the conventions in the package comment.
func unitInfo(units benchfmt.UnitMetadataMap, unit string) (better int, exact bool, warn string, err error) {
	if m := units.Get(unit, "assume"); m != nil {
		switch m.Value {
		case "exact":
			exact = true
		case "nothing":
		default:
			file, line := m.Pos()
			return 0, false, "", fileline.Errorf(file, line, "unit %s: assume=%s, want exact or nothing", m.OrigUnit, m.Value)
		}
	}
	if m := units.Get(unit, "better"); m != nil {
		switch m.Value {
		case "higher":
			return 1, exact, "", nil
		case "lower":
			return -1, exact, "", nil
		}
		file, line := m.Pos()
		return 0, false, "", fileline.Errorf(file, line, "unit %s: better=%s, want higher or lower", m.OrigUnit, m.Value)
	}
	if strings.HasSuffix(unit, "/s") {
		return 1, exact, "", nil
	}
	// Costs are lower-is-better by convention; warn about units that do
	// not look like a cost, such as a quality measure whose metadata line
	// never reached the file.
	if !strings.HasSuffix(unit, "/op") && !strings.HasSuffix(unit, "bytes") && !strings.HasSuffix(unit, "-B") {
		warn = fmt.Sprintf("unit %s has no better= metadata; assuming lower is better", unit)
	}
	return -1, exact, warn, nil
}

func compareOne(k key, oldVals, newVals []float64, better int, exact bool, cfg Config) Row {
	row := Row{Name: k.Name, Unit: k.Unit, Better: better, Exact: exact,
		Delta: math.NaN(), RatioLo: math.NaN(), RatioHi: math.NaN(), P: math.NaN()}
	assume := benchmath.Assumption(benchmath.AssumeNothing)
	if exact {
		assume = benchmath.AssumeExact
	}
	thresholds := &benchmath.Thresholds{CompareAlpha: cfg.Alpha}
	side := func(vals []float64) (*Side, *benchmath.Sample) {
		if len(vals) == 0 {
			return nil, nil
		}
		s := benchmath.NewSample(slices.Clone(vals), thresholds)
		sum := assume.Summary(s, cfg.Confidence)
		row.Warnings = appendErrs(row.Warnings, s.Warnings, sum.Warnings)
		return &Side{N: len(s.Values), Center: sum.Center, Lo: sum.Lo, Hi: sum.Hi, Values: s.Values}, s
	}
	var so, sn *benchmath.Sample
	row.Old, so = side(oldVals)
	row.New, sn = side(newVals)
	switch {
	case row.Old == nil:
		row.Verdict, row.Note = OneSide, "only in new"
		return row
	case row.New == nil:
		row.Verdict, row.Note = OneSide, "only in old"
		return row
	}

	row.Delta = relChange(row.Old.Center, row.New.Center)
	if !exact && row.Old.Lo > 0 && !math.IsInf(row.Old.Hi, 0) && !math.IsInf(row.New.Lo, 0) && !math.IsInf(row.New.Hi, 0) {
		row.RatioLo, row.RatioHi = row.New.Lo/row.Old.Hi, row.New.Hi/row.Old.Lo
	}
	// worse is the relative change in the bad direction: positive when
	// the new value is worse.
	worse := row.Delta * float64(-better)

	if exact {
		switch {
		case row.New.Center == row.Old.Center:
			row.Verdict = Unchanged
		case (row.New.Center-row.Old.Center)*float64(better) < 0:
			row.Verdict = Regressed
			row.Note = fmt.Sprintf("exact unit moved in the bad direction by %s (%s is better)", formatExactDiff(row.New.Center-row.Old.Center), betterWord(better))
		default:
			row.Verdict = Improved
			row.Note = fmt.Sprintf("exact unit improved by %s", formatExactDiff(row.New.Center-row.Old.Center))
		}
		return row
	}

	if minP := minUTestP(row.Old.N, row.New.N); minP > cfg.Alpha {
		row.Verdict = TooFew
		row.Note = fmt.Sprintf("n=%d+%d: the U test needs n >= %d on each side to reach p <= %v", row.Old.N, row.New.N, minRuns(cfg.Alpha), cfg.Alpha)
		// The "need >= N samples for confidence interval" warnings
		// repeat what the note says.
		row.Warnings = nil
		return row
	}
	c := benchmath.AssumeNothing.Compare(so, sn)
	row.P = c.P
	allEqual := false
	for _, w := range c.Warnings {
		if errors.Is(w, stats.ErrSamplesEqual) {
			// Every value on both sides is the same: nothing changed.
			allEqual = true
			continue
		}
		row.Warnings = append(row.Warnings, w.Error())
	}
	significant := !(c.P > c.Alpha) // benchstat prints a delta instead of "~" exactly then
	switch {
	case allEqual:
		row.Verdict = Unchanged
		row.Note = "all values identical"
	case !significant:
		row.Verdict = Unchanged
		row.Note = fmt.Sprintf("~ not significant (p=%.3f > %v)", c.P, cfg.Alpha)
	case worse > cfg.Threshold && !math.IsNaN(row.RatioLo) && leastWorse(row, better) <= cfg.Threshold:
		// The medians moved past the threshold, but the confidence
		// interval of the ratio still reaches inside it: on a noisy
		// machine with many benchmarks this is where false alarms come
		// from, so it is reported, not failed.
		row.Verdict = Unchanged
		row.Note = fmt.Sprintf("%s worse, but the ratio CI reaches within the %s threshold: too noisy to call",
			formatPct(worse), formatPct(cfg.Threshold))
	case worse > cfg.Threshold:
		row.Verdict = Regressed
		row.Note = fmt.Sprintf("%s worse, over the %s threshold", formatPct(worse), formatPct(cfg.Threshold))
	case worse > 0:
		row.Verdict = Unchanged
		row.Note = fmt.Sprintf("%s worse, within the %s threshold", formatPct(worse), formatPct(cfg.Threshold))
	case worse < 0:
		row.Verdict = Improved
		row.Note = fmt.Sprintf("%s better", formatPct(-worse))
	default:
		row.Verdict = Unchanged
		row.Note = "same median"
	}
	return row
}

// relChange is (new-old)/|old|, with ±Inf for a change away from zero.
func relChange(old, new float64) float64 {
	switch {
	case old == new:
		return 0
	case old == 0:
		return math.Inf(int(math.Copysign(1, new)))
	}
	return (new - old) / math.Abs(old)
}

// minUTestP is the smallest two-sided p-value the exact Mann–Whitney U test
// can give for samples of sizes n1 and n2: every value of one sample below
// every value of the other, 2/C(n1+n2, n1).
func minUTestP(n1, n2 int) float64 {
	c := 1.0
	for i := 1; i <= n1; i++ {
		c = c * float64(n2+i) / float64(i)
	}
	return math.Min(1, 2/c)
}

// minRuns is the smallest equal sample size at which the U test can reach
// alpha.
func minRuns(alpha float64) int {
	n := 1
	for minUTestP(n, n) > alpha && n < 1000 {
		n++
	}
	return n
}

func appendErrs(dst []string, lists ...[]error) []string {
	for _, l := range lists {
		for _, e := range l {
			dst = append(dst, e.Error())
		}
	}
	return dst
}

func betterWord(better int) string {
	if better > 0 {
		return "higher"
	}
	return "lower"
}

// leastWorse is the smallest change in the bad direction that the ratio
// interval allows: for a cost (lower is better) RatioLo − 1, for a rate
// (higher is better) 1 − RatioHi.
func leastWorse(row Row, better int) float64 {
	if better > 0 {
		return 1 - row.RatioHi
	}
	return row.RatioLo - 1
}
