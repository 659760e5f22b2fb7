// Package campaignfmt is the format of a campaign's run.json: what a model
// campaign leaves in its output directory next to the records of each
// system (package resultfmt), enough for `retrievalbench score` to
// recompute the reports without the repositories or the models. Meta,
// which says how the numbers of a report came to be, is also the head of
// every report package report writes.
//
// It is a leaf, as x/perf's benchfmt is: it imports only the standard
// library, corpus (the gold spans) and internal/{atomicfile,datafile}.
// Pooling, scoring and summaries are package report's; running a campaign
// is package campaign's.
package campaignfmt

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// Failure kinds a campaign collects. None of them stops the other systems.
const (
	FailRepoMissing       = "repo_missing"
	FailIndex             = "index_failed"
	FailQuery             = "query_failed"
	FailModel             = "model_failed"
	FailEmptyResults      = "empty_results"
	FailDimensionMismatch = "dimension_mismatch"
	FailMissingLabels     = "missing_labels"
	FailCommitDrift       = "commit_drift"
	// FailStaleGrade is a person's grade score did not use: the case or
	// the hit it was given to changed since it was graded (Task.SHA256,
	// resultfmt.Hit's text hash).
	FailStaleGrade = "stale_grade"
)

// Campaign is what a campaign leaves in its output directory as run.json,
// next to the records of each system under results/: everything score
// needs to recompute the reports without the repositories or the models.
type Campaign struct {
	Meta     Meta         `json:"meta"`
	Systems  []SystemCost `json:"systems"`
	Tasks    []Task       `json:"tasks"`
	Failures []Failure    `json:"failures"`
}

// Meta says how the numbers of a report came to be.
type Meta struct {
	Tool    string `json:"tool"`
	Version string `json:"version"`
	Commit  string `json:"commit"`
	// Generated is the only clock reading in a report: the same inputs
	// with the same Generated give byte-identical files.
	Generated  string      `json:"generated"`
	Host       string      `json:"host"`
	GoVersion  string      `json:"go_version"`
	ORTVersion string      `json:"ort_version,omitempty"`
	Backend    string      `json:"backend,omitempty"`
	Dataset    string      `json:"dataset"`
	Split      string      `json:"split,omitempty"`
	Ks         []int       `json:"ks"`
	PoolDepth  int         `json:"pool_depth,omitempty"`
	Files      []FileSum   `json:"files,omitempty"`
	Chunking   string      `json:"chunking,omitempty"`
	Models     []ModelInfo `json:"models,omitempty"`
	Repos      []RepoInfo  `json:"repos,omitempty"`
	Judgments  string      `json:"judgments,omitempty"`
	RSSMethod  string      `json:"rss_method,omitempty"`
	// Tokenizer names the tokenizer that counted every hit's tokens, with
	// its hash ("qwen3 sha256:aeb13307a71a"); "" when the campaign counted
	// none (docs/judging.md, Tokens).
	Tokenizer string   `json:"tokenizer,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	// Rules and Stats are how the campaign decided: its baseline, decision
	// rules and the statistics of its confidence intervals. score, report
	// and gate decide with them unless told otherwise; nil in a run.json
	// written before they were recorded (the defaults then apply, and the
	// commands say so).
	Rules *Rules `json:"rules,omitempty"`
	Stats *Stats `json:"stats,omitempty"`
}

// Rules are a campaign's decision rules as recorded in run.json (package
// report's DecisionRules is this value with its methods: what each field
// means is documented there).
type Rules struct {
	Baseline                string  `json:"baseline"`
	Gains                   []Gain  `json:"gains"`
	Primary                 string  `json:"primary"`
	Alpha                   float64 `json:"alpha"`
	MaxLatencyRatio         float64 `json:"max_latency_ratio"`
	MaxIndexRatio           float64 `json:"max_index_ratio"`
	MaxPeakRSSMB            float64 `json:"max_peak_rss_mb"`
	InteractiveLatencyRatio float64 `json:"interactive_latency_ratio"`
	// NonInferiorityMargin is how much a gate measure may lose (absolute)
	// and still count as "no worse"; 0 in an older run.json means the
	// default.
	NonInferiorityMargin float64 `json:"non_inferiority_margin,omitempty"`
	// MaxTokensRatio is the token budget relative to the baseline: the
	// paired per-case ratio of tokens@10 (the context the top 10 hits
	// hand an agent), over budget only when its whole interval is above
	// it; 0 (an older run.json, or none asked) means no token budget.
	MaxTokensRatio float64 `json:"max_tokens_ratio,omitempty"`
	MinCases       int     `json:"min_cases"`
	MinGroupCases  int     `json:"min_group_cases"`
	Resamples      int     `json:"resamples"`
	Seed           uint64  `json:"seed"`
	// Pareto is what tells two systems apart on a cost in the Pareto set
	// (report.Front); a zero field (an older run.json) means the default.
	Pareto ParetoRules `json:"pareto,omitzero"`
}

// ParetoRules are the Pareto set's cost tolerances: a cost tells two
// systems apart only beyond both its ratio and its floor.
type ParetoRules struct {
	// CostTolerance is the ratio latency (the whole interval of the paired
	// per-case ratio) and cold index time must differ by.
	CostTolerance float64 `json:"cost_tolerance,omitempty"`
	// LatencyFloorMS, IndexFloorSeconds: how far apart the median
	// latencies and the cold index times must be as well.
	LatencyFloorMS    float64 `json:"latency_floor_ms,omitempty"`
	IndexFloorSeconds float64 `json:"index_floor_seconds,omitempty"`
	// MemoryTolerance and MemoryFloorMB: the same for peak RSS.
	MemoryTolerance float64 `json:"memory_tolerance,omitempty"`
	MemoryFloorMB   float64 `json:"memory_floor_mb,omitempty"`
}

// Gain is one quality rule: Measure must improve by at least Threshold.
type Gain struct {
	Measure   string  `json:"measure"`
	Threshold float64 `json:"threshold"`
}

// Stats are the resampling statistics of a report's confidence intervals
// (metrics.Stats, recorded).
type Stats struct {
	Resamples int     `json:"resamples"`
	Seed      uint64  `json:"seed"`
	Alpha     float64 `json:"alpha"`
}

// FileSum names an input file and its SHA-256.
type FileSum struct {
	Role   string `json:"role"` // "cases", "repos manifest", "model manifest", "grading sheet"…
	Path   string `json:"path"`
	SHA256 string `json:"sha256"`
}

// SumFile returns the FileSum of the file at path (recorded with forward
// slashes) in the given role.
func SumFile(role, path string) (FileSum, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return FileSum{}, err
	}
	sum := sha256.Sum256(b)
	return FileSum{Role: role, Path: filepath.ToSlash(path), SHA256: hex.EncodeToString(sum[:])}, nil
}

// ModelInfo is the embedding configuration of one dense model.
type ModelInfo struct {
	ID            string `json:"id"`
	Dimension     int    `json:"dimension"`
	Pooling       string `json:"pooling"`
	MaxTokens     int    `json:"max_tokens"`
	QueryPrefix   string `json:"query_prefix"`
	PassagePrefix string `json:"passage_prefix"`
	Fingerprint   string `json:"fingerprint"`
}

// RepoInfo is one repository of a campaign.
type RepoInfo struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Commit string `json:"commit"`
	Docs   int    `json:"docs"`
	Chunks int    `json:"chunks"`
	Note   string `json:"note,omitempty"`
}

// SystemCost is the cost side of one system in a campaign.
type SystemCost struct {
	Name         string  `json:"name"` // "system/config"
	Status       string  `json:"status"`
	IndexSeconds float64 `json:"index_seconds"`
	IndexedDocs  int     `json:"indexed_docs"`
	// PeakRSSMB is the peak resident set size while the system indexed and
	// searched, in MiB (Meta.RSSMethod says how it was measured); 0 = unknown.
	PeakRSSMB float64 `json:"peak_rss_mb"`
	Dimension int     `json:"dimension,omitempty"`
	// IndexReused counts the repositories whose index an earlier run built;
	// IndexBuildSeconds is then what building every index took, the earlier
	// runs' time for those (IndexSeconds is this run's).
	IndexReused       int     `json:"index_reused,omitempty"`
	IndexBuildSeconds float64 `json:"index_build_seconds,omitempty"`
	// IndexBuildCPUClasses are the CPU classes (internal/cpuclass) the
	// builds behind IndexBuildSeconds, or IndexSeconds, were timed on,
	// sorted: this machine's for an index built in the run, the recorded
	// one for a reused index ("unknown" when none was). Empty in a run.json
	// written before they were recorded.
	IndexBuildCPUClasses []string `json:"index_build_cpu_classes,omitempty"`
	// Warnings are what the system noticed while indexing (systems.Warner).
	Warnings []string `json:"warnings,omitempty"`
}

// System statuses.
const (
	StatusOK      = "ok"
	StatusPartial = "partial" // some repositories or queries failed
	StatusFailed  = "failed"
)

// Task is one case as the reports need it.
type Task struct {
	ID         string `json:"id"`
	Repo       string `json:"repo"`
	Intent     string `json:"intent"`
	Difficulty string `json:"difficulty,omitempty"`
	Query      string `json:"query"`
	Gold       []Gold `json:"gold"`
}

// SHA256 is the first 16 hex digits of the SHA-256 of what a grade of
// the task was given against: its query and its gold (kind, id, grade and
// path of each unit, in the case file's order; not the spans, which say
// where the gold lies, not what it is). A grading sheet records it, and a
// grade whose task's hash changed is stale.
func (t Task) SHA256() string {
	h := sha256.New()
	h.Write([]byte("query\x00" + t.Query + "\x00"))
	for _, g := range t.Gold {
		h.Write([]byte(g.Kind + "\x00" + g.ID + "\x00" + strconv.Itoa(g.Grade) + "\x00" + g.Path + "\x00"))
	}
	return hex.EncodeToString(h.Sum(nil))[:16]
}

// Gold is one judgment of the case file, matched against hits by package
// judge, as in a go test cell.
type Gold struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Grade int    `json:"grade"`
	// Path is the file a symbol is judged in (datasets.Relevant.Path).
	Path string `json:"path,omitempty"`
	// Spans are where a symbol or section lies in its repository, for
	// judging location hits (external systems) without the repository.
	Spans []corpus.Span `json:"spans,omitempty"`
}

// Failure is one thing that went wrong, kept for the report.
type Failure struct {
	Kind    string `json:"kind"`
	System  string `json:"system,omitempty"`
	Repo    string `json:"repo,omitempty"`
	Task    string `json:"task,omitempty"`
	Message string `json:"message"`
}

func (f Failure) String() string {
	s := f.Kind
	for _, p := range []string{f.System, f.Repo, f.Task} {
		if p != "" {
			s += " " + p
		}
	}
	return s + ": " + f.Message
}

// Write writes run as indented JSON to file atomically (temp file, then
// rename).
func Write(file string, run *Campaign) error {
	return atomicfile.WriteJSON(file, run)
}

// Read reads a run.json; malformed JSON is an error naming file:line.
func Read(file string) (*Campaign, error) {
	var run Campaign
	if err := datafile.ReadJSON(file, &run); err != nil {
		return nil, err
	}
	return &run, nil
}
