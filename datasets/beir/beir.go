// Package beir loads a BEIR dataset folder: corpus.jsonl ({_id, title,
// text, metadata}), queries.jsonl ({_id, text, metadata}) and
// qrels/<split>.tsv ("query-id corpus-id score" after a header line), each
// plain or gzip (name.gz). The line formats are read by trecfmt; this
// package turns them into a datasets.Dataset: documents become Kind "doc"
// with Title and Text, every query with a judgment of score > 0 in the
// chosen qrels file becomes a task whose gold is all of its judgments
// (ordered by grade, then doc id). Judgments naming a query or document
// absent from the folder are errors.
package beir

import (
	"fmt"
	"io"
	"path/filepath"
	"sort"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/metrics"
	"github.com/retrievalbench/retrievalbench/trecfmt"
)

// Config tunes loading.
type Config struct {
	Qrels       string // BEIR qrels split file: "test" (default), "dev", "train"
	Split       string // datasets split of the judged queries; "" = all
	SplitConfig datasets.SplitConfig
}

// DefaultConfig reads qrels/test.tsv, every judged query.
func DefaultConfig() Config {
	return Config{Qrels: "test", Split: datasets.SplitAll, SplitConfig: datasets.DefaultSplitConfig()}
}

// Load reads the BEIR folder dir; the dataset and corpus are named after
// the folder.
func Load(dir string, cfg Config) (*datasets.Dataset, error) {
	if cfg.Qrels == "" {
		cfg.Qrels = "test"
	}
	name := filepath.Base(filepath.Clean(dir))
	c := &corpus.Corpus{ID: name}
	err := withFile(filepath.Join(dir, "corpus.jsonl"), func(r io.Reader, file string) error {
		return trecfmt.ReadBEIRCorpus(r, file, func(d trecfmt.BEIRDoc) error {
			c.Docs = append(c.Docs, corpus.Doc{ID: d.ID, Kind: "doc", Title: d.Title, Text: d.Text})
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	var queries []trecfmt.BEIRQuery
	err = withFile(filepath.Join(dir, "queries.jsonl"), func(r io.Reader, file string) (err error) {
		queries, err = trecfmt.ReadBEIRQueries(r, file)
		return err
	})
	if err != nil {
		return nil, err
	}
	var qrels metrics.Qrels
	var qrelsFile string
	err = withFile(filepath.Join(dir, "qrels", cfg.Qrels+".tsv"), func(r io.Reader, file string) (err error) {
		qrelsFile = file
		qrels, err = trecfmt.ReadBEIRQrels(r, file)
		return err
	})
	if err != nil {
		return nil, err
	}

	docs := c.Lookup()
	known := make(map[string]bool, len(queries))
	for _, q := range queries {
		known[q.ID] = true
	}
	qids := make([]string, 0, len(qrels))
	for q := range qrels {
		qids = append(qids, q)
	}
	sort.Strings(qids)
	for _, q := range qids {
		if !known[q] {
			return nil, fmt.Errorf("%s: query %q not in queries.jsonl", qrelsFile, q)
		}
		for d := range qrels[q] {
			if _, ok := docs[d]; !ok {
				return nil, fmt.Errorf("%s: query %q judges document %q, not in corpus.jsonl", qrelsFile, q, d)
			}
		}
	}

	ds := &datasets.Dataset{Name: name, Split: datasets.SplitAll, Corpora: map[string]*corpus.Corpus{c.ID: c}}
	unjudged := 0
	for _, q := range queries {
		gold, relevant := goldOf(qrels[q.ID])
		if !relevant {
			unjudged++
			continue
		}
		ds.Tasks = append(ds.Tasks, datasets.Task{ID: q.ID, Query: q.Text, CorpusID: c.ID, Gold: gold})
	}
	if unjudged > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d of %d queries have no relevant judgment in qrels/%s.tsv (not tasks of this split)", unjudged, len(queries), cfg.Qrels))
	}
	if cfg.Split == "" {
		cfg.Split = datasets.SplitAll
	}
	sc := cfg.SplitConfig.OrDefault(name)
	if ds.Tasks, err = datasets.Split(ds.Tasks, cfg.Split, sc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ds.Split = cfg.Split
	return ds, nil
}

// goldOf turns one query's judgments into graded gold, highest grade first
// then by doc id; negative grades (trec_eval: pooled, not judged) are left
// out. relevant reports whether any grade is above 0.
func goldOf(judged map[string]int) (gold []datasets.Relevant, relevant bool) {
	for d, g := range judged {
		if g < 0 {
			continue
		}
		gold = append(gold, datasets.Relevant{Kind: "doc", ID: d, Grade: g})
		relevant = relevant || g > 0
	}
	sort.Slice(gold, func(i, j int) bool {
		if gold[i].Grade != gold[j].Grade {
			return gold[i].Grade > gold[j].Grade
		}
		return gold[i].ID < gold[j].ID
	})
	return gold, relevant
}

// withFile opens name, or name.gz gunzipped, and passes it to read with
// the file's path for error messages.
func withFile(name string, read func(r io.Reader, file string) error) error {
	file, err := datafile.Find(name)
	if err != nil {
		return err
	}
	r, err := datafile.Open(file)
	if err != nil {
		return err
	}
	defer r.Close()
	return read(r, file)
}
