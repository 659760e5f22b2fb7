package promote

import (
	"errors"
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/ledgerfmt"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// RefusalError is a test evaluation the ledger forbids: Line (1-based) of
// the ledger is the entry that forbids it.
type RefusalError struct {
	Path  string
	Line  int
	Entry ledgerfmt.Entry
	Why   string
}

func (e *RefusalError) Error() string {
	return fmt.Sprintf("%s:%d: test split refused: %s\n\t%s\n(to override, pass a reason to -force-test; the override is recorded in the ledger)",
		e.Path, e.Line, e.Why, e.Entry.Line())
}

// Check returns a *RefusalError when ledger l forbids a test evaluation of
// c, nil when it allows it. It forbids:
//
//   - the same candidate again, whatever its verdict: same system and the
//     same config hash (or, when either hash is unknown, the same config
//     name);
//   - a variant of a rejected candidate: the same system with the same
//     family as a rejected entry, or a parent chain (c.Parent, then the
//     parents the ledger records for it, and so on) that reaches a
//     rejected entry's candidate.
//
// The first forbidding line is reported.
func Check(l *ledgerfmt.Ledger, c ledgerfmt.Candidate) error {
	for i, e := range l.Entries {
		if sameArm(e.Candidate.Arm, c.Arm) {
			return refuse(l, i, fmt.Sprintf("%s (config hash %s) was already evaluated on test on %s: verdict %s; a candidate gets one test evaluation",
				c.Name(), short(c.Hash), e.Time, e.Verdict))
		}
	}
	for i, e := range l.Entries {
		if e.Verdict != DecisionRejected || e.Candidate.System != c.System {
			continue
		}
		if e.Candidate.FamilyOrDefault() == c.FamilyOrDefault() {
			return refuse(l, i, fmt.Sprintf("%s is in family %q, in which %s was rejected on test on %s; variants of a rejected config get no fresh test shot — go back to small_dev",
				c.Name(), c.FamilyOrDefault(), e.Candidate.Name(), e.Time))
		}
	}
	// Walk c's parent chain through the ledger.
	seen := map[string]bool{}
	for ref := c.Parent; ref != "" && !seen[ref]; {
		seen[ref] = true
		next := ""
		for i, e := range l.Entries {
			if !refersTo(ref, e.Candidate.Arm) {
				continue
			}
			if e.Verdict == DecisionRejected {
				return refuse(l, i, fmt.Sprintf("%s descends from %s (parent %q), which was rejected on test on %s; variants of a rejected config get no fresh test shot — go back to small_dev",
					c.Name(), e.Candidate.Name(), ref, e.Time))
			}
			if next == "" {
				next = e.Candidate.Parent
			}
		}
		ref = next
	}
	return nil
}

func refuse(l *ledgerfmt.Ledger, i int, why string) error {
	return &RefusalError{Path: l.Path, Line: i + 1, Entry: l.Entries[i], Why: why}
}

func sameArm(a, b ledgerfmt.Arm) bool {
	if a.System != b.System {
		return false
	}
	if a.Hash != "" && b.Hash != "" {
		return a.Hash == b.Hash
	}
	return a.Config == b.Config
}

// refersTo reports whether ref ("system/config" or a config hash prefix of
// at least 12 digits) names a.
func refersTo(ref string, a ledgerfmt.Arm) bool {
	if ref == a.Name() {
		return true
	}
	return len(ref) >= 12 && a.Hash != "" && strings.HasPrefix(a.Hash, ref)
}

func short(h string) string {
	if h == "" {
		return "unknown"
	}
	if len(h) > 12 {
		return h[:12]
	}
	return h
}

// Admit decides whether ledger l lets a test evaluation of c run. Without a refusal
// it returns (nil, nil). With one, it returns the refusal as the error —
// unless forceReason is non-empty: then the evaluation is admitted and the
// overridden refusal returned, for the caller to record in its Entry
// (Forced, ForceReason, Overrode).
func Admit(l *ledgerfmt.Ledger, c ledgerfmt.Candidate, forceReason string) (*RefusalError, error) {
	err := Check(l, c)
	if err == nil {
		return nil, nil
	}
	var r *RefusalError
	if !errors.As(err, &r) || strings.TrimSpace(forceReason) == "" {
		return nil, err
	}
	return r, nil
}

// NewEntry builds the ledger line of a test-stage verdict. overrode is the
// refusal Admit let through (nil if none).
func NewEntry(v *StageResult, c ledgerfmt.Candidate, time, commit string, overrode *RefusalError, forceReason string) ledgerfmt.Entry {
	c.Arm = v.Candidate
	if c.Family == "" {
		c.Family = c.Name()
	}
	e := ledgerfmt.Entry{
		Time: time, Commit: commit, Candidate: c, Baseline: v.Baseline, Datasets: v.Datasets(),
		Measure: v.Primary.Measure, MeanDiff: resultfmt.Round4(v.Primary.Diff.Mean), P: resultfmt.Round4(v.Primary.P),
		PHolm:   resultfmt.Round4(v.PHolm),
		Verdict: v.Decision, Reasons: v.Reasons,
	}
	if overrode != nil {
		e.Forced, e.ForceReason, e.Overrode = true, forceReason, overrode.Line
	}
	return e
}

// PriorP returns the raw p-values of ledger l's earlier test verdicts
// (confirmed or rejected) of other candidates against base on dataset and
// measure: the comparisons a new one joins, for EvaluateAmong. base
// matches by name and, when both sides record one, by config hash.
func PriorP(l *ledgerfmt.Ledger, base ledgerfmt.Arm, dataset, measure string) []float64 {
	if l == nil {
		return nil
	}
	var ps []float64
	for _, e := range l.Entries {
		switch {
		case e.Verdict != DecisionConfirmed && e.Verdict != DecisionRejected:
		case e.Baseline.Name() != base.Name() || (e.Baseline.Hash != "" && base.Hash != "" && e.Baseline.Hash != base.Hash):
		case e.Measure != measure || len(e.Datasets) == 0 || e.Datasets[0] != dataset+"["+StageTest+"]":
		default:
			ps = append(ps, e.P)
		}
	}
	return ps
}

// DecisionError is the ledger verdict of a test evaluation that started
// (its go test runs print means as they go, so the split is spent) but
// produced no verdict. It refuses a re-run like any other line.
const DecisionError = "error"

// NewErrorEntry builds the ledger line of a test evaluation that failed
// after it started running on the test split.
func NewErrorEntry(base ledgerfmt.Arm, c ledgerfmt.Candidate, dataset, time, commit string, failure error, overrode *RefusalError, forceReason string) ledgerfmt.Entry {
	if c.Family == "" {
		c.Family = c.Name()
	}
	e := ledgerfmt.Entry{Time: time, Commit: commit, Candidate: c, Baseline: base, Datasets: []string{dataset + "[" + StageTest + "]"},
		Verdict: DecisionError, Reasons: []string{failure.Error()}}
	if overrode != nil {
		e.Forced, e.ForceReason, e.Overrode = true, forceReason, overrode.Line
	}
	return e
}
