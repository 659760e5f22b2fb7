// Package coderag loads the CodeRAG-Bench retrieval tasks HumanEval, MBPP,
// ODEX and DS-1000 from the benchmark's canonical files
// (retrieval/datasets/canonical/*.json, JSON Lines despite the name), built
// the way the benchmark's own builders (retrieval/create/*.py) build them:
//
//   - HumanEval: query = prompt; corpus = every task's canonical solution
//     document (prompt + solution, the canonical file's docs[0]); gold = the
//     task's own document. The query is a prefix of its gold document, so
//     lexical systems find it easily: that is the benchmark, not a bug.
//   - MBPP: query = text; corpus = "# text\ncode" of every task; gold = the
//     task's own document.
//   - ODEX: query = intent; corpus = the library documentation pool;
//     gold = the pool entries named by the task's docs titles.
//   - DS-1000: query = prompt; corpus = the same kind of documentation pool;
//     gold = the pool entries named by docs titles.
//
// The documentation pool of ODEX and DS-1000 (neulab/docprompting-conala,
// "docs") is not in the data pack. Both are built here over an
// approximation, DocStoreApprox: the union of the gold documents of every
// DS-1000 and ODEX problem, deduplicated by title. It holds every gold
// document (coverage 100% by construction) but far fewer distractors than
// the real pool, so scores on it are optimistic; Dataset.Notes says so.
// Problems without gold documents (487 of DS-1000, 238 of ODEX) are
// Dropped with that reason.
//
// DS-1000 (and ODEX) have three runs, after the seed harness: Ranked (a
// top-k list; gold of kind doc_section, so a doc id or a symbol matches),
// Composite (the system returns one budgeted blob: only rank-1 measures are
// defined, the others are listed in Dataset.Undefined) and Oracle (corpus =
// the documentation store, gold by exact doc id).
package coderag

import (
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// CompositeBudgetChars is the size of the blob a composite run packs the
// ranked docs into: 8,000 characters, about 2,000 tokens of documentation,
// a typical budget for retrieved context in a code-generation prompt.
const CompositeBudgetChars = 8000

// Folder is the dataset's folder inside a data directory.
const Folder = "coderag"

// Benchmark names accepted by Load.
const (
	HumanEval = "humaneval"
	MBPP      = "mbpp"
	ODEX      = "odex"
	DS1000    = "ds1000"
)

// Runs of the documentation benchmarks (ODEX, DS-1000).
const (
	Ranked    = "ranked"
	Composite = "composite"
	Oracle    = "oracle"
)

// DocStoreApprox is the corpus ID of the approximated documentation pool.
const DocStoreApprox = "docprompting-docs-approx"

// Names lists the benchmarks in a fixed order.
func Names() []string { return []string{HumanEval, MBPP, ODEX, DS1000} }

// Runs lists the runs in a fixed order.
func Runs() []string { return []string{Ranked, Composite, Oracle} }

// Config selects the run and split.
type Config struct {
	Run         string // Ranked, Composite or Oracle; HumanEval and MBPP accept Ranked only
	Split       string // datasets split name; "" = all
	SplitConfig datasets.SplitConfig
}

// DefaultConfig is the ranked run over every task.
func DefaultConfig() Config {
	return Config{Run: Ranked, Split: datasets.SplitAll, SplitConfig: datasets.DefaultSplitConfig()}
}

// files names each benchmark's canonical file (a .gz twin is accepted).
var files = map[string]string{
	HumanEval: "humaneval_solutions.json",
	MBPP:      "mbpp_solutions.json",
	ODEX:      "odex_docs.json",
	DS1000:    "ds1000_docs.json",
}

// compositeUndefined lists the measures a composite run does not define,
// in the metrics package's spelling: every cutoff above 1 and the
// uncut whole-ranking measures.
func compositeUndefined() []string {
	ms := []string{"mrr", "ndcg", "map", "rprec"}
	for _, k := range []int{2, 3, 4, 5, 10, 20, 50, 100, 1000} {
		for _, f := range []string{"hit", "recall", "P", "mrr", "ndcg", "map"} {
			ms = append(ms, f+"@"+strconv.Itoa(k))
		}
	}
	return ms
}

// Load reads benchmark name from <dataDir>/coderag.
func Load(dataDir, name string, cfg Config) (*datasets.Dataset, error) {
	if cfg.Run == "" {
		cfg.Run = Ranked
	}
	dir := filepath.Join(dataDir, Folder)
	var ds *datasets.Dataset
	var err error
	switch name {
	case HumanEval, MBPP:
		if cfg.Run != Ranked {
			return nil, fmt.Errorf("coderag %s: run %q undefined (only %q)", name, cfg.Run, Ranked)
		}
		ds, err = loadSolutions(dir, name)
	case ODEX, DS1000:
		ds, err = loadDocs(dir, name, cfg.Run)
	default:
		return nil, fmt.Errorf("coderag: unknown benchmark %q (valid: %s)", name, strings.Join(Names(), ", "))
	}
	if err != nil {
		return nil, err
	}
	return split(ds, cfg)
}

// split keeps the tasks of cfg.Split, stratified by library where the
// tasks have one (DS-1000, ODEX) and by corpus otherwise.
func split(ds *datasets.Dataset, cfg Config) (*datasets.Dataset, error) {
	if cfg.Split == "" {
		cfg.Split = datasets.SplitAll
	}
	sc := cfg.SplitConfig.OrDefault(ds.Name)
	// datasets.Split stratifies by Meta.Repo: lend it the library.
	keyed := make([]datasets.Task, len(ds.Tasks))
	for i, t := range ds.Tasks {
		keyed[i] = t
		if t.Meta.Library != "" && t.Meta.Repo == "" {
			keyed[i].Meta.Repo = "library:" + t.Meta.Library
		}
	}
	kept, err := datasets.Split(keyed, cfg.Split, sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	byID := make(map[string]datasets.Task, len(ds.Tasks))
	for _, t := range ds.Tasks {
		byID[t.ID] = t
	}
	ds.Tasks = ds.Tasks[:0:0]
	for _, t := range kept {
		ds.Tasks = append(ds.Tasks, byID[t.ID])
	}
	ds.Split = cfg.Split
	return ds, nil
}

// solutionRow is a HumanEval or MBPP canonical row.
type solutionRow struct {
	TaskID json.RawMessage `json:"task_id"` // string (HumanEval) or number (MBPP)
	Prompt string          `json:"prompt"`
	Text   string          `json:"text"`
	Docs   []struct {
		Title string `json:"title"`
		Text  string `json:"text"`
	} `json:"docs"`
}

func loadSolutions(dir, name string) (*datasets.Dataset, error) {
	file, err := datafile.Find(filepath.Join(dir, files[name]))
	if err != nil {
		return nil, err
	}
	c := &corpus.Corpus{ID: name + "-solutions"}
	ds := &datasets.Dataset{Name: "coderag-" + name, Split: datasets.SplitAll, Corpora: map[string]*corpus.Corpus{c.ID: c}}
	seen := map[string]int{}
	err = datafile.EachLine(file, func(line int, b []byte) error {
		var r solutionRow
		if err := json.Unmarshal(b, &r); err != nil {
			return &fileline.Error{File: file, Line: line, Err: err}
		}
		id, err := taskID(r.TaskID)
		if err != nil {
			return fileline.Errorf(file, line, "task_id: %w", err)
		}
		if prev, dup := seen[id]; dup {
			return fileline.Errorf(file, line, "duplicate task_id %q (first on line %d)", id, prev)
		}
		seen[id] = line
		query := r.Prompt
		if name == MBPP {
			query = r.Text
			id = "mbpp/" + id
		}
		if strings.TrimSpace(query) == "" {
			return fileline.Errorf(file, line, "empty query")
		}
		if len(r.Docs) != 1 || strings.TrimSpace(r.Docs[0].Text) == "" {
			return fileline.Errorf(file, line, "want exactly one non-empty canonical solution in docs, got %d", len(r.Docs))
		}
		docID := id + "_code"
		c.Docs = append(c.Docs, corpus.Doc{ID: docID, Kind: "doc", Language: "python", Title: r.Docs[0].Title, Text: r.Docs[0].Text})
		ds.Tasks = append(ds.Tasks, datasets.Task{
			ID: id, Query: query, CorpusID: c.ID,
			Gold: []datasets.Relevant{{Kind: "doc", ID: docID, Grade: 1}},
			Meta: datasets.Meta{Language: "python"},
		})
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(ds.Tasks) == 0 {
		return nil, fmt.Errorf("%s: no tasks", file)
	}
	if name == HumanEval {
		ds.Notes = append(ds.Notes, "HumanEval as CodeRAG-Bench builds it: the query (prompt) is a prefix of its gold document (prompt + canonical solution)")
	}
	return ds, nil
}

func taskID(raw json.RawMessage) (string, error) {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil && s != "" {
		return s, nil
	}
	var n json.Number
	if err := json.Unmarshal(raw, &n); err == nil {
		return n.String(), nil
	}
	return "", errors.New("missing or not a string/number")
}

// docRow is a DS-1000 or ODEX row, canonical (nested) or the seed's flat
// DS-1000 shape.
type docRow struct {
	TaskID   json.RawMessage `json:"task_id"` // ODEX
	Intent   string          `json:"intent"`  // ODEX query
	Prompt   string          `json:"prompt"`  // DS-1000 query
	Library  json.RawMessage `json:"library"` // ODEX: list; seed flat DS-1000: string
	Metadata *struct {
		ProblemID *int   `json:"problem_id"`
		Library   string `json:"library"`
	} `json:"metadata"`
	Docs []rawDoc `json:"docs"`
}

// rawDoc is a gold documentation entry: {function, title, text} in the
// canonical and nested shapes, {doc_id, doc_content} in the seed's flat one.
type rawDoc struct {
	Function   string `json:"function"`
	Title      string `json:"title"`
	Text       string `json:"text"`
	DocID      string `json:"doc_id"`
	DocContent string `json:"doc_content"`
}

func (d rawDoc) id() string {
	if d.Title != "" {
		return d.Title
	}
	return d.DocID
}

func (d rawDoc) text() string {
	if d.Text != "" {
		return d.Text
	}
	return d.DocContent
}

// problem is a parsed documentation-benchmark row.
type problem struct {
	file    string
	line    int
	id      string
	query   string
	library string
	docs    []rawDoc
}

func loadDocs(dir, name, run string) (*datasets.Dataset, error) {
	if run != Ranked && run != Composite && run != Oracle {
		return nil, fmt.Errorf("coderag %s: unknown run %q (valid: %s)", name, run, strings.Join(Runs(), ", "))
	}
	// The store is built from both benchmarks' gold docs, which come from the
	// same documentation pool.
	all := map[string][]problem{}
	for _, n := range []string{DS1000, ODEX} {
		file, err := datafile.Find(filepath.Join(dir, files[n]))
		if err != nil {
			if n == name {
				return nil, err
			}
			continue // the other benchmark only adds distractors
		}
		ps, err := readProblems(file, n)
		if err != nil {
			return nil, err
		}
		all[n] = ps
	}
	store, err := buildStore(DocStoreApprox, all[DS1000], all[ODEX])
	if err != nil {
		return nil, err
	}
	ds := newDocDataset("coderag-"+name, run, store, all[name])
	ds.Notes = append(ds.Notes, fmt.Sprintf(
		"corpus %s approximates the docprompting-conala documentation pool (not in the data pack): the union of the gold docs of DS-1000 (%d problems) and ODEX (%d), %d docs; it covers %s of this benchmark's gold doc entries by construction and lacks the real pool's distractors, so scores are optimistic",
		DocStoreApprox, len(all[DS1000]), len(all[ODEX]), len(store.Docs), coverage(store, all[name])))
	return ds, nil
}

// newDocDataset turns problems into tasks over store for one run.
func newDocDataset(name, run string, store *corpus.Corpus, ps []problem) *datasets.Dataset {
	ds := &datasets.Dataset{Name: name + "-" + run, Split: datasets.SplitAll, Corpora: map[string]*corpus.Corpus{store.ID: store}}
	kind := "doc"
	if run == Ranked {
		kind = "doc_section"
	}
	for _, p := range ps {
		if len(p.docs) == 0 {
			ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: p.id, Reason: "no gold docs in the canonical file"})
			continue
		}
		t := datasets.Task{ID: p.id, Query: p.query, CorpusID: store.ID, Meta: datasets.Meta{Library: p.library, Language: "python"}}
		for _, d := range p.docs {
			t.Gold = append(t.Gold, datasets.Relevant{Kind: kind, ID: d.id(), Grade: 1})
		}
		ds.Tasks = append(ds.Tasks, t)
	}
	if run == Composite {
		ds.CompositeBudget = CompositeBudgetChars
		ds.Undefined = map[string]string{}
		for _, m := range compositeUndefined() {
			ds.Undefined[m] = "composite run: the system returns one budgeted blob, so only rank-1 measures are defined"
		}
	}
	return ds
}

func coverage(store *corpus.Corpus, ps []problem) string {
	ids := store.Lookup()
	n, in := 0, 0
	for _, p := range ps {
		for _, d := range p.docs {
			n++
			if _, ok := ids[d.id()]; ok {
				in++
			}
		}
	}
	if n == 0 {
		return "0/0"
	}
	return fmt.Sprintf("%d/%d (%.1f%%)", in, n, 100*float64(in)/float64(n))
}

// buildStore deduplicates gold docs by id across problem sets, sorted by
// id. One id with two different texts is an error naming both places.
func buildStore(id string, sets ...[]problem) (*corpus.Corpus, error) {
	type entry struct {
		doc   rawDoc
		where string
	}
	byID := map[string]entry{}
	for _, ps := range sets {
		for _, p := range ps {
			for _, d := range p.docs {
				where := fmt.Sprintf("%s:%d", p.file, p.line)
				if e, ok := byID[d.id()]; ok {
					if e.doc.text() != d.text() {
						return nil, fileline.Errorf(p.file, p.line, "doc %q has a different text than at %s", d.id(), e.where)
					}
					continue
				}
				byID[d.id()] = entry{d, where}
			}
		}
	}
	ids := make([]string, 0, len(byID))
	for k := range byID {
		ids = append(ids, k)
	}
	sort.Strings(ids)
	c := &corpus.Corpus{ID: id}
	for _, k := range ids {
		d := byID[k].doc
		c.Docs = append(c.Docs, corpus.Doc{ID: k, Kind: "doc", Symbol: d.Function, Title: k, Text: d.text()})
	}
	return c, nil
}

func readProblems(file, name string) ([]problem, error) {
	var ps []problem
	seen := map[string]int{}
	add := func(line int, r docRow, index int) error {
		p := problem{file: file, line: line, docs: r.Docs}
		switch name {
		case ODEX:
			id, err := taskID(r.TaskID)
			if err != nil {
				return fileline.Errorf(file, line, "task_id: %w", err)
			}
			p.id = "odex/" + strconv.Itoa(index) + "_" + id
			p.query = r.Intent
			var libs []string
			if len(r.Library) > 0 {
				if err := json.Unmarshal(r.Library, &libs); err != nil {
					return fileline.Errorf(file, line, "library: %w", err)
				}
			}
			p.library = strings.Join(libs, "+")
		default:
			pid := index
			if r.Metadata != nil && r.Metadata.ProblemID != nil {
				pid = *r.Metadata.ProblemID
			}
			p.id = "ds1000/" + strconv.Itoa(pid)
			p.query = r.Prompt
			if r.Metadata != nil {
				p.library = r.Metadata.Library
			}
			var lib string
			if p.library == "" && len(r.Library) > 0 && json.Unmarshal(r.Library, &lib) == nil {
				p.library = lib
			}
		}
		if strings.TrimSpace(p.query) == "" {
			return fileline.Errorf(file, line, "empty query")
		}
		if prev, dup := seen[p.id]; dup {
			return fileline.Errorf(file, line, "duplicate task id %q (first on line %d)", p.id, prev)
		}
		seen[p.id] = line
		for i, d := range p.docs {
			if d.id() == "" {
				return fileline.Errorf(file, line, "docs[%d] has no title or doc_id", i)
			}
			if strings.TrimSpace(d.text()) == "" {
				return fileline.Errorf(file, line, "docs[%d] (%s) has no text", i, d.id())
			}
		}
		ps = append(ps, p)
		return nil
	}
	// A JSON array (the seed's fixtures) or JSON Lines (the canonical files).
	if arr, ok, err := readArray(file); err != nil {
		return nil, err
	} else if ok {
		for i, r := range arr {
			if err := add(r.line, r.row, i); err != nil {
				return nil, err
			}
		}
		return ps, nil
	}
	index := 0
	err := datafile.EachLine(file, func(line int, b []byte) error {
		var r docRow
		if err := json.Unmarshal(b, &r); err != nil {
			return &fileline.Error{File: file, Line: line, Err: err}
		}
		index++
		return add(line, r, index-1)
	})
	return ps, err
}

type arrayRow struct {
	line int
	row  docRow
}

// readArray decodes file as a JSON array of rows, recording each row's
// line; ok is false when the file does not start with '['.
func readArray(file string) ([]arrayRow, bool, error) {
	b, err := datafile.ReadAll(file)
	if err != nil {
		return nil, false, err
	}
	trim := strings.TrimSpace(string(b))
	if !strings.HasPrefix(trim, "[") {
		return nil, false, nil
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	lineAt := func(off int64) int { return 1 + strings.Count(string(b[:off]), "\n") }
	if _, err := dec.Token(); err != nil {
		return nil, true, &fileline.Error{File: file, Line: 1, Err: err}
	}
	var rows []arrayRow
	for dec.More() {
		off := dec.InputOffset()
		var r docRow
		if err := dec.Decode(&r); err != nil {
			return nil, true, &fileline.Error{File: file, Line: lineAt(dec.InputOffset()), Err: err}
		}
		// InputOffset before Decode may sit on the separating comma.
		start := int(off)
		for start < len(b) && (b[start] == ',' || b[start] == ' ' || b[start] == '\n' || b[start] == '\r' || b[start] == '\t') {
			start++
		}
		rows = append(rows, arrayRow{line: lineAt(int64(start)), row: r})
	}
	return rows, true, nil
}

// LoadSeedDS1000 reads the seed harness's DS-1000 fixture (a JSON array in
// the flat shape {prompt, library, docs:[{doc_id, doc_content}]} or the
// nested Hugging Face shape {prompt, metadata{…}, docs:[{function, title,
// text}]}) unchanged. Its corpus is the union of the file's gold docs.
func LoadSeedDS1000(file string, cfg Config) (*datasets.Dataset, error) {
	if cfg.Run == "" {
		cfg.Run = Ranked
	}
	if cfg.Run != Ranked && cfg.Run != Composite && cfg.Run != Oracle {
		return nil, fmt.Errorf("coderag ds1000: unknown run %q (valid: %s)", cfg.Run, strings.Join(Runs(), ", "))
	}
	ps, err := readProblems(file, DS1000)
	if err != nil {
		return nil, err
	}
	base := strings.TrimSuffix(filepath.Base(file), ".json")
	store, err := buildStore(base+"-docs", ps)
	if err != nil {
		return nil, err
	}
	ds := newDocDataset("ds1000-seed-"+base, cfg.Run, store, ps)
	ds.Notes = append(ds.Notes, fmt.Sprintf("corpus %s = the union of the fixture's gold docs (%d docs)", store.ID, len(store.Docs)))
	return split(ds, cfg)
}
