// Package goldenfmt is the golden file format: the committed baseline of
// one cell (dataset × split × system × config) under golden/, its per-CPU-
// class baselines, where it lives, how it is read and written, and what
// -update writes over an older file (Merge).
//
// It is a leaf, as x/perf's benchfmt is: it imports only the standard
// library, resultfmt (the four-decimal numbers) and internal/{atomicfile,
// datafile}. Making a baseline from a run (harness.NewGolden) and checking a
// run against one (harness.CheckGolden) are behaviour and live in harness.
package goldenfmt

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// Golden is the committed baseline of one cell. Its JSON form has sorted
// keys and four decimals so that a change reads well in a diff.
type Golden struct {
	Dataset         string            `json:"dataset"`
	Split           string            `json:"split"`
	System          string            `json:"system"`
	Config          string            `json:"config"`
	ConfigHash      string            `json:"config_hash"`
	DataHash        string            `json:"data_hash"`
	Tolerance       resultfmt.Fixed   `json:"tolerance"`
	ToleranceReason string            `json:"tolerance_reason"`
	Versions        map[string]string `json:"versions"`
	// CPUClass is the class of CPU that made Metrics and Tasks
	// (internal/cpuclass): embedding models round differently across
	// classes. Empty in a file made before it was recorded: it then stands
	// for every class.
	CPUClass  string                    `json:"cpu_class,omitempty"`
	TasksRan  int                       `json:"tasks_ran"`
	Undefined map[string]string         `json:"undefined,omitempty"`
	Metrics   map[string]resultfmt.Stat `json:"metrics"`
	Tasks     map[string]TaskOutcome    `json:"tasks"`
	// ByCPUClass holds the baselines of the same data and config made on
	// other CPU classes (-update on such a machine adds its class here and
	// leaves the rest of the file alone). A run is checked against the
	// baseline of its own class when the file has one, else against the
	// main one (docs/portability.md).
	ByCPUClass map[string]*ClassBaseline `json:"by_cpu_class,omitempty"`
}

// ClassBaseline is a cell's baseline on one more CPU class: what differs
// from the main baseline of its golden file.
type ClassBaseline struct {
	Versions map[string]string         `json:"versions"`
	TasksRan int                       `json:"tasks_ran"`
	Metrics  map[string]resultfmt.Stat `json:"metrics"`
	Tasks    map[string]TaskOutcome    `json:"tasks"`
}

// TaskOutcome is one task's result in a golden file: the rank of its first
// relevant hit (0 = none within depth) and its per-measure values.
type TaskOutcome struct {
	FirstRelevant int                        `json:"first_relevant"`
	Values        map[string]resultfmt.Fixed `json:"values"`
}

// For returns the baseline of g that a run on CPU class class is checked
// against, as a Golden of that class, and whether it is of that class: the
// main baseline when its class is class (or either is unknown), the
// ByCPUClass entry of class when there is one, else the main baseline.
func (g *Golden) For(class string) (*Golden, bool) {
	if class == "" || g.CPUClass == "" || class == g.CPUClass {
		return g, true
	}
	b, ok := g.ByCPUClass[class]
	if !ok {
		return g, false
	}
	v := *g
	v.CPUClass, v.Versions, v.TasksRan, v.Metrics, v.Tasks, v.ByCPUClass = class, b.Versions, b.TasksRan, b.Metrics, b.Tasks, nil
	return &v, true
}

// Merge is what -update writes when old is the golden file on disk and now
// the run's new baseline. A run of another CPU class than old's main
// baseline, on the same data, config and tolerance, adds or replaces its
// class's entry (none when its results equal the main baseline's) and keeps
// the rest of old. Otherwise now is the main
// baseline, and keeps old's entries for other classes only while the data,
// config, tolerance and every version but Go's are unchanged (a new model
// file makes them stale).
func Merge(old, now *Golden) *Golden {
	same := old != nil && old.DataHash == now.DataHash && old.ConfigHash == now.ConfigHash &&
		resultfmt.Round4(float64(old.Tolerance)) == resultfmt.Round4(float64(now.Tolerance))
	if !same {
		return now
	}
	if old.CPUClass != "" && now.CPUClass != "" && old.CPUClass != now.CPUClass {
		m := *old
		m.ByCPUClass = make(map[string]*ClassBaseline, len(old.ByCPUClass)+1)
		for k, b := range old.ByCPUClass {
			m.ByCPUClass[k] = b
		}
		// A class that agrees with the main baseline (BM25, a float
		// model) needs no entry of its own.
		delete(m.ByCPUClass, now.CPUClass)
		if !sameResults(old, now) {
			m.ByCPUClass[now.CPUClass] = &ClassBaseline{Versions: now.Versions, TasksRan: now.TasksRan, Metrics: now.Metrics, Tasks: now.Tasks}
		}
		if len(m.ByCPUClass) == 0 {
			m.ByCPUClass = nil
		}
		return &m
	}
	for k, b := range old.ByCPUClass {
		if k != now.CPUClass && sameVersions(b.Versions, now.Versions) {
			if now.ByCPUClass == nil {
				now.ByCPUClass = map[string]*ClassBaseline{}
			}
			now.ByCPUClass[k] = b
		}
	}
	return now
}

// sameResults reports whether a and b hold the same measures and per-task
// outcomes at four decimals.
func sameResults(a, b *Golden) bool {
	if a.TasksRan != b.TasksRan || len(a.Metrics) != len(b.Metrics) || len(a.Tasks) != len(b.Tasks) {
		return false
	}
	for m, s := range a.Metrics {
		t, ok := b.Metrics[m]
		if !ok || resultfmt.Round4(float64(s.Mean)) != resultfmt.Round4(float64(t.Mean)) {
			return false
		}
	}
	for id, o := range a.Tasks {
		n, ok := b.Tasks[id]
		if !ok || o.FirstRelevant != n.FirstRelevant || len(o.Values) != len(n.Values) {
			return false
		}
		for m, x := range o.Values {
			if resultfmt.Round4(float64(x)) != resultfmt.Round4(float64(n.Values[m])) {
				return false
			}
		}
	}
	return true
}

// sameVersions reports whether a and b agree on everything but the Go
// version.
func sameVersions(a, b map[string]string) bool {
	for _, m := range []map[string]string{a, b} {
		for k := range m {
			if k != "go" && a[k] != b[k] {
				return false
			}
		}
	}
	return true
}

// Marshal returns the canonical bytes of g.
func (g *Golden) Marshal() ([]byte, error) {
	b, err := json.MarshalIndent(g, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ErrMissing is returned by Read when the file does not exist.
var ErrMissing = errors.New("no golden file")

// Path is where the golden file of a cell lives under root.
func Path(root, dataset, split, system, config string) string {
	return filepath.Join(root, dataset, split, system, config+".json")
}

// Read reads a golden file; malformed JSON is an error naming file:line.
func Read(path string) (*Golden, error) {
	var g Golden
	err := datafile.ReadJSON(path, &g)
	if errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("%s: %w", path, ErrMissing)
	}
	if err != nil {
		return nil, err
	}
	return &g, nil
}

// Write writes g to path atomically (temp file, then rename), creating
// its directory. The temporary file of an earlier write that was killed
// before its rename (the golden file beside it is the old one, whole) is
// removed once it is a minute old.
func Write(path string, g *Golden) error {
	b, err := g.Marshal()
	if err != nil {
		return err
	}
	if err := atomicfile.RemoveStale(path, time.Minute); err != nil {
		return err
	}
	return atomicfile.WriteFile(path, b)
}
