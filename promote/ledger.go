package promote

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Candidate is what a test evaluation consumes the test split for: an arm
// and its declared lineage.
//
// Lineage is declared, not inferred: a config hash only says whether two
// configs are identical, never whether one is a tweak of the other. So a
// candidate names its Family (default: its own "system/config"; a sweep
// over one idea — say every fusion weight of one hybrid — declares one
// family for all its points) and, optionally, the Parent it was derived
// from ("system/config" or a config hash, full or a prefix of at least 12
// hex digits). The ledger records both, so a dodge (a fresh family name
// for a tweak of a rejected config) is itself on the record.
type Candidate struct {
	Arm
	Family string `json:"family"`
	Parent string `json:"parent,omitempty"`
}

// FamilyOrDefault returns c.Family, or "system/config" when it is empty.
func (c Candidate) FamilyOrDefault() string {
	if c.Family != "" {
		return c.Family
	}
	return c.Name()
}

// Entry is one line of the ledger: one test-split evaluation.
type Entry struct {
	Time      string    `json:"time"`   // RFC 3339, UTC
	Commit    string    `json:"commit"` // git HEAD, "+dirty" when the tree had changes
	Candidate Candidate `json:"candidate"`
	Baseline  Arm       `json:"baseline"`
	// Datasets are the "dataset[split]" comparisons the verdict made.
	Datasets []string `json:"datasets"`
	Measure  string   `json:"measure"`
	MeanDiff float64  `json:"mean_diff"`
	P        float64  `json:"p"`
	// PHolm is P corrected for the earlier test verdicts against the same
	// baseline (StageResult.PHolm); absent for the first.
	PHolm   float64  `json:"p_holm,omitempty"`
	Verdict string   `json:"verdict"` // DecisionConfirmed, DecisionRejected or DecisionError
	Reasons []string `json:"reasons"`
	// Forced is set when the evaluation overrode a refusal; Overrode is the
	// ledger line that forbade it and ForceReason the reason given.
	Forced      bool   `json:"forced"`
	ForceReason string `json:"force_reason,omitempty"`
	Overrode    int    `json:"overrode,omitempty"`
}

// Ledger is the append-only log of test-split use.
type Ledger struct {
	Path    string
	Entries []Entry
	raw     []byte // the file as read: every append must keep it as prefix
}

// ReadLedger reads the ledger at path; a missing file is an empty ledger.
// A malformed line is an error naming path:line.
func ReadLedger(path string) (*Ledger, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Ledger{Path: path}, nil
	}
	if err != nil {
		return nil, err
	}
	es, err := parseLedger(path, b)
	if err != nil {
		return nil, err
	}
	return &Ledger{Path: path, Entries: es, raw: b}, nil
}

func parseLedger(path string, b []byte) ([]Entry, error) {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return nil, fmt.Errorf("%s: last line is not terminated by a newline (truncated write?)", path)
	}
	var es []Entry
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		var e Entry
		dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, &fileline.Error{File: path, Line: line, Err: err}
		}
		if e.Candidate.System == "" || e.Verdict == "" {
			return nil, fileline.Errorf(path, line, "entry needs a candidate and a verdict")
		}
		es = append(es, e)
	}
	return es, sc.Err()
}

// RefusalError is a test evaluation the ledger forbids: Line (1-based) of
// the ledger is the entry that forbids it.
type RefusalError struct {
	Path  string
	Line  int
	Entry Entry
	Why   string
}

func (e *RefusalError) Error() string {
	line, _ := marshal(e.Entry)
	return fmt.Sprintf("%s:%d: test split refused: %s\n\t%s\n(to override, pass a reason to -force-test; the override is recorded in the ledger)",
		e.Path, e.Line, e.Why, bytes.TrimSpace(line))
}

// Check returns a *RefusalError when the ledger forbids a test evaluation
// of c, nil when it allows it. It forbids:
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
func (l *Ledger) Check(c Candidate) error {
	for i, e := range l.Entries {
		if sameArm(e.Candidate.Arm, c.Arm) {
			return l.refuse(i, fmt.Sprintf("%s (config hash %s) was already evaluated on test on %s: verdict %s; a candidate gets one test evaluation",
				c.Name(), short(c.Hash), e.Time, e.Verdict))
		}
	}
	for i, e := range l.Entries {
		if e.Verdict != DecisionRejected || e.Candidate.System != c.System {
			continue
		}
		if e.Candidate.FamilyOrDefault() == c.FamilyOrDefault() {
			return l.refuse(i, fmt.Sprintf("%s is in family %q, in which %s was rejected on test on %s; variants of a rejected config get no fresh test shot — go back to small_dev",
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
				return l.refuse(i, fmt.Sprintf("%s descends from %s (parent %q), which was rejected on test on %s; variants of a rejected config get no fresh test shot — go back to small_dev",
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

func (l *Ledger) refuse(i int, why string) error {
	return &RefusalError{Path: l.Path, Line: i + 1, Entry: l.Entries[i], Why: why}
}

func sameArm(a, b Arm) bool {
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
func refersTo(ref string, a Arm) bool {
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

// Append adds e as the last line of the ledger file. It re-reads the file
// and fails if it changed since ReadLedger (another evaluation appended in
// between: read it again and re-check), writes the old bytes plus the new
// line to a temporary file, checks that the old bytes are an exact prefix
// of what it wrote, and renames it over the ledger. Earlier lines are never
// rewritten.
func (l *Ledger) Append(e Entry) error {
	line, err := marshal(e)
	if err != nil {
		return err
	}
	cur, err := os.ReadFile(l.Path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if !bytes.Equal(cur, l.raw) {
		return fmt.Errorf("%s changed since it was read (a concurrent evaluation?): read it again and re-check", l.Path)
	}
	next := make([]byte, 0, len(cur)+len(line)+1)
	next = append(append(next, cur...), line...)
	if err := VerifyAppendOnly(cur, next); err != nil {
		return fmt.Errorf("%s: %w", l.Path, err)
	}
	if err := atomicfile.WriteFile(l.Path, next); err != nil {
		return err
	}
	l.raw = next
	l.Entries = append(l.Entries, e)
	return nil
}

// VerifyAppendOnly checks that next is old followed by whole, well-formed
// ledger lines: the check a CI job can run between a ledger's committed and
// proposed versions.
func VerifyAppendOnly(old, next []byte) error {
	if !bytes.HasPrefix(next, old) {
		n := 0
		for n < len(old) && n < len(next) && old[n] == next[n] {
			n++
		}
		return fmt.Errorf("ledger rewritten: line %d differs from the earlier version (the ledger is append-only)", bytes.Count(old[:n], []byte("\n"))+1)
	}
	if _, err := parseLedger("appended lines", next[len(old):]); err != nil {
		return err
	}
	return nil
}

// Admit decides whether a test evaluation of c may run. Without a refusal
// it returns (nil, nil). With one, it returns the refusal as the error —
// unless forceReason is non-empty: then the evaluation is admitted and the
// overridden refusal returned, for the caller to record in its Entry
// (Forced, ForceReason, Overrode).
func (l *Ledger) Admit(c Candidate, forceReason string) (*RefusalError, error) {
	err := l.Check(c)
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
func NewEntry(v *StageResult, c Candidate, time, commit string, overrode *RefusalError, forceReason string) Entry {
	c.Arm = v.Candidate
	if c.Family == "" {
		c.Family = c.Name()
	}
	e := Entry{
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

// PriorP returns the raw p-values of the ledger's earlier test verdicts
// (confirmed or rejected) of other candidates against base on dataset and
// measure: the comparisons a new one joins, for EvaluateAmong. base
// matches by name and, when both sides record one, by config hash.
func (l *Ledger) PriorP(base Arm, dataset, measure string) []float64 {
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
func NewErrorEntry(base Arm, c Candidate, dataset, time, commit string, failure error, overrode *RefusalError, forceReason string) Entry {
	if c.Family == "" {
		c.Family = c.Name()
	}
	e := Entry{Time: time, Commit: commit, Candidate: c, Baseline: base, Datasets: []string{dataset + "[" + StageTest + "]"},
		Verdict: DecisionError, Reasons: []string{failure.Error()}}
	if overrode != nil {
		e.Forced, e.ForceReason, e.Overrode = true, forceReason, overrode.Line
	}
	return e
}

// Line is e as the ledger writes it, without the newline.
func (e Entry) Line() string {
	b, err := marshal(e)
	if err != nil {
		return fmt.Sprintf("%+v", e)
	}
	return string(bytes.TrimSpace(b))
}

// marshal encodes e as one ledger line, newline included, without HTML
// escaping (a reason reads "p < α", not "p \u003c α").
func marshal(e Entry) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(e); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
