package harness

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Golden is the committed baseline of one cell. Its JSON form has sorted
// keys and four decimals so that a change reads well in a diff.
type Golden struct {
	Dataset         string                    `json:"dataset"`
	Split           string                    `json:"split"`
	System          string                    `json:"system"`
	Config          string                    `json:"config"`
	ConfigHash      string                    `json:"config_hash"`
	DataHash        string                    `json:"data_hash"`
	Tolerance       resultfmt.Fixed           `json:"tolerance"`
	ToleranceReason string                    `json:"tolerance_reason"`
	Versions        map[string]string         `json:"versions"`
	TasksRan        int                       `json:"tasks_ran"`
	Undefined       map[string]string         `json:"undefined,omitempty"`
	Metrics         map[string]resultfmt.Stat `json:"metrics"`
	Tasks           map[string]Outcome        `json:"tasks"`
}

// Outcome is one task's result in a golden file: the rank of its first
// relevant hit (0 = none within depth) and its per-measure values.
type Outcome struct {
	FirstRelevant int                        `json:"first_relevant"`
	Values        map[string]resultfmt.Fixed `json:"values"`
}

// Bootstrap parameters of every golden CI.
const (
	BootstrapResamples = 1000
	BootstrapSeed      = 20240623
)

// NewGolden summarises r as a golden baseline with the given tolerance.
func NewGolden(r *Result, tolerance float64, reason string) *Golden {
	g := &Golden{
		Dataset: r.Dataset, Split: r.Split, System: r.System, Config: r.Config,
		ConfigHash: r.ConfigHash, DataHash: r.DataHash,
		Tolerance: resultfmt.Fixed(tolerance), ToleranceReason: reason,
		Versions: map[string]string{"go": runtime.Version()},
		TasksRan: len(r.Tasks), Undefined: r.Undefined,
		Metrics: make(map[string]resultfmt.Stat, len(r.Measures)),
		Tasks:   make(map[string]Outcome, len(r.Tasks)),
	}
	for k, v := range r.Versions {
		g.Versions[k] = v
	}
	for _, m := range r.Measures {
		col, _ := r.Column(m.String())
		ci := metrics.Bootstrap(col, BootstrapResamples, BootstrapSeed)
		g.Metrics[m.String()] = resultfmt.Stat{Mean: resultfmt.Fixed(ci.Mean), Low: resultfmt.Fixed(ci.Low), High: resultfmt.Fixed(ci.High)}
	}
	for _, t := range r.Tasks {
		o := Outcome{FirstRelevant: t.FirstRelevant, Values: make(map[string]resultfmt.Fixed, len(r.Measures))}
		for i, m := range r.Measures {
			o.Values[m.String()] = resultfmt.Fixed(t.Values[i])
		}
		g.Tasks[t.ID] = o
	}
	return g
}

// Marshal returns the canonical bytes of g.
func (g *Golden) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ErrNoGolden is returned by ReadGolden when the file does not exist.
var ErrNoGolden = errors.New("no golden file")

// GoldenPath is where the golden file of a cell lives under root.
func GoldenPath(root, dataset, split, system, config string) string {
	return filepath.Join(root, dataset, split, system, config+".json")
}

// ReadGolden reads a golden file.
func ReadGolden(path string) (*Golden, error) {
	var g Golden
	err := datafile.ReadJSON(path, &g)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrNoGolden)
	}
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// WriteGolden writes g to path atomically (temp file, then rename), creating
// its directory. The temporary file of an earlier write that was killed
// before its rename (the golden file beside it is the old one, whole) is
// removed once it is a minute old.
func WriteGolden(path string, g *Golden) error {
	b, err := g.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.RemoveStale(path, time.Minute); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b)
}

// Check is the outcome of checking a run against its golden file
// (CheckGolden). The word "gate" is package gate's: a benchstat-style
// comparison of two benchmark files.
type Check struct {
	Failures     []string // each one fails the cell
	Improvements []string // reported with a hint to run -update
	// Versions lists what the run was made with that differs from the
	// baseline ("onnxruntime: 1.30.0 → 1.31.0"); shown with any failure, so
	// a drop that comes with a new library says so.
	Versions []string
}

// OK reports whether the run passes its golden file.
func (v *Check) OK() bool { return len(v.Failures) == 0 }

// CheckGolden checks r against g with the tolerance of the system's config (from
// code, never from the file: editing a golden file cannot loosen the check).
// A measure passes when its mean, at four decimals, is at least
// golden − tolerance. A failing measure lists the tasks whose value for it
// dropped. Every measure of the run must have a baseline and every baseline
// measure must be measured. A different data or config hash is a stale
// baseline and fails regardless of the numbers; so does a golden file made
// with another tolerance, and any task the system failed on.
func CheckGolden(g *Golden, r *Result, tolerance float64) *Check {
	v := &Check{}
	if g.DataHash != r.DataHash {
		now, was := hashPair(r.DataHash, g.DataHash)
		v.Failures = append(v.Failures, fmt.Sprintf("stale baseline: data hash %s ≠ golden %s (corpus, chunking or tasks changed)", now, was))
	}
	if g.ConfigHash != r.ConfigHash {
		now, was := hashPair(r.ConfigHash, g.ConfigHash)
		v.Failures = append(v.Failures, fmt.Sprintf("stale baseline: config hash %s ≠ golden %s: %s", now, was, configHashHelp))
	}
	tol := resultfmt.Round4(tolerance)
	if resultfmt.Round4(float64(g.Tolerance)) != tol {
		v.Failures = append(v.Failures, fmt.Sprintf("golden tolerance %.4f ≠ the config's %.4f: the baseline was made or edited with another tolerance (the check uses the config's)", resultfmt.Round4(float64(g.Tolerance)), tol))
	}
	for _, t := range r.Failed() {
		v.Failures = append(v.Failures, fmt.Sprintf("task %s failed: %s", t.ID, firstLine(t.Err)))
	}
	now := NewGolden(r, tolerance, g.ToleranceReason)
	for _, m := range sortedKeys(now.Metrics) {
		if _, ok := g.Metrics[m]; !ok {
			v.Failures = append(v.Failures, fmt.Sprintf("%s: measured (%.4f) but not in golden: a new measure needs a baseline", m, resultfmt.Round4(float64(now.Metrics[m].Mean))))
		}
	}
	for _, m := range sortedKeys(g.Metrics) {
		want := resultfmt.Round4(float64(g.Metrics[m].Mean))
		got, ok := now.Metrics[m]
		if !ok {
			v.Failures = append(v.Failures, fmt.Sprintf("%s: in golden (%.4f) but not measured by this run", m, want))
			continue
		}
		have := resultfmt.Round4(float64(got.Mean))
		switch {
		case have < resultfmt.Round4(want-tol):
			v.Failures = append(v.Failures, fmt.Sprintf("%s: %.4f → %.4f (tolerance %.4f; %s)", m, want, have, tol, flips(m, g, now)))
		case have > resultfmt.Round4(want+tol):
			v.Improvements = append(v.Improvements, fmt.Sprintf("%s: %.4f → %.4f (%s)", m, want, have, flips(m, g, now)))
		}
	}
	for _, k := range sortedKeys(mergeKeys(g.Versions, now.Versions)) {
		if a, b := g.Versions[k], now.Versions[k]; a != b {
			v.Versions = append(v.Versions, fmt.Sprintf("%s: %s → %s", k, orNone(a), orNone(b)))
		}
	}
	return v
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func mergeKeys(a, b map[string]string) map[string]bool {
	m := make(map[string]bool, len(a)+len(b))
	for k := range a {
		m[k] = true
	}
	for k := range b {
		m[k] = true
	}
	return m
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// flips describes the tasks whose value of measure m changed between the
// golden g and the run now, losses first.
func flips(m string, g, now *Golden) string {
	ids := make([]string, 0, len(now.Tasks))
	for id := range now.Tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	var lost, won []string
	for _, id := range ids {
		o, ok := g.Tasks[id]
		n := now.Tasks[id]
		if !ok {
			continue
		}
		before, after := resultfmt.Round4(float64(o.Values[m])), resultfmt.Round4(float64(n.Values[m]))
		switch {
		case after < before:
			lost = append(lost, id+" "+rankChange(o.FirstRelevant, n.FirstRelevant))
		case after > before:
			won = append(won, id+" "+rankChange(o.FirstRelevant, n.FirstRelevant))
		}
	}
	var parts []string
	if len(lost) > 0 {
		parts = append(parts, fmt.Sprintf("−%d %s: %s", len(lost), plural(len(lost), "task"), list(lost)))
	}
	if len(won) > 0 {
		parts = append(parts, fmt.Sprintf("+%d %s: %s", len(won), plural(len(won), "task"), list(won)))
	}
	if len(parts) == 0 {
		return "no per-task change"
	}
	return strings.Join(parts, "; ")
}

func rankChange(before, after int) string {
	r := func(n int) string {
		if n == 0 {
			return "none"
		}
		return "rank " + strconv.Itoa(n)
	}
	switch {
	case before != 0 && after == 0:
		return "lost " + r(before)
	case before == 0 && after != 0:
		return "found at " + r(after)
	case before == after:
		return "first relevant still at " + r(before)
	}
	return r(before) + " → " + r(after)
}

// list shows at most ten items; a check message stays readable.
func list(items []string) string {
	const max = 10
	if len(items) <= max {
		return strings.Join(items, ", ")
	}
	return strings.Join(items[:max], ", ") + fmt.Sprintf(", … %d more", len(items)-max)
}

func plural(n int, s string) string {
	if n == 1 {
		return s
	}
	return s + "s"
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
