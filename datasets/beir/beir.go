// Package beir loads a BEIR dataset folder: corpus.jsonl ({_id, title,
// text, metadata}), queries.jsonl ({_id, text, metadata}) and
// qrels/<split>.tsv ("query-id corpus-id score" with a header line), plain
// or gzip (name.gz). Documents become Kind "doc" with Title and Text.
// Queries without a judgment with score > 0 in the chosen qrels file are not
// tasks; judged queries missing from queries.jsonl are errors.
package beir

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
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
	docLine := map[string]int{}
	cfile, err := find(filepath.Join(dir, "corpus.jsonl"))
	if err != nil {
		return nil, err
	}
	err = eachLine(cfile, func(line int, b []byte) error {
		var d struct {
			ID    *string `json:"_id"`
			Title string  `json:"title"`
			Text  *string `json:"text"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return fmt.Errorf("%s:%d: %w", cfile, line, err)
		}
		switch {
		case d.ID == nil || *d.ID == "":
			return fmt.Errorf("%s:%d: missing \"_id\"", cfile, line)
		case d.Text == nil:
			return fmt.Errorf("%s:%d: %s: missing \"text\"", cfile, line, *d.ID)
		}
		if prev, dup := docLine[*d.ID]; dup {
			return fmt.Errorf("%s:%d: duplicate _id %q (first on line %d)", cfile, line, *d.ID, prev)
		}
		docLine[*d.ID] = line
		c.Docs = append(c.Docs, corpus.Doc{ID: *d.ID, Kind: "doc", Title: d.Title, Text: *d.Text})
		return nil
	})
	if err != nil {
		return nil, err
	}

	type query struct {
		text string
		line int
	}
	queries := map[string]query{}
	var order []string
	qfile, err := find(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	err = eachLine(qfile, func(line int, b []byte) error {
		var q struct {
			ID   *string `json:"_id"`
			Text string  `json:"text"`
		}
		if err := json.Unmarshal(b, &q); err != nil {
			return fmt.Errorf("%s:%d: %w", qfile, line, err)
		}
		if q.ID == nil || *q.ID == "" {
			return fmt.Errorf("%s:%d: missing \"_id\"", qfile, line)
		}
		if prev, dup := queries[*q.ID]; dup {
			return fmt.Errorf("%s:%d: duplicate _id %q (first on line %d)", qfile, line, *q.ID, prev.line)
		}
		queries[*q.ID] = query{q.Text, line}
		order = append(order, *q.ID)
		return nil
	})
	if err != nil {
		return nil, err
	}

	rfile, err := find(filepath.Join(dir, "qrels", cfg.Qrels+".tsv"))
	if err != nil {
		return nil, err
	}
	gold := map[string][]datasets.Relevant{}
	judged := map[[2]string]int{}
	err = eachLine(rfile, func(line int, b []byte) error {
		f := strings.Split(strings.TrimRight(string(b), "\r\n"), "\t")
		if line == 1 && len(f) > 0 && f[0] == "query-id" {
			return nil // header
		}
		if len(f) != 3 {
			return fmt.Errorf("%s:%d: want 3 tab-separated fields query-id corpus-id score, got %d", rfile, line, len(f))
		}
		score, err := strconv.Atoi(strings.TrimSpace(f[2]))
		if err != nil {
			return fmt.Errorf("%s:%d: score %q is not an integer", rfile, line, f[2])
		}
		if _, ok := queries[f[0]]; !ok {
			return fmt.Errorf("%s:%d: query %q not in queries.jsonl", rfile, line, f[0])
		}
		if _, ok := docLine[f[1]]; !ok {
			return fmt.Errorf("%s:%d: document %q not in corpus.jsonl", rfile, line, f[1])
		}
		k := [2]string{f[0], f[1]}
		if prev, dup := judged[k]; dup {
			return fmt.Errorf("%s:%d: query %s judges %s twice (first on line %d)", rfile, line, f[0], f[1], prev)
		}
		judged[k] = line
		if score < 0 {
			return nil
		}
		gold[f[0]] = append(gold[f[0]], datasets.Relevant{Kind: "doc", ID: f[1], Grade: score})
		return nil
	})
	if err != nil {
		return nil, err
	}

	ds := &datasets.Dataset{Name: name, Split: datasets.SplitAll, Corpora: map[string]*corpus.Corpus{c.ID: c}}
	unjudged := 0
	for _, id := range order {
		g := gold[id]
		relevant := false
		for _, r := range g {
			relevant = relevant || r.Grade > 0
		}
		if !relevant {
			unjudged++
			continue
		}
		q := queries[id]
		if strings.TrimSpace(q.text) == "" {
			return nil, fmt.Errorf("%s:%d: query %s is empty", qfile, q.line, id)
		}
		ds.Tasks = append(ds.Tasks, datasets.Task{ID: id, Query: q.text, CorpusID: c.ID, Gold: g})
	}
	if unjudged > 0 {
		ds.Notes = append(ds.Notes, fmt.Sprintf("%d of %d queries have no relevant judgment in qrels/%s.tsv (not tasks of this split)", unjudged, len(order), cfg.Qrels))
	}
	if cfg.Split == "" {
		cfg.Split = datasets.SplitAll
	}
	sc := cfg.SplitConfig
	if sc == (datasets.SplitConfig{}) {
		sc = datasets.DefaultSplitConfig()
	}
	if sc.Salt == "" {
		sc.Salt = name
	}
	if ds.Tasks, err = datasets.Split(ds.Tasks, cfg.Split, sc); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	ds.Split = cfg.Split
	return ds, nil
}

func find(name string) (string, error) {
	for _, f := range []string{name, name + ".gz"} {
		if _, err := os.Stat(f); err == nil {
			return f, nil
		}
	}
	return "", fmt.Errorf("%s: not found (nor %s.gz)", name, filepath.Base(name))
}

// eachLine calls fn for each non-blank line (gunzipped for .gz) with its
// 1-based number.
func eachLine(file string, fn func(line int, b []byte) error) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(file, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			return fmt.Errorf("%s: %w", file, err)
		}
		r = gz
	}
	br := bufio.NewReaderSize(r, 1<<20)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(strings.TrimSpace(string(b))) > 0 {
			if ferr := fn(line, b); ferr != nil {
				return ferr
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s:%d: %w", file, line, err)
		}
	}
}
