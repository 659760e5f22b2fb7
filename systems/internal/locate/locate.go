// Package locate turns the location hits of a wrapped system into the chunk
// docs its wrapper ranks. A hybrid fuses and a graph expands by doc id, but
// an external member indexes whole files and answers with locations (a path,
// maybe lines and a symbol: systems.Hit without DocID). Before fusion or
// expansion each such hit becomes one chunk of the wrapper's corpus:
//
//  1. a hit whose path is no doc's path is dropped: it cannot match gold
//     (a file the tool was given besides the corpus, say), and the caller
//     counts it (Tally) to report it;
//  2. if the hit names a symbol and chunks of its file define it (the
//     judge's rule, chunk.SymbolMatches: the hit's symbol equals the chunk's
//     fully qualified name or is a dotted suffix of it), only those are
//     candidates; otherwise every chunk of the file is;
//  3. with lines, the candidate that owns the most of the hit's lines wins,
//     ties to the earlier chunk (by start line). A line is owned by the
//     narrowest chunk whose range holds it, so a method, not the class or
//     module chunk whose range spans it, owns the method's lines (package
//     chunk: chunks partition a file's lines, but a class chunk's range spans
//     its members). A start line without an end line is that one line;
//  4. without lines, or when the candidates own none of them, the earliest
//     candidate wins: the file's first chunk for a hit with a path only.
//
// Hits that name a doc id pass as they are. The result is a chunk ranking:
// a chunk that several hits resolve to is listed once, at its first (best)
// rank, with that hit's score.
package locate

import (
	"sort"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Chunks resolves location hits to the docs of one corpus.
type Chunks struct {
	c     *corpus.Corpus
	files map[string]*file
}

// file is the chunks of one path.
type file struct {
	docs      []int    // positions in c.Docs, by start line, then corpus order
	qualified []string // fully qualified symbol of docs[i] ("" for none)
	owner     []int32  // line (1-based) → index into docs of its narrowest chunk; -1 none
}

// New indexes the docs of c by path. Symbols are qualified from c.Files,
// the whole files (go.mod, package clauses), or from c itself when it has
// none.
func New(c *corpus.Corpus) *Chunks {
	files := c.Files
	if files == nil {
		files = c
	}
	q := chunk.NewQualifier(files)
	x := &Chunks{c: c, files: map[string]*file{}}
	for i := range c.Docs {
		d := &c.Docs[i]
		if d.Path == "" {
			continue
		}
		f := x.files[d.Path]
		if f == nil {
			f = &file{}
			x.files[d.Path] = f
		}
		f.docs = append(f.docs, i)
	}
	for _, f := range x.files {
		sort.SliceStable(f.docs, func(a, b int) bool { return c.Docs[f.docs[a]].StartLine < c.Docs[f.docs[b]].StartLine })
		f.qualified = make([]string, len(f.docs))
		last := 0
		for k, i := range f.docs {
			d := &c.Docs[i]
			if d.Symbol != "" && d.Symbol != "<module>" {
				f.qualified[k] = q.Name(d.Path, d.Language, d.Symbol)
			}
			if d.StartLine > 0 {
				last = max(last, d.EndLine, d.StartLine)
			}
		}
		if last == 0 {
			continue // no lines: every hit goes to the first chunk
		}
		f.owner = make([]int32, last+1)
		for l := range f.owner {
			f.owner[l] = -1
		}
		// Paint the widest chunks first and, among equally wide ones, the
		// later first, so each line ends up with its narrowest, earliest
		// chunk.
		order := make([]int, 0, len(f.docs))
		for k, i := range f.docs {
			if c.Docs[i].StartLine > 0 {
				order = append(order, k)
			}
		}
		width := func(k int) int {
			d := &c.Docs[f.docs[k]]
			return max(d.EndLine, d.StartLine) - d.StartLine
		}
		sort.SliceStable(order, func(a, b int) bool {
			if wa, wb := width(order[a]), width(order[b]); wa != wb {
				return wa > wb
			}
			return order[a] > order[b]
		})
		for _, k := range order {
			d := &c.Docs[f.docs[k]]
			for l := d.StartLine; l <= max(d.EndLine, d.StartLine); l++ {
				f.owner[l] = int32(k)
			}
		}
	}
	return x
}

// Resolve returns the doc id of the chunk location hit h resolves to (see
// the package doc), or false when no doc has its path.
func (x *Chunks) Resolve(h systems.Hit) (string, bool) {
	f := x.files[h.Path]
	if f == nil || h.Path == "" {
		return "", false
	}
	var cands []int // indexes into f.docs, ascending
	if h.Symbol != "" {
		for k, q := range f.qualified {
			if q != "" && chunk.SymbolMatches(q, h.Symbol) {
				cands = append(cands, k)
			}
		}
	}
	if len(cands) == 0 {
		cands = make([]int, len(f.docs))
		for k := range cands {
			cands[k] = k
		}
	}
	best := cands[0]
	if h.StartLine > 0 && f.owner != nil {
		end := max(h.EndLine, h.StartLine)
		owned := map[int]int{}
		for l := h.StartLine; l <= end && l < len(f.owner); l++ {
			if o := f.owner[l]; o >= 0 {
				owned[int(o)]++
			}
		}
		most := 0
		for _, k := range cands {
			if n := owned[k]; n > most {
				best, most = k, n
			}
		}
	}
	return x.c.Docs[f.docs[best]].ID, true
}

// Tally counts what Hits did with one system's location hits.
type Tally struct {
	Located int    // location hits seen
	Dropped int    // of them, dropped: their path is not in the corpus
	First   string // the first dropped hit's path
}

// Hits returns hits as a ranking of docs: a hit with a doc id as it is, a
// location hit as the chunk it resolves to (with its score), a location hit
// whose path is in no doc dropped, and a doc listed again dropped (its first
// rank stands). A list without location hits is returned as it is. t, if
// not nil, counts the location hits and the dropped ones.
func (x *Chunks) Hits(hits []systems.Hit, t *Tally) []systems.Hit {
	if !Located(hits) {
		return hits
	}
	out := make([]systems.Hit, 0, len(hits))
	seen := make(map[string]bool, len(hits))
	for _, h := range hits {
		if h.DocID == "" {
			id, ok := x.Resolve(h)
			if t != nil {
				t.Located++
			}
			if !ok {
				// Not a doc of this corpus: no gold can name it.
				if t != nil {
					if t.Dropped == 0 {
						t.First = h.Path
					}
					t.Dropped++
				}
				continue
			}
			h = systems.Hit{DocID: id, Score: h.Score}
		}
		if seen[h.DocID] {
			continue
		}
		seen[h.DocID] = true
		out = append(out, h)
	}
	return out
}

// Located reports whether any of hits is a location (has no doc id).
func Located(hits []systems.Hit) bool {
	for i := range hits {
		if hits[i].DocID == "" {
			return true
		}
	}
	return false
}

// Input is the corpus a wrapped system s indexes when its wrapper indexes
// c: c's whole files (corpus.Corpus.Files) for a system that asks for them
// (systems.FileIndexer), as the harness would hand them; c otherwise.
func Input(s systems.System, c *corpus.Corpus) *corpus.Corpus {
	if fi, ok := s.(systems.FileIndexer); ok && fi.WholeFiles() && c.Files != nil {
		return c.Files
	}
	return c
}

// Log writes one line to logf, if t saw location hits (and logf is set),
// saying how many were resolved to chunks of corpus and how many dropped,
// and resets t. who names the wrapper and its member.
func (t *Tally) Log(logf func(string, ...any), who, corpus string) {
	switch {
	case logf == nil || t.Located == 0:
	case t.Dropped == 0:
		logf("%s: %d location hits resolved to chunks of corpus %s, none dropped", who, t.Located, corpus)
	default:
		logf("%s: %d of %d location hits resolved to chunks of corpus %s; %d dropped: their paths are in no doc of it (the first: %q)",
			who, t.Located-t.Dropped, t.Located, corpus, t.Dropped, t.First)
	}
	*t = Tally{}
}
