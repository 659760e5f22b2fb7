package harness

import (
	"runtime"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/internal/tsgrammar"
	"github.com/retrievalbench/retrievalbench/judge"
	"github.com/retrievalbench/retrievalbench/systems"

	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// Prepared is a dataset ready to run: code corpora chunked, lookups built,
// and a hash of everything a result depends on besides the system. Each
// corpus whose docs are not one per file (chunks, or sections a loader cut
// a file into) points to its whole files (corpus.Corpus.Files).
type Prepared struct {
	Dataset *datasets.Dataset
	Corpora map[string]*corpus.Corpus // chunked
	judges  map[string]*judge.Corpus  // corpus id → what the judge reads
	chunk   chunk.Options
	// perCorpus is set when the corpora were chunked with different
	// options (PrepareWith); chunk is then the first corpus's.
	perCorpus bool
	// Hash covers the chunked corpora, the tasks (queries and gold) and the
	// chunker options (chunk.Options.Key): if it changes, golden baselines
	// are stale.
	Hash string
	// ChunkStats is what the chunker did over every corpus: files, chunks,
	// the largest, the chunks cut at the size limits, the files excluded.
	ChunkStats chunk.Counts
	// Notes say what a reader of the results must know about the chunking:
	// a line of ChunkStats when the options exclude or cut anything, and
	// each gold that lies in an excluded file (no system can find it).
	Notes []string
}

// Prepare drops the files opt.Exclude excludes from every corpus, chunks
// every corpus whose docs are code files and hashes the result. Document
// collections pass through unchanged.
func Prepare(ds *datasets.Dataset, opt chunk.Options) (*Prepared, error) {
	return PrepareWith(ds, func(string) chunk.Options { return opt })
}

// PrepareWith is Prepare with each corpus's own options, optFor(corpus
// id): a user's repositories each with the exclusions of its manifest
// entry (cases.Manifest.ChunkOptions), as a campaign chunks them. When
// every corpus has the same options the hash is Prepare's.
func PrepareWith(ds *datasets.Dataset, optFor func(corpus string) chunk.Options) (*Prepared, error) {
	ids := make([]string, 0, len(ds.Corpora))
	for id := range ds.Corpora {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	opts := make(map[string]chunk.Options, len(ids))
	keys := map[string]bool{}
	for _, id := range ids {
		o := optFor(id)
		if err := o.Validate(); err != nil {
			return nil, fmt.Errorf("dataset %s: corpus %s: %w", ds.Name, id, err)
		}
		opts[id] = o
		keys[o.Key()] = true
	}
	first := optFor("")
	if len(ids) > 0 {
		first = opts[ids[0]]
	} else if err := first.Validate(); err != nil {
		return nil, fmt.Errorf("dataset %s: %w", ds.Name, err)
	}
	p := &Prepared{
		Dataset: ds,
		Corpora: make(map[string]*corpus.Corpus, len(ds.Corpora)),
		judges:  make(map[string]*judge.Corpus, len(ds.Corpora)),
		chunk:   first,
	}
	h := sha256.New()
	if len(keys) <= 1 {
		fmt.Fprintf(h, "chunk %s\n", first.Key())
	} else {
		p.perCorpus = true
		for _, id := range ids {
			fmt.Fprintf(h, "chunk %s %s\n", id, opts[id].Key())
		}
	}
	excluded := map[string]map[string]bool{} // corpus → excluded paths
	for _, id := range ids {
		opt := opts[id]
		noExclude := opt
		noExclude.Exclude = chunk.Exclude{}
		c := ds.Corpora[id]
		// Excluded files leave the chunks and the whole files alike.
		c, ex := opt.Exclude.Filter(c)
		p.ChunkStats.Excluded.Add(ex)
		if ex.Files > 0 {
			excluded[id] = map[string]bool{}
			for _, path := range ex.Paths {
				excluded[id][path] = true
			}
		}
		if hasCodeFiles(c) {
			cc, st, err := chunk.Corpus(c, noExclude)
			if err != nil {
				return nil, fmt.Errorf("chunking corpus %s: %w", id, err)
			}
			p.ChunkStats.Add(st)
			// A wrapper (hybrid, graph) hands its whole-file members the
			// files as loaded (corpus.Corpus.Files); Hash leaves them out.
			cc.Files = WholeFiles(c)
			// Every definition the parser finds, at every nesting level:
			// the judge resolves locations against them, not against
			// where the chunker cut (docs/judging.md). Hash leaves them
			// out: they are derived from the files.
			if cc.Defs, err = chunk.Definitions(c); err != nil {
				return nil, fmt.Errorf("corpus %s: %w", id, err)
			}
			c = cc
		} else if wf := WholeFiles(c); wf != c {
			// Sections of one file joined back; a copy, so that the
			// dataset's corpus is not changed.
			cp := *c
			cp.Files = wf
			c = &cp
		}
		p.Corpora[id] = c
		jc := judge.NewCorpus(c)
		// Symbols as users write them: module-qualified names derived from
		// each file's module path (the whole-file corpus has go.mod and
		// package declarations).
		q := codetext.NewQualifier(ds.Corpora[id])
		jc.Qualify, jc.Resolve = q.Name, q.Resolve
		p.judges[id] = jc
		fmt.Fprintf(h, "corpus %s %s\n", id, c.Hash())
	}
	for _, t := range ds.Tasks {
		if _, ok := p.Corpora[t.CorpusID]; !ok {
			return nil, fmt.Errorf("dataset %s: task %s: unknown corpus %q", ds.Name, t.ID, t.CorpusID)
		}
		// Meta fields are named one by one (in the spelling fmt.Sprint gave
		// the six of them, so baselines made before stay valid): a field
		// added to datasets.Meta does not make every baseline stale.
		m := t.Meta
		meta := "{" + strings.Join([]string{m.Repo, m.Intent, m.Library, m.QAType, m.Difficulty, m.Language}, " ") + "}"
		fmt.Fprintf(h, "task %s %s %s %s\n", strconv.Quote(t.ID), strconv.Quote(t.CorpusID), strconv.Quote(t.Query), strconv.Quote(meta))
		for _, g := range t.Gold {
			if path := goldPath(g); excluded[t.CorpusID][path] {
				what := fmt.Sprintf("gold %s %s", g.Kind, path)
				if g.ID != path {
					what = fmt.Sprintf("gold %s %q in %s", g.Kind, g.ID, path)
				}
				p.Notes = append(p.Notes, fmt.Sprintf("task %s: %s is excluded by the chunking options: no system can find it", t.ID, what))
			}
			fmt.Fprintf(h, "gold %s %s %d %s\n", g.Kind, strconv.Quote(g.ID), g.Grade, hashString(g.Body))
			// A symbol's Path is not hashed: it was always in the case file
			// (checked at load, only not judged before), so hashing it now
			// would make every case-file baseline stale; the cells its judging
			// moves are regenerated with the reason (docs/judging.md).
		}
	}
	p.Hash = hex.EncodeToString(h.Sum(nil))
	if st := p.ChunkStats; st.Cut > 0 || st.Excluded.Files > 0 {
		p.Notes = append([]string{"chunking: " + st.String()}, p.Notes...)
	}
	return p, nil
}

// goldPath is the file a gold names: its Path, or the file part of its ID
// ("path", "path#anchor").
func goldPath(g datasets.Relevant) string {
	if g.Path != "" {
		return g.Path
	}
	path, _, _ := strings.Cut(g.ID, "#")
	return path
}

// Input is the corpus sys indexes for corpus id: the chunked one, or the
// whole files as loaded when sys asks for them (systems.FileIndexer).
func (p *Prepared) Input(sys systems.System, id string) *corpus.Corpus {
	c := p.Corpora[id]
	if systems.WholeFiles(sys) && c.Files != nil {
		return c.Files
	}
	return c
}

// WholeFiles returns c with one doc per file: docs that share a path (the
// sections a loader cut a documentation file into) are joined back, each
// at its own lines, so line numbers in the file are the docs' line numbers.
// Docs without a path pass through. c itself is returned when no path is
// shared.
func WholeFiles(c *corpus.Corpus) *corpus.Corpus {
	byPath := map[string][]int{}
	shared := false
	for i := range c.Docs {
		if p := c.Docs[i].Path; p != "" {
			byPath[p] = append(byPath[p], i)
			shared = shared || len(byPath[p]) > 1
		}
	}
	if !shared {
		return c
	}
	out := &corpus.Corpus{ID: c.ID, Commit: c.Commit}
	done := map[string]bool{}
	for i := range c.Docs {
		d := c.Docs[i]
		if d.Path == "" || len(byPath[d.Path]) == 1 {
			out.Docs = append(out.Docs, d)
			continue
		}
		if done[d.Path] {
			continue
		}
		done[d.Path] = true
		parts := byPath[d.Path]
		sort.SliceStable(parts, func(a, b int) bool { return c.Docs[parts[a]].StartLine < c.Docs[parts[b]].StartLine })
		var lines []string
		for _, j := range parts {
			pd := &c.Docs[j]
			for len(lines) < pd.StartLine-1 {
				lines = append(lines, "")
			}
			lines = append(lines, strings.Split(pd.Text, "\n")...)
		}
		out.Docs = append(out.Docs, corpus.Doc{ID: d.Path, Path: d.Path, Kind: "file", Language: d.Language, Text: strings.Join(lines, "\n")})
	}
	return out
}

// JudgeCorpus is what the judge reads of corpus id.
func (p *Prepared) JudgeCorpus(id string) *judge.Corpus { return p.judges[id] }

// Versions names what the prepared data was made with, for golden files:
// the Go toolchain, the chunker options and the tree-sitter grammars.
func (p *Prepared) Versions() map[string]string {
	v := tsgrammar.Versions()
	v["go"] = runtime.Version()
	v["chunker"] = p.chunk.Key()
	if p.perCorpus {
		v["chunker"] += " (the first corpus's; each corpus has its own)"
	}
	return v
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
