package resultfmt

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// Cell is what one (dataset, split, system, config) run costs and rests
// on, written next to its records as CellFileName: the per-task JSONL
// carries quality and query latency, a cell file the rest — index time,
// peak RSS, the config and data hashes and the versions a golden file
// records. Readers treat a missing cell file as "not recorded".
type Cell struct {
	Dataset      string  `json:"dataset"`
	Split        string  `json:"split,omitempty"`
	System       string  `json:"system"`
	Config       string  `json:"config"`
	ConfigHash   string  `json:"config_hash,omitempty"`
	DataHash     string  `json:"data_hash,omitempty"`
	IndexSeconds float64 `json:"index_seconds"`
	IndexedDocs  int     `json:"indexed_docs"`
	// PeakRSSMB is the peak resident set size while the cell indexed and
	// searched, in MiB; 0 = not measured.
	PeakRSSMB float64           `json:"peak_rss_mb"`
	Versions  map[string]string `json:"versions,omitempty"`
	// IndexReused counts the corpora whose index an earlier run built
	// (systems.IndexReporter): IndexSeconds is then this run's time to
	// open it, and IndexBuildSeconds what building the cell's indexes took,
	// the earlier runs' time for the reused ones. Both are absent when
	// every index was built by this run.
	IndexReused       int     `json:"index_reused,omitempty"`
	IndexBuildSeconds float64 `json:"index_build_seconds,omitempty"`
	// Warnings are what the system noticed while indexing, each prefixed
	// with its corpus; WarnedTasks counts the records that carry warnings
	// of their own (systems.Warner).
	Warnings    []string `json:"warnings,omitempty"`
	WarnedTasks int      `json:"warned_tasks,omitempty"`
	// CPUClass is the class of CPU that ran the cell (internal/cpuclass:
	// "amd64-avx512-vnni", "amd64-avx2", …): embedding models round
	// differently across classes (docs/portability.md).
	CPUClass string `json:"cpu_class,omitempty"`
	Commit   string `json:"commit,omitempty"`
	// Cell is the runner's name of the cell, family/system/config/dataset
	// (benchtest), and Seconds the wall time of its index and searches
	// (harness.Run; loading the dataset, shared by its cells, is not
	// counted): what a sharded run balances its next assignment by
	// (benchtest -shard-costs). Empty and 0 in cell files written before
	// they were recorded.
	Cell    string  `json:"cell,omitempty"`
	Seconds float64 `json:"seconds,omitempty"`
	// Models are the embedding models the cell's system ran (a dense
	// system's one, a hybrid's members'); none for lexical systems and in
	// cell files written before they were recorded.
	Models []CellModel `json:"models,omitempty"`
	// Tokenizer names the tokenizer that counted the hits' tokens, with
	// its file's hash ("qwen3 sha256:aeb13307a71a"): the token measures
	// (tokens@k, covered_tok@B, ndcg_tok@B) are its counts. Empty when
	// none did.
	Tokenizer string `json:"tokenizer,omitempty"`
}

// CellModel describes one embedding model of a cell (systems.ModelInfo).
type CellModel struct {
	ID string `json:"id"`
	// Source: "built-in", "user manifest", "folder" or "endpoint".
	Source    string `json:"source,omitempty"`
	Dimension int    `json:"dimension,omitempty"`
	// Parameters counts the ONNX graph's weights; 0: unknown (a server's).
	Parameters int64 `json:"parameters,omitempty"`
	// Engine: "in-process" (ONNX Runtime) or "server".
	Engine string `json:"engine,omitempty"`
	// Served is a server's model name and declared revision.
	Served string `json:"served,omitempty"`
}

// Model names the cell's system configuration: "system/config".
func (c *Cell) Model() string { return c.System + "/" + c.Config }

// CellFileName is the file name of a cell in a results directory, next to
// RecordsFileName: "<dataset>.<split>.<system>.<config>.cell.json".
func CellFileName(dataset, split, system, config string) string {
	return fmt.Sprintf("%s.%s.%s.%s.cell.json", dataset, split, system, config)
}

// WriteCell writes c as indented JSON to file atomically.
func WriteCell(file string, c Cell) error {
	return atomicfile.WriteJSON(file, c)
}

// ReadCells reads every *.cell.json file of dir, sorted by dataset, split,
// system and config. A directory without cell files gives none.
func ReadCells(dir string) ([]Cell, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.cell.json"))
	if err != nil {
		return nil, err
	}
	var cells []Cell
	for _, f := range files {
		var c Cell
		if err := datafile.ReadJSON(f, &c); err != nil {
			return nil, err
		}
		if c.Dataset == "" || c.System == "" || c.Config == "" {
			return nil, fmt.Errorf("%s: cell needs dataset, system and config", f)
		}
		cells = append(cells, c)
	}
	sort.Slice(cells, func(i, j int) bool { return cellKey(cells[i]) < cellKey(cells[j]) })
	return cells, nil
}

func cellKey(c Cell) string {
	return strings.Join([]string{c.Dataset, c.Split, c.System, c.Config}, "\x00")
}
