// Package corpus holds the retrievable units every other package shares: a
// Doc (one file, one chunk, one snippet or one document) and a Corpus (one
// repository or document store). It is a leaf: it imports nothing of ours.
package corpus

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
)

// Doc is one retrievable unit of a corpus.
//
// For code corpora a Doc starts as a whole file (Kind "file") and the harness
// may replace it by chunks (functions, methods, classes) that keep the file's
// Path. Document collections (TREC, BEIR, CoSQA, CodeRAG) use ID and Text and
// usually leave the code fields empty.
type Doc struct {
	ID        string // unique within its corpus
	Path      string // repository-relative file path, slash separated; "" for non-file docs
	Symbol    string // qualified symbol name ("Class.method"), "" for file-level docs
	Kind      string // "file", "function", "method", "class", "doc", …
	Language  string // "python", "go", "java", "typescript", "rust", "cpp"; "" for prose
	StartLine int    // 1-based, inclusive; 0 when not applicable
	EndLine   int    // 1-based, inclusive; 0 when not applicable
	Title     string // optional title (BEIR, TREC); searched with the text
	Text      string
}

// Span is a line range of a file of a corpus (1-based, inclusive, as a
// Doc's StartLine and EndLine): where a gold symbol or section lies, so that
// location hits can be judged without the corpus (judge.Spans, a
// campaign's run.json).
type Span struct {
	Path       string `json:"path"`
	Start, End int
}

// Corpus is one repository or document store.
type Corpus struct {
	ID     string // e.g. "psf/black" or "vaswani"
	Commit string // pinned commit of a repository, "" for document stores
	Docs   []Doc
	// Files is the same corpus with one doc per file, as a system that
	// indexes whole files is handed it (systems.FileIndexer): the files as
	// loaded when Docs are their chunks. nil when Docs already are one doc
	// per file. harness.Prepare sets it, so that a system wrapping others (a
	// hybrid, a graph) can give a whole-file member what the harness would.
	// Hash leaves it out: it is a view of the same content, not more of it.
	Files *Corpus
	// Defs are the definitions a parser finds in the corpus's code files
	// at every nesting level (chunk.Definitions: a method in a class, a
	// function in a function), whether or not a chunk is cut for them, by
	// path and start line. harness.Prepare sets it for the judge (docs/
	// judging.md: a location resolves against definitions, not chunks);
	// nil leaves the judge the chunks. Hash leaves it out: it is derived
	// from the files.
	Defs []Definition
}

// Definition is one definition of a code file as the parser finds it.
type Definition struct {
	Path, Language string
	Symbol         string // qualified within the file as the chunker names chunks ("Outer.method.helper")
	Kind           string // the chunker's kind: function, method or class
	// Start and End are its lines, with the comments and decorators
	// directly above it (the span a chunk of it has); To is End extended
	// over the blank lines that follow it (a tool's range may take them).
	Start, End, To int
}

// Hash returns a content hash of the corpus: its ID, commit and every
// field of every doc in order (not Files). Two corpora with the same hash index to the
// same result, so the hash keys on-disk caches and golden baselines.
func (c *Corpus) Hash() string {
	h := sha256.New()
	writeField(h, c.ID)
	writeField(h, c.Commit)
	for i := range c.Docs {
		d := &c.Docs[i]
		for _, s := range []string{d.ID, d.Path, d.Symbol, d.Kind, d.Language, d.Title, d.Text} {
			writeField(h, s)
		}
		var b [16]byte
		binary.LittleEndian.PutUint64(b[:8], uint64(d.StartLine))
		binary.LittleEndian.PutUint64(b[8:], uint64(d.EndLine))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeField writes a length-prefixed string so that field boundaries
// cannot be confused ("ab"+"c" ≠ "a"+"bc").
func writeField(h hash.Hash, s string) {
	var n [8]byte
	binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
	h.Write(n[:])
	h.Write([]byte(s))
}

// Lookup returns an index from doc ID to position in c.Docs.
func (c *Corpus) Lookup() map[string]int {
	m := make(map[string]int, len(c.Docs))
	for i := range c.Docs {
		m[c.Docs[i].ID] = i
	}
	return m
}
