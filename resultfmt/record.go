package resultfmt

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// Record is the result of one task for one system: the canonical line of
// per-task JSONL results.
type Record struct {
	Dataset    string `json:"dataset"`
	Split      string `json:"split,omitempty"`
	System     string `json:"system"`
	Config     string `json:"config"`
	Task       string `json:"task"`
	Repo       string `json:"repo,omitempty"`
	Intent     string `json:"intent,omitempty"`
	Difficulty string `json:"difficulty,omitempty"`
	Library    string `json:"library,omitempty"`
	QAType     string `json:"qa_type,omitempty"`
	Language   string `json:"language,omitempty"`
	// Naming: whether the query names the definition it asks for
	// (datasets.Meta.Naming: "exact", "parts", "none"; RepoQA's doc tasks).
	Naming        string             `json:"naming,omitempty"`
	Query         string             `json:"query"`
	FirstRelevant int                `json:"first_relevant"`
	Values        map[string]float64 `json:"values"`
	LatencyMS     float64            `json:"latency_ms"`
	Hits          []Hit              `json:"hits"`
	Error         string             `json:"error,omitempty"`
	// Warnings are what the system noticed without failing the task (hits
	// outside the corpus, a place named twice: systems.Warner).
	Warnings []string `json:"warnings,omitempty"`
}

// Hit is one ranked hit of a Record.
type Hit struct {
	Rank   int    `json:"rank"`
	DocID  string `json:"doc_id"`
	Kind   string `json:"kind,omitempty"`
	Path   string `json:"path,omitempty"`
	Symbol string `json:"symbol,omitempty"`
	// StartLine and EndLine are the lines the hit points at (a chunk's, or
	// what a location resolves to; none for a whole file). Located marks
	// a location hit (an external system's): DocID is then
	// "path:start-end" of what it points at, or the path for a whole file,
	// an identity for pooling, and the judge matches the location, not a
	// doc (docs/judging.md).
	StartLine int     `json:"start_line,omitempty"`
	EndLine   int     `json:"end_line,omitempty"`
	Located   bool    `json:"located,omitempty"`
	Score     float64 `json:"score"`
	// TextSHA is the first 16 hex digits of the SHA-256 of the hit's doc
	// (title and text) when the writer had it (a campaign): a grade given
	// to the hit is bound to it (report's grading sheet). "" when unknown.
	TextSHA string `json:"text_sha256,omitempty"`
	Grade   int    `json:"grade"`
	// Unit is the qrels id the judge gave the hit (package judge): a gold
	// unit, a pooled doc, or a non-relevant id of its own.
	Unit string `json:"unit,omitempty"`
	// Judged is false for a hit nobody graded; its Grade is 0 then.
	Judged bool `json:"judged"`
	// Tokens are the tokens of the hit's text under the cell's tokenizer
	// (Cell.Tokenizer), for the hits the token measures read; a composite
	// answer's, all of its text, on its first hit. 0: not counted.
	Tokens int `json:"tokens,omitempty"`
}

// Model names the system configuration of r as reports show it:
// "system/config".
func (r *Record) Model() string { return r.System + "/" + r.Config }

// WriteRecords writes recs as JSON Lines to file atomically.
func WriteRecords(file string, recs []Record) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
	}
	return atomicfile.WriteFile(file, buf.Bytes())
}

// RecordsFileName is the file name of one system's records in a results
// directory: "<dataset>.<split>.<system>.<config>.jsonl".
func RecordsFileName(dataset, split, system, config string) string {
	return fmt.Sprintf("%s.%s.%s.%s.jsonl", dataset, split, system, config)
}

// ReadRecords reads every *.jsonl file of dir (or the one file dir names),
// in file-name order. A malformed line is an error naming file:line.
func ReadRecords(dir string) ([]Record, error) { return readRecords(dir, true) }

// ReadScores is ReadRecords for readers of the per-task values and
// latencies only (the leaderboard): each record's Hits are dropped as its
// line is read. The hits are most of a results directory; a full-size run's
// (about 1 GB of JSONL) takes several times that in memory with them.
// Every line is still checked as ReadRecords checks it.
func ReadScores(dir string) ([]Record, error) { return readRecords(dir, false) }

func readRecords(dir string, hits bool) ([]Record, error) {
	files := []string{dir}
	if st, err := os.Stat(dir); err != nil {
		return nil, err
	} else if st.IsDir() {
		files, err = filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		if len(files) == 0 {
			return nil, fmt.Errorf("%s: no *.jsonl result files", dir)
		}
	}
	var recs []Record
	for _, f := range files {
		rs, err := readRecordFile(f, hits)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rs...)
	}
	return recs, nil
}

func readRecordFile(file string, hits bool) ([]Record, error) {
	var recs []Record
	err := datafile.EachLine(file, func(line int, b []byte) error {
		var r Record
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			return fileline.Errorf(file, line, "%w", err)
		}
		if r.System == "" || r.Task == "" {
			return fileline.Errorf(file, line, "record needs system and task")
		}
		if !hits {
			r.Hits = nil
		}
		recs = append(recs, r)
		return nil
	})
	return recs, err
}
