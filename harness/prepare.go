package harness

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// Prepared is a dataset ready to run: code corpora chunked, lookups built,
// and a hash of everything a result depends on besides the system.
type Prepared struct {
	Dataset *datasets.Dataset
	Corpora map[string]*corpus.Corpus // chunked
	lookup  map[string]map[string]int // corpus id → doc id → index
	// Hash covers the chunked corpora, the tasks (queries and gold) and the
	// chunker options: if it changes, golden baselines are stale.
	Hash       string
	ChunkStats chunk.Stats
}

// Prepare chunks every corpus whose docs are code files and hashes the
// result. Document collections pass through unchanged.
func Prepare(ds *datasets.Dataset, opt chunk.Options) (*Prepared, error) {
	p := &Prepared{
		Dataset: ds,
		Corpora: make(map[string]*corpus.Corpus, len(ds.Corpora)),
		lookup:  make(map[string]map[string]int, len(ds.Corpora)),
	}
	ids := make([]string, 0, len(ds.Corpora))
	for id := range ds.Corpora {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	h := sha256.New()
	fmt.Fprintf(h, "chunk %+v\n", opt)
	for _, id := range ids {
		c := ds.Corpora[id]
		if hasCodeFiles(c) {
			cc, st, err := chunk.Split(c, opt)
			if err != nil {
				return nil, fmt.Errorf("chunking corpus %s: %w", id, err)
			}
			p.ChunkStats.Files += st.Files
			p.ChunkStats.Chunks += st.Chunks
			p.ChunkStats.Fallback += st.Fallback
			p.ChunkStats.ParseErrors += st.ParseErrors
			c = cc
		}
		p.Corpora[id] = c
		p.lookup[id] = c.Lookup()
		fmt.Fprintf(h, "corpus %s %s\n", id, c.Hash())
	}
	for _, t := range ds.Tasks {
		if _, ok := p.Corpora[t.CorpusID]; !ok {
			return nil, fmt.Errorf("dataset %s: task %s: unknown corpus %q", ds.Name, t.ID, t.CorpusID)
		}
		fmt.Fprintf(h, "task %s %s %s %s\n", strconv.Quote(t.ID), strconv.Quote(t.CorpusID), strconv.Quote(t.Query), strconv.Quote(fmt.Sprint(t.Meta)))
		for _, g := range t.Gold {
			fmt.Fprintf(h, "gold %s %s %d %s\n", g.Kind, strconv.Quote(g.ID), g.Grade, hashString(g.Body))
		}
	}
	p.Hash = hex.EncodeToString(h.Sum(nil))
	return p, nil
}

func hasCodeFiles(c *corpus.Corpus) bool {
	for i := range c.Docs {
		if c.Docs[i].Kind == "file" && c.Docs[i].Language != "" {
			return true
		}
	}
	return false
}

func hashString(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
