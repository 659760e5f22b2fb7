// Package locate turns the location hits of a wrapped system into the hits
// its wrapper ranks. A hybrid fuses and a graph expands by doc id, but an
// external member indexes whole files and answers with locations (a path,
// maybe lines and a symbol: systems.Hit without DocID). Before fusion or
// expansion each such hit becomes what the judge says it points at — the
// judge's own rule, judge.Corpus.TargetDoc, not a second one:
//
//  1. a hit whose path is no doc's path is dropped: it cannot match gold
//     (a file the tool was given besides the corpus, say), and the caller
//     counts it (Tally) to report it;
//  2. a hit that points at a chunk becomes that chunk's doc id: lines, the
//     narrowest definition or chunk of the path whose range holds all of
//     them (a start line without an end line is that one line; a
//     definition holds the blank lines after it), when a chunk has exactly
//     its lines; a symbol without lines, the chunk that defines it (the
//     symbol rule, re-exports resolved);
//  3. a hit that points at a definition no chunk is cut for (a function
//     nested in a method: the judge resolves against every definition the
//     parser finds, corpus.Corpus.Defs) stays a location of that
//     definition (Hit with its path and lines), which the judge credits as
//     it would the member's own hit;
//  4. a hit that points at its whole file — lines no definition or chunk
//     holds (across two top-level definitions, the whole file, past its
//     end), a path alone, a name the file does not define — stays a
//     location of the whole file (Hit with the path only): no chunk stands
//     for a whole file, and the judge gives it file-level credit only, as
//     it would the member's own hit.
//
// A wrapper fuses and ranks the locations of 3 and 4 by Key.
//
// Hits that name a doc id pass as they are. The result is a ranking: a
// chunk (or a whole file) that several hits resolve to is listed once, at
// its first (best) rank, with that hit's score.
package locate

import (
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/judge"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Chunks resolves location hits to the docs of one corpus.
type Chunks struct {
	jc    *judge.Corpus
	paths map[string]bool // every doc's path
}

// New indexes the docs of c by path, for the judge's rule. Symbols are
// qualified (and re-exports resolved) from c.Files, the whole files
// (go.mod, package clauses, __init__.py), or from c itself when it has
// none — as the harness qualifies them for the judge.
func New(c *corpus.Corpus) *Chunks {
	files := c.Files
	if files == nil {
		files = c
	}
	q := codetext.NewQualifier(files)
	jc := judge.NewCorpus(c)
	jc.Qualify, jc.Resolve = q.Name, q.Resolve
	x := &Chunks{jc: jc, paths: map[string]bool{}}
	for i := range c.Docs {
		if p := c.Docs[i].Path; p != "" {
			x.paths[p] = true
		}
	}
	return x
}

// Resolve returns what location hit h points at (see the package doc), as
// the hit a wrapper ranks: a chunk's doc id; a definition no chunk is cut
// for (a function nested in a method), as a location of its path and
// lines; or its whole file, as a location of its path alone. False when no
// doc has its path. The score is h's.
func (x *Chunks) Resolve(h systems.Hit) (systems.Hit, bool) {
	if h.Path == "" || !x.paths[h.Path] {
		return systems.Hit{}, false
	}
	it := judge.Item{Located: true, Path: h.Path, StartLine: h.StartLine, EndLine: h.EndLine, Symbol: h.Symbol, Language: codetext.LanguageOf(h.Path)}
	if d, ok := x.jc.TargetDoc(it); ok {
		return systems.Hit{DocID: d.ID, Score: h.Score}, true
	}
	if start, end, ok := x.jc.TargetLines(it); ok {
		return systems.Hit{Path: h.Path, StartLine: start, EndLine: end, Score: h.Score}, true
	}
	return systems.Hit{Path: h.Path, Score: h.Score}, true
}

// Key is what a wrapper fuses and ranks a hit by: its doc id, or for a
// location its path and lines (in a namespace no doc id uses).
func Key(h systems.Hit) string {
	if h.DocID != "" {
		return h.DocID
	}
	if h.StartLine > 0 {
		return defKey + h.Path + "\x00" + strconv.Itoa(h.StartLine) + "-" + strconv.Itoa(max(h.EndLine, h.StartLine))
	}
	return fileKey + h.Path
}

// FromKey is the hit of key (Key) with score s.
func FromKey(key string, s float64) systems.Hit {
	if p, ok := strings.CutPrefix(key, fileKey); ok {
		return systems.Hit{Path: p, Score: s}
	}
	if rest, ok := strings.CutPrefix(key, defKey); ok {
		if i := strings.LastIndexByte(rest, 0); i >= 0 {
			a, b, _ := strings.Cut(rest[i+1:], "-")
			start, err1 := strconv.Atoi(a)
			end, err2 := strconv.Atoi(b)
			if err1 == nil && err2 == nil {
				return systems.Hit{Path: rest[:i], StartLine: start, EndLine: end, Score: s}
			}
		}
	}
	return systems.Hit{DocID: key, Score: s}
}

// fileKey starts the key of a whole-file location, defKey that of a
// definition's: a NUL, which no doc id holds.
const (
	fileKey = "\x00file:"
	defKey  = "\x00def:"
)

// Tally counts what Hits did with one system's location hits.
type Tally struct {
	Located int    // location hits seen
	Dropped int    // of them, dropped: their path is not in the corpus
	First   string // the first dropped hit's path
}

// Hits returns hits as a ranking: a hit with a doc id as it is, a location
// hit as the chunk it points at (with its score) or as its whole file, a
// location hit whose path is in no doc dropped, and a doc or whole file
// listed again dropped (its first rank stands). A list without location hits is returned as it is. t, if
// not nil, counts the location hits and the dropped ones.
func (x *Chunks) Hits(hits []systems.Hit, t *Tally) []systems.Hit {
	if !Located(hits) {
		return hits
	}
	out := make([]systems.Hit, 0, len(hits))
	seen := make(map[string]bool, len(hits))
	for _, h := range hits {
		if h.DocID == "" {
			r, ok := x.Resolve(h)
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
			h = r
		}
		k := Key(h)
		if seen[k] {
			continue
		}
		seen[k] = true
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
	if systems.WholeFiles(s) && c.Files != nil {
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
		logf("%s: %d location hits resolved to chunks or whole files of corpus %s, none dropped", who, t.Located, corpus)
	default:
		logf("%s: %d of %d location hits resolved to chunks or whole files of corpus %s; %d dropped: their paths are in no doc of it (the first: %q)",
			who, t.Located-t.Dropped, t.Located, corpus, t.Dropped, t.First)
	}
	*t = Tally{}
}

// Ranked turns scores by key (Key: a doc id, or a whole file an external
// system pointed at) into hits, score descending, key ascending.
func Ranked(scores map[string]float64) []systems.Hit {
	keys := make([]string, 0, len(scores))
	for key := range scores {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if a, b := scores[keys[i]], scores[keys[j]]; a != b {
			return a > b
		}
		return keys[i] < keys[j]
	})
	out := make([]systems.Hit, len(keys))
	for i, key := range keys {
		out[i] = FromKey(key, scores[key])
	}
	return out
}
