// Package ledgerfmt is the format of the test-split ledger,
// golden/LEDGER.jsonl: one JSON line per test-split evaluation of a
// candidate against a baseline, appended atomically and never rewritten.
//
// It is a leaf, as x/perf's benchfmt is: it imports only the standard
// library, fileline and internal/atomicfile. What the lines mean — which
// evaluation the ledger refuses, the earlier p-values a new one answers
// for, the line a verdict becomes — is package promote's.
package ledgerfmt

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
)

// Arm names one side of a comparison: a system and a config, with the
// config's hash when known.
type Arm struct {
	System string `json:"system"`
	Config string `json:"config"`
	Hash   string `json:"config_hash,omitempty"`
}

// Name is "system/config".
func (a Arm) Name() string { return a.System + "/" + a.Config }

// ParseArm parses "system/config".
func ParseArm(s string) (Arm, error) {
	sys, cfg, ok := strings.Cut(s, "/")
	if !ok || sys == "" || cfg == "" || strings.Contains(cfg, "/") {
		return Arm{}, fmt.Errorf("%q: want system/config", s)
	}
	return Arm{System: sys, Config: cfg}, nil
}

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
	// baseline (promote.StageResult.PHolm); absent for the first.
	PHolm   float64  `json:"p_holm,omitempty"`
	Verdict string   `json:"verdict"` // promote.DecisionConfirmed, DecisionRejected or DecisionError
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

// Read reads the ledger at path; a missing file is an empty ledger. A
// malformed line is an error naming path:line.
func Read(path string) (*Ledger, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return &Ledger{Path: path}, nil
	}
	if err != nil {
		return nil, err
	}
	es, err := parse(path, b)
	if err != nil {
		return nil, err
	}
	return &Ledger{Path: path, Entries: es, raw: b}, nil
}

func parse(path string, b []byte) ([]Entry, error) {
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

// Append adds e as the last line of the ledger file. It re-reads the file
// and fails if it changed since Read (another evaluation appended in
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
	if _, err := parse("appended lines", next[len(old):]); err != nil {
		return err
	}
	return nil
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
