// Package datasets defines the shape every benchmark loader produces: tasks
// (a query plus graded gold judgments and metadata) over one or more
// corpora. Each benchmark has a subpackage that reads its official format
// (repoqa, sweqa, coderag, cosqa, trec, beir, cases); this package holds the
// shared types and the split logic.
package datasets

import (
	"fmt"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// Relevant is one graded judgment of a task. How a hit is matched against it
// depends on Kind:
//
//	"doc"                       hit doc ID == ID
//	"file", "test", "config"    hit path == ID (a chunk of a gold file counts)
//	"symbol"                    hit symbol == ID, or ends with "."+ID (in
//	                            file Path when it is set)
//	"doc_section"               hit doc ID == ID or hit symbol == ID
//	"needle"                    hit text contains Body by token equivalence
//	                            (whitespace and comments ignored, Language-aware)
//
// Each Relevant is credited at most once per ranking (its first matching
// hit); later hits that match only already-credited judgments are
// non-relevant, as in trec_eval with one qrels line per gold unit.
type Relevant struct {
	Kind     string
	ID       string
	Grade    int    // 0..3; grade >= 1 is relevant unless a threshold says otherwise
	Body     string // needle body for Kind "needle"
	Language string // language of Body
	// Path is the file a "symbol" judgment names its definition in (a case
	// file's "path"), "" for anywhere: two definitions of one name in two
	// files are two different golds, and a hit earns only the one in its
	// file.
	Path string
}

// Meta is what reports group by.
type Meta struct {
	Repo       string
	Intent     string
	Library    string
	QAType     string
	Difficulty string
	Language   string
	// Naming, for a task asking for one definition: whether its query
	// names it ("exact", "parts" of a camelCase/snake_case name, "none";
	// datasets/repoqa.QueryNaming). Derived from the query and the gold,
	// so not hashed.
	Naming string
}

// Task is one query with its gold.
type Task struct {
	ID       string
	Query    string
	CorpusID string
	Gold     []Relevant
	Meta     Meta
}

// Dropped records a source row that did not become a task, and why. Loaders
// never drop rows silently: reports print these counts.
type Dropped struct {
	ID     string
	Reason string
}

// Dataset is one loaded benchmark split.
type Dataset struct {
	Name    string // e.g. "repoqa-python-docstring"
	Split   string // e.g. "small_test"
	Corpora map[string]*corpus.Corpus
	Tasks   []Task
	Dropped []Dropped
	// Undefined lists measures that make no sense for this dataset with the
	// reason (e.g. DS-1000 composite: "only rank-1 measures are defined").
	// Reports leave them absent instead of printing 0.
	Undefined map[string]string
	// Notes are facts about the data a report should show (commit drift,
	// coverage of an approximated document store, …).
	Notes []string
	// CompositeBudget, when positive, makes every task a composite run: the
	// harness packs the system's hits, best first, into one blob of at most
	// this many characters of doc text (the first hit always goes in) and
	// judges the blob as the single rank-1 item, relevant with the best grade
	// of the gold it holds.
	CompositeBudget int
}

// Restrict returns a copy of ds that keeps only the named corpora and the
// tasks over them, relabelled as split. It is how a benchmark's small size
// is made from a few small repositories: because Split assigns each
// repository's tasks independently of the others, restricting the "test"
// split to some repositories gives exactly their test tasks. Dropped rows of
// other corpora are not carried over; a note records the restriction.
func Restrict(ds *Dataset, corpusIDs []string, split string) (*Dataset, error) {
	keep := make(map[string]bool, len(corpusIDs))
	for _, id := range corpusIDs {
		if _, ok := ds.Corpora[id]; !ok {
			return nil, fmt.Errorf("dataset %s: restrict: no corpus %q", ds.Name, id)
		}
		keep[id] = true
	}
	out := &Dataset{
		Name: ds.Name, Split: split,
		Corpora:   make(map[string]*corpus.Corpus, len(corpusIDs)),
		Undefined: ds.Undefined,
		Notes:     append(append([]string(nil), ds.Notes...), fmt.Sprintf("split %q: the %s split restricted to corpora %s", split, ds.Split, strings.Join(corpusIDs, ", "))),
	}
	for id := range keep {
		out.Corpora[id] = ds.Corpora[id]
	}
	for _, t := range ds.Tasks {
		if keep[t.CorpusID] {
			out.Tasks = append(out.Tasks, t)
		}
	}
	if len(out.Tasks) == 0 {
		return nil, fmt.Errorf("dataset %s: restrict to %v leaves no tasks", ds.Name, corpusIDs)
	}
	return out, nil
}

// JudgedPool returns a copy of ds whose corpora keep only the docs judged
// (by doc id) in some task of pool — the same dataset at a larger split —
// relabelled as split. It is the small size of a document collection: the
// tasks of ds searched among every judged doc of the collection, so each
// query still faces the other queries' gold as distractors. A note records
// the reduction; scores on it are higher than on the whole collection.
func JudgedPool(ds, pool *Dataset, split string) (*Dataset, error) {
	judged := make(map[string]bool)
	for _, t := range pool.Tasks {
		for _, g := range t.Gold {
			if g.Kind == "doc" || g.Kind == "doc_section" {
				judged[t.CorpusID+"\x00"+g.ID] = true
			}
		}
	}
	out := *ds
	out.Split = split
	out.Corpora = make(map[string]*corpus.Corpus, len(ds.Corpora))
	total, kept := 0, 0
	for id, c := range ds.Corpora {
		cc := &corpus.Corpus{ID: c.ID, Commit: c.Commit}
		for _, d := range c.Docs {
			if judged[id+"\x00"+d.ID] {
				cc.Docs = append(cc.Docs, d)
			}
		}
		total += len(c.Docs)
		kept += len(cc.Docs)
		out.Corpora[id] = cc
	}
	if kept == 0 {
		return nil, fmt.Errorf("dataset %s: judged pool is empty (gold is not by doc id?)", ds.Name)
	}
	out.Notes = append(append([]string(nil), ds.Notes...), fmt.Sprintf("split %q: the %s tasks over the %d judged docs of the %s split (of %d docs)", split, ds.Split, kept, pool.Split, total))
	return &out, nil
}
