// Package cosqa loads the CoSQA code-retrieval split published with CoCLR:
// web queries (cosqa-retrieval-{dev,test}-500.json) over a code base of
// 6,267 Python functions (code_idx_map.txt, one JSON object code → id).
// Each query has exactly one gold function, judged by doc id.
//
// Splits: "test" and "dev" are CoCLR's own 500-query files, "all" is both;
// "small_test" and "small_dev" are datasets.Split's small subsets drawn from
// them.
package cosqa

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// Folder is the dataset's folder inside a data directory.
const Folder = "cosqa"

// CorpusID names the code base.
const CorpusID = "cosqa-code-base"

// Config selects the split.
type Config struct {
	Split       string // datasets split name; "" = test
	SplitConfig datasets.SplitConfig
}

// DefaultConfig reads CoCLR's test split.
func DefaultConfig() Config {
	return Config{Split: datasets.SplitTest, SplitConfig: datasets.DefaultSplitConfig()}
}

// Load reads <dataDir>/cosqa.
func Load(dataDir string, cfg Config) (*datasets.Dataset, error) {
	dir := filepath.Join(dataDir, Folder)
	if cfg.Split == "" {
		cfg.Split = datasets.SplitTest
	}
	sc := cfg.SplitConfig.OrDefault("cosqa")
	var parts []string
	switch cfg.Split {
	case datasets.SplitAll:
		parts = []string{"dev", "test"}
	case datasets.SplitDev, datasets.SplitSmallDev:
		parts = []string{"dev"}
	case datasets.SplitTest, datasets.SplitSmallTest:
		parts = []string{"test"}
	default:
		return nil, fmt.Errorf("cosqa: unknown split %q (valid: %s)", cfg.Split, strings.Join(datasets.SplitNames(), ", "))
	}

	c, codeID, err := readCodeBase(dir)
	if err != nil {
		return nil, err
	}
	ds := &datasets.Dataset{Name: "cosqa", Split: cfg.Split, Corpora: map[string]*corpus.Corpus{c.ID: c}}
	for _, part := range parts {
		file := filepath.Join(dir, "cosqa-retrieval-"+part+"-500.json")
		tasks, err := readQueries(file, codeID, len(c.Docs))
		if err != nil {
			return nil, err
		}
		if cfg.Split == datasets.SplitSmallDev || cfg.Split == datasets.SplitSmallTest {
			if tasks, err = datasets.Split(tasks, cfg.Split, sc); err != nil {
				return nil, fmt.Errorf("cosqa: %w", err)
			}
		}
		ds.Tasks = append(ds.Tasks, tasks...)
	}
	return ds, nil
}

// readCodeBase reads code_idx_map.txt[.gz]: ids must be 0..n-1, each once.
func readCodeBase(dir string) (*corpus.Corpus, map[string]int, error) {
	file, err := datafile.Find(filepath.Join(dir, "code_idx_map.txt"))
	if err != nil {
		return nil, nil, err
	}
	b, err := datafile.ReadAll(file)
	if err != nil {
		return nil, nil, err
	}
	var m map[string]int
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, nil, datafile.JSONError(file, b, err)
	}
	byID := make([]string, len(m))
	filled := make([]bool, len(m))
	for code, id := range m {
		if id < 0 || id >= len(m) {
			return nil, nil, fmt.Errorf("%s: code id %d outside 0..%d", file, id, len(m)-1)
		}
		if filled[id] {
			return nil, nil, fmt.Errorf("%s: code id %d used twice", file, id)
		}
		byID[id], filled[id] = code, true
	}
	c := &corpus.Corpus{ID: CorpusID}
	for id, code := range byID {
		c.Docs = append(c.Docs, corpus.Doc{ID: strconv.Itoa(id), Kind: "doc", Language: "python", Text: code})
	}
	return c, m, nil
}

type query struct {
	Idx          string `json:"idx"`
	Doc          string `json:"doc"`
	Code         string `json:"code"`
	Label        *int   `json:"label"`
	RetrievalIdx *int   `json:"retrieval_idx"`
}

func readQueries(file string, codeID map[string]int, n int) ([]datasets.Task, error) {
	b, err := datafile.ReadAll(file)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fileline.Errorf(file, 1, "want a JSON array of queries")
	}
	var tasks []datasets.Task
	seen := map[string]int{}
	for dec.More() {
		line := lineAt(b, dec.InputOffset())
		var q query
		if err := dec.Decode(&q); err != nil {
			return nil, &fileline.Error{File: file, Line: lineAt(b, dec.InputOffset()), Err: err}
		}
		switch {
		case q.Idx == "":
			return nil, fileline.Errorf(file, line, "missing idx")
		case strings.TrimSpace(q.Doc) == "":
			return nil, fileline.Errorf(file, line, "%s: empty query (doc)", q.Idx)
		case q.RetrievalIdx == nil:
			return nil, fileline.Errorf(file, line, "%s: missing retrieval_idx", q.Idx)
		case *q.RetrievalIdx < 0 || *q.RetrievalIdx >= n:
			return nil, fileline.Errorf(file, line, "%s: retrieval_idx %d outside the code base (0..%d)", q.Idx, *q.RetrievalIdx, n-1)
		case q.Label == nil || *q.Label != 1:
			return nil, fileline.Errorf(file, line, "%s: label must be 1 in the retrieval split", q.Idx)
		}
		if id, ok := codeID[q.Code]; q.Code != "" && (!ok || id != *q.RetrievalIdx) {
			return nil, fileline.Errorf(file, line, "%s: code does not map to retrieval_idx %d in code_idx_map", q.Idx, *q.RetrievalIdx)
		}
		if prev, dup := seen[q.Idx]; dup {
			return nil, fileline.Errorf(file, line, "duplicate idx %q (first on line %d)", q.Idx, prev)
		}
		seen[q.Idx] = line
		tasks = append(tasks, datasets.Task{
			ID: q.Idx, Query: q.Doc, CorpusID: CorpusID,
			Gold: []datasets.Relevant{{Kind: "doc", ID: strconv.Itoa(*q.RetrievalIdx), Grade: 1}},
			Meta: datasets.Meta{Language: "python"},
		})
	}
	return tasks, nil
}

// lineAt is the 1-based line of byte offset off, skipping the separator
// a json.Decoder offset may still point at.
func lineAt(b []byte, off int64) int {
	i := int(off)
	for i < len(b) && strings.ContainsRune(", \t\r\n", rune(b[i])) {
		i++
	}
	if i > len(b) {
		i = len(b)
	}
	return 1 + strings.Count(string(b[:i]), "\n")
}
