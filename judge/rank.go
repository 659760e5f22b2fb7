package judge

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/metrics"
)

// Item is one ranked hit as the judge sees it: a doc of the corpus (DocID
// set, the other fields copied from the doc) or a location.
type Item struct {
	// DocID names a doc of the corpus, judged by its own fields; or, with
	// Located, only identifies a location hit (a campaign pools and grades
	// hits by id).
	DocID     string
	Located   bool
	Path      string
	StartLine int
	EndLine   int
	Symbol    string
	Text      string
	Language  string
}

// DocItem is the item of a corpus doc.
func DocItem(d *corpus.Doc) Item {
	return Item{DocID: d.ID, Path: d.Path, StartLine: d.StartLine, EndLine: d.EndLine, Symbol: d.Symbol, Text: d.Text, Language: d.Language}
}

// Corpus is what the location and content rules need of a chunked corpus:
// where each definition, needle and section lies, and its text.
type Corpus struct {
	c      *corpus.Corpus
	lookup map[string]int
	files  map[string][]int // path → positions in c.Docs of its docs with lines, by start line; built on first use
	// places: path → what a location can point at, by start line: every
	// definition the parser found (corpus.Corpus.Defs, any nesting
	// level) and every doc with lines (chunks, sections); without Defs,
	// the docs alone. Built on first use.
	places map[string][]place
	// placed: locations are already what they point at (records judged
	// again, SpanCorpus); Target leaves them as they are.
	placed bool
	// Qualify returns the fully qualified name of a chunk's symbol (module
	// path + symbol); nil leaves symbols as the chunker names them.
	Qualify func(path, language, symbol string) string
	// Resolve rewrites a name as written through the corpus's re-exports
	// (codetext.Qualifier.Resolve: "flask.Flask" is "flask.app.Flask", which
	// flask/__init__.py imports); nil resolves nothing.
	Resolve func(written string) string
}

// NewCorpus wraps a chunked corpus (nil: no location or content rule can
// match, only doc ids, paths and symbols).
func NewCorpus(c *corpus.Corpus) *Corpus {
	if c == nil {
		c = &corpus.Corpus{}
	}
	return &Corpus{c: c, lookup: c.Lookup()}
}

// Doc returns the doc with id, if the corpus has it.
func (c *Corpus) Doc(id string) (*corpus.Doc, bool) {
	i, ok := c.lookup[id]
	if !ok {
		return nil, false
	}
	return &c.c.Docs[i], true
}

// names reports whether written names the definition whose fully qualified
// name is qualified: as written (SymbolMatches), or once resolved through
// the corpus's re-exports.
func (c *Corpus) names(qualified, written string) bool {
	if SymbolMatches(qualified, written) {
		return true
	}
	if c.Resolve == nil {
		return false
	}
	r := c.Resolve(written)
	return r != written && SymbolMatches(qualified, r)
}

func (c *Corpus) qualified(path, lang, symbol string) string {
	if c.Qualify == nil || symbol == "" {
		return symbol
	}
	return c.Qualify(path, lang, symbol)
}

// place is something of a file a location can point at: a definition or
// a doc with lines.
type place struct {
	symbol, kind, lang string
	start, end         int
	to                 int // end, or past the blank lines after a definition
	doc                *corpus.Doc
}

// index builds files and places on first use.
func (c *Corpus) index() {
	if c.files != nil {
		return
	}
	c.files = map[string][]int{}
	c.places = map[string][]place{}
	for i := range c.c.Docs {
		if d := &c.c.Docs[i]; d.Path != "" && d.StartLine > 0 {
			c.files[d.Path] = append(c.files[d.Path], i)
			end := max(d.EndLine, d.StartLine)
			c.places[d.Path] = append(c.places[d.Path], place{symbol: d.Symbol, kind: d.Kind, lang: d.Language, start: d.StartLine, end: end, to: end, doc: d})
		}
	}
	for _, d := range c.c.Defs {
		if _, ok := c.places[d.Path]; !ok || d.Start <= 0 {
			continue // a file no doc has: nothing can point at it
		}
		end := max(d.End, d.Start)
		c.places[d.Path] = append(c.places[d.Path], place{symbol: d.Symbol, kind: d.Kind, lang: d.Language, start: d.Start, end: end, to: max(d.To, end)})
	}
	for _, ds := range c.files {
		sort.SliceStable(ds, func(a, b int) bool { return c.c.Docs[ds[a]].StartLine < c.c.Docs[ds[b]].StartLine })
	}
	for _, ps := range c.places {
		sort.SliceStable(ps, func(a, b int) bool { return ps[a].start < ps[b].start })
	}
}

// define returns the place of file path that defines symbol as a system
// names it: the first (by start line) whose symbol is written exactly so,
// by the chunker or fully qualified, else the first whose fully qualified
// name symbol is a dotted suffix of (SymbolMatches). Definitions at every
// nesting level are looked at (corpus.Corpus.Defs), and documentation
// sections by heading. A location hit with a path and a symbol but no
// lines points at it.
func (c *Corpus) define(path, symbol string) (*place, bool) {
	if symbol == "" || path == "" {
		return nil, false
	}
	c.index()
	var suffix *place
	ps := c.places[path]
	for i := range ps {
		p := &ps[i]
		if p.symbol == "" {
			continue
		}
		q := c.qualified(path, p.lang, p.symbol)
		if p.symbol == symbol || q == symbol {
			return p, true
		}
		if suffix == nil && c.names(q, symbol) {
			suffix = p
		}
	}
	return suffix, suffix != nil
}

// Ranking is a judged ranked list.
type Ranking struct {
	Units  []string       // one qrels id per item, in rank order
	Grades []int          // grade credited to each item (0 = not relevant)
	Qrels  map[string]int // every gold unit and pooled doc of the task
}

// FirstRelevant is the 1-based rank of the first item with a positive
// grade, 0 if none.
func (r Ranking) FirstRelevant() int {
	for i, g := range r.Grades {
		if g > 0 {
			return i + 1
		}
	}
	return 0
}

// UnitKey names one gold judgment as a qrels id. Gold, pooled and
// non-relevant ids live in different namespaces ("gold:", "pool:", "hit:"),
// so a hit can never be mistaken for a judged unit. A symbol judged in one
// file carries its path ("gold:symbol:a.py:Store.get"), so that one name
// defined in two files is two units.
func UnitKey(r datasets.Relevant) string {
	if r.Kind == "symbol" && r.Path != "" {
		return "gold:" + r.Kind + ":" + r.Path + ":" + r.ID
	}
	return "gold:" + r.Kind + ":" + r.ID
}

// PoolKey names a pooled (people-graded) doc as a qrels id.
func PoolKey(docID string) string { return "pool:" + docID }

// Pooled is one doc of a campaign's pool with the grade people gave it.
type Pooled struct {
	Item
	Grade int
}

// Rank judges items against gold, with the pooled grades of people (nil for
// none), by the rules of the package doc. A pooled doc that satisfies a gold
// unit is that unit's, not a unit of its own: the qrels count it once.
func Rank(gold []datasets.Relevant, items []Item, c *Corpus, pool []Pooled) Ranking {
	if c == nil {
		c = NewCorpus(nil)
	}
	r := Ranking{
		Units:  make([]string, len(items)),
		Grades: make([]int, len(items)),
		Qrels:  make(map[string]int, len(gold)+len(pool)),
	}
	for _, g := range gold {
		k := UnitKey(g)
		if old, ok := r.Qrels[k]; !ok || g.Grade > old {
			r.Qrels[k] = g.Grade
		}
	}
	loc := newLocator(c, gold)
	pooled := make(map[string]int, len(pool))
	for i := range pool {
		p := &pool[i]
		if p.DocID == "" || loc.matchesAny(&p.Item) {
			continue
		}
		pooled[p.DocID] = p.Grade
		r.Qrels[PoolKey(p.DocID)] = p.Grade
	}
	credited := make(map[string]bool)
	used := make(map[string]bool, len(items))
	seen := make(map[string]bool, len(items))
	for i, it := range items {
		it = c.Target(it)
		key := pointsAt(&it)
		repeat := key != "" && seen[key]
		seen[key] = true
		// Of the uncredited gold units the hit earns, the most specific:
		// what it points at itself before what holds it (a method's own
		// gold before its class's, a definition's before its file's), then
		// the best graded.
		best, bestGrade, bestWidth := "", -1, 0
		for gi := range gold {
			if repeat {
				break // a repeat of an earlier hit's target earns nothing
			}
			g := &gold[gi]
			k := UnitKey(*g)
			if credited[k] || !loc.matches(gi, &it) {
				continue
			}
			w := loc.width(gi, &it)
			if best != "" && (w > bestWidth || w == bestWidth && g.Grade <= bestGrade) {
				continue
			}
			best, bestGrade, bestWidth = k, g.Grade, w
		}
		u, grade := "", 0
		switch {
		case best != "":
			credited[best] = true
			u, grade = best, bestGrade
		case !repeat && it.DocID != "" && hasKey(pooled, it.DocID) && !used[PoolKey(it.DocID)]:
			u, grade = PoolKey(it.DocID), pooled[it.DocID]
		case it.DocID != "" && !used["hit:"+it.DocID]:
			u = "hit:" + it.DocID
		default:
			// A location, or a hit repeated: a non-relevant unit of its
			// own, so a repeat is a miss for this task, never an error of
			// the scorer ("retrieved twice").
			name := it.DocID
			if name == "" {
				name = it.Path
			}
			u = "hit:#" + strconv.Itoa(i+1) + ":" + name
		}
		used[u] = true
		r.Units[i], r.Grades[i] = u, grade
	}
	return r
}

// pointsAt names what a (targeted) item points at, so that the same
// content reported twice in one ranking — as a chunk id, a line range or a
// path and symbol — is one hit and a repeat: a path's lines, else a doc
// id, else a whole file's path; "" for a text without a path.
func pointsAt(it *Item) string {
	switch {
	case it.Path != "" && it.StartLine > 0:
		return "lines:" + it.Path + ":" + strconv.Itoa(it.StartLine) + "-" + strconv.Itoa(max(it.EndLine, it.StartLine))
	case it.DocID != "" && !it.Located:
		return "doc:" + it.DocID
	case it.Path != "":
		return "file:" + it.Path
	}
	return ""
}

// Target returns it as the judge reads it: what a location points at.
//
//   - Lines: the narrowest doc of the path whose range holds all of them
//     (a method, not its class; a class for a range across its methods),
//     whose lines it takes; lines no doc holds (across two top-level
//     definitions, a whole file, past its end) point at the whole file:
//     the lines are dropped.
//   - A symbol without lines: the doc of the path that defines it (Define),
//     whose lines it takes; a name the path does not define points at the
//     whole file.
//
// A doc of the corpus, a text without a path, and a location whose path no
// doc with lines has are returned as they are.
func (c *Corpus) Target(it Item) Item {
	it, _, _ = c.target(it)
	return it
}

// TargetLines returns the lines of the definition or doc a location points
// at (Target), and false when it points at no such thing: its whole file,
// a path no doc with lines has, or an item that is not a location.
func (c *Corpus) TargetLines(it Item) (start, end int, ok bool) {
	t, _, ok := c.target(it)
	return t.StartLine, t.EndLine, ok
}

// TargetDoc returns the doc of the corpus a location points at (Target):
// the chunk whose lines it takes; false for a location that points at its
// whole file (or whose path no doc with lines has), and for an item that is
// not a location. A wrapper that ranks by doc id (systems/internal/locate)
// turns location hits into docs by it, so that the judge and the wrapper
// read a hit alike.
func (c *Corpus) TargetDoc(it Item) (*corpus.Doc, bool) {
	_, d, _ := c.target(it)
	return d, d != nil
}

// target is Target, with the doc whose lines it took (nil for none, and
// for a definition no chunk has exactly the lines of), and whether it
// took a definition's or doc's lines.
func (c *Corpus) target(it Item) (Item, *corpus.Doc, bool) {
	if c == nil || c.placed || it.DocID != "" && !it.Located || it.Path == "" {
		return it, nil, false
	}
	c.index()
	ps := c.places[it.Path]
	if len(ps) == 0 {
		return it, nil, false
	}
	var best *place
	if it.StartLine > 0 {
		// The narrowest definition (or doc) holding every line; a
		// definition holds the blank lines after it too.
		end := max(it.EndLine, it.StartLine)
		for i := range ps {
			p := &ps[i]
			if p.start <= it.StartLine && end <= p.to && (best == nil || p.end-p.start < best.end-best.start) {
				best = p
			}
		}
	} else {
		best, _ = c.define(it.Path, it.Symbol)
	}
	it.StartLine, it.EndLine = 0, 0
	if best == nil {
		return it, nil, false
	}
	it.StartLine, it.EndLine = best.start, best.end
	d := best.doc
	if d == nil {
		d, _ = c.at(it.Path, best.start, best.end)
	}
	return it, d, true
}

func hasKey(m map[string]int, k string) bool { _, ok := m[k]; return ok }

// Composite judges one blob of text (the items packed, or a text an external
// system returned whole) as the single rank-1 item: the best-graded gold
// unit it satisfies, or a non-relevant item. Packed corpus docs keep their
// identity (a doc id or path rule decides); a blob without doc ids is judged
// by content (ContentMatches).
func Composite(gold []datasets.Relevant, items []Item, c *Corpus) Ranking {
	if c == nil {
		c = NewCorpus(nil)
	}
	full := Rank(gold, items, c, nil)
	r := Ranking{Units: []string{"hit:composite-blob"}, Grades: []int{0}, Qrels: full.Qrels}
	for i, u := range full.Units {
		if strings.HasPrefix(u, "gold:") && full.Grades[i] > r.Grades[0] {
			r.Units[0], r.Grades[0] = u, full.Grades[i]
		}
	}
	var blob strings.Builder
	for _, it := range items {
		if it.DocID == "" && it.Path == "" {
			blob.WriteString(it.Text)
			blob.WriteByte('\n')
		}
	}
	if blob.Len() == 0 {
		return r
	}
	for _, g := range gold {
		if g.Grade <= r.Grades[0] {
			continue
		}
		if text := goldText(&g, c); text != "" && ContentMatches(text, blob.String()) {
			r.Units[0], r.Grades[0] = UnitKey(g), g.Grade
		}
	}
	return r
}

// goldText is the text a composite blob must contain for gold g: the doc's
// text, the needle's body, or a definition's (or section's) source.
func goldText(g *datasets.Relevant, c *Corpus) string {
	switch g.Kind {
	case "doc", "doc_section":
		if d, ok := c.Doc(g.ID); ok {
			return d.Text
		}
	case "needle":
		return g.Body
	case "symbol":
		for i := range c.c.Docs {
			d := &c.c.Docs[i]
			if d.Symbol != "" && d.Kind != "doc_section" && (g.Path == "" || d.Path == g.Path) && c.names(c.qualified(d.Path, d.Language, d.Symbol), g.ID) {
				return d.Text
			}
		}
	}
	return ""
}

// SymbolMatches is codetext.SymbolMatches: written names the definition whose
// fully qualified name is qualified (equal, or a dotted suffix at a dot).
func SymbolMatches(qualified, written string) bool { return codetext.SymbolMatches(qualified, written) }

// span is a line range of a file.
type span struct {
	path       string
	start, end int
}

// locator matches items against the gold of one task; the corpus spans of
// each gold unit are found once, on first use by a location item.
type locator struct {
	c     *Corpus
	gold  []datasets.Relevant
	spans map[int][]span
}

func newLocator(c *Corpus, gold []datasets.Relevant) *locator {
	return &locator{c: c, gold: gold, spans: map[int][]span{}}
}

func (l *locator) matchesAny(it *Item) bool {
	t := l.c.Target(*it)
	for gi := range l.gold {
		if l.matches(gi, &t) {
			return true
		}
	}
	return false
}

func (l *locator) matches(gi int, it *Item) bool {
	g := &l.gold[gi]
	doc := it.DocID != "" && !it.Located
	switch g.Kind {
	case "doc":
		return doc && it.DocID == g.ID
	case "file", "test", "config":
		return it.Path != "" && it.Path == g.ID
	case "symbol", "doc_section", "needle":
	default:
		return false
	}
	if g.Kind == "needle" && it.Path != "" && it.StartLine > 0 {
		// A needle is judged in the text of the chunk the hit points at:
		// the chunk that holds a short method may be its class's, whose
		// range spans every other method too.
		text := it.Text
		if !doc {
			text = ""
			if d, ok := l.c.at(it.Path, it.StartLine, max(it.EndLine, it.StartLine)); ok {
				text = d.Text
			}
		}
		if text != "" {
			return needleIn(g, it.Language, text)
		}
	}
	spans := l.spansOf(gi)
	if it.Path != "" && it.StartLine > 0 && (len(spans) > 0 || !doc) {
		// A hit with lines points at the narrowest definition (or section)
		// that holds all of them, and earns the gold of every definition
		// that holds it: a method earns its class, a class never its
		// methods, a whole file no definition.
		for _, s := range spans {
			if within(it, s) {
				return true
			}
		}
		return false
	}
	if it.Path != "" && !doc {
		return false // a location without lines points at its whole file
	}
	// A doc without lines (or whose gold the corpus does not place), or a
	// text without a path: by name and content.
	switch g.Kind {
	case "symbol":
		return it.Symbol != "" && (g.Path == "" || it.Path == g.Path) && l.c.names(l.c.qualified(it.Path, it.Language, it.Symbol), g.ID)
	case "doc_section":
		return doc && it.DocID == g.ID || it.Symbol != "" && it.Symbol == g.ID
	default: // needle
		return it.Text != "" && needleIn(g, it.Language, it.Text)
	}
}

// needleIn reports whether text (in language lang, unless the gold names
// one) holds the needle body of g, whitespace and comments aside.
func needleIn(g *datasets.Relevant, lang, text string) bool {
	if g.Language != "" {
		lang = g.Language
	}
	return codetext.Contains(lang, text, g.Body)
}

// at returns the doc of path whose range is exactly start-end.
func (c *Corpus) at(path string, start, end int) (*corpus.Doc, bool) {
	c.index()
	for _, i := range c.files[path] {
		d := &c.c.Docs[i]
		if d.StartLine == start && max(d.EndLine, d.StartLine) == end {
			return d, true
		}
	}
	return nil, false
}

// width says how specific gold gi is to an item that earns it: the line
// count of the narrowest span of the gold that holds the item's lines; 0
// for a doc id, a needle or a match by name; a whole file counts as wider
// than any span.
func (l *locator) width(gi int, it *Item) int {
	switch l.gold[gi].Kind {
	case "file", "test", "config":
		return math.MaxInt
	case "symbol", "doc_section":
		w := 0
		if it.Path != "" && it.StartLine > 0 {
			for _, s := range l.spansOf(gi) {
				if within(it, s) && (w == 0 || s.end-s.start+1 < w) {
					w = s.end - s.start + 1
				}
			}
		}
		return w
	}
	return 0
}

// Spans returns where gold g lies in corpus c (the definitions, needle
// chunks or sections a location hit must cover), so that a campaign can
// judge location hits later without the corpus (SpanCorpus).
func Spans(g datasets.Relevant, c *Corpus) []corpus.Span {
	l := newLocator(c, []datasets.Relevant{g})
	var out []corpus.Span
	for _, s := range l.spansOf(0) {
		out = append(out, corpus.Span{Path: s.path, Start: s.start, End: s.end})
	}
	return out
}

// SpanCorpus is a corpus of the given gold spans only: judging location
// hits against it gives what judging against the whole corpus gave, for
// symbol and section gold (a stand-in doc per span carries the gold's id).
func SpanCorpus(spans map[int][]corpus.Span, gold []datasets.Relevant) *Corpus {
	c := &corpus.Corpus{}
	for gi, ss := range spans {
		g := gold[gi]
		for k, s := range ss {
			d := corpus.Doc{ID: fmt.Sprintf("span:%d:%d", gi, k), Path: s.Path, StartLine: s.Start, EndLine: s.End}
			switch g.Kind {
			case "symbol":
				d.Symbol = g.ID
			case "doc_section":
				d.ID = g.ID
			}
			c.Docs = append(c.Docs, d)
		}
	}
	sort.Slice(c.Docs, func(i, j int) bool { return c.Docs[i].ID < c.Docs[j].ID })
	sc := NewCorpus(c)
	// The stand-ins are not the repository's definitions: a recorded
	// location is what the cell made of it (Target), placed or not.
	sc.placed = true
	return sc
}

// spansOf returns where gold unit gi lies in the corpus: for a symbol,
// every definition it names (at any nesting level, corpus.Corpus.Defs);
// for a section or a needle, the docs.
func (l *locator) spansOf(gi int) []span {
	if s, ok := l.spans[gi]; ok {
		return s
	}
	g := &l.gold[gi]
	var out []span
	seen := map[span]bool{}
	add := func(s span) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	if g.Kind == "symbol" {
		l.c.index()
		paths := make([]string, 0, len(l.c.places))
		for p := range l.c.places {
			if g.Path == "" || p == g.Path {
				paths = append(paths, p)
			}
		}
		sort.Strings(paths)
		for _, path := range paths {
			for _, p := range l.c.places[path] {
				// A definition of code, in the judgment's file when it
				// names one; never a documentation section that has the
				// name as its heading (a README's "Flask").
				if p.symbol != "" && p.kind != "doc_section" && (p.doc == nil || p.doc.Kind != "doc_section") && l.c.names(l.c.qualified(path, p.lang, p.symbol), g.ID) {
					add(span{path, p.start, p.end})
				}
			}
		}
		sort.SliceStable(out, func(i, j int) bool {
			if out[i].path != out[j].path {
				return out[i].path < out[j].path
			}
			return out[i].start < out[j].start
		})
		l.spans[gi] = out
		return out
	}
	for i := range l.c.c.Docs {
		d := &l.c.c.Docs[i]
		if d.Path == "" || d.StartLine <= 0 {
			continue
		}
		ok := false
		switch g.Kind {
		case "doc_section":
			ok = d.ID == g.ID || d.Symbol == g.ID
		case "needle":
			lang := g.Language
			if lang == "" {
				lang = d.Language
			}
			ok = codetext.Contains(lang, d.Text, g.Body)
		}
		if ok {
			add(span{d.Path, d.StartLine, max(d.EndLine, d.StartLine)})
		}
	}
	l.spans[gi] = out
	return out
}

// within reports whether the lines of item it lie in span s: same file,
// and every line of it in s (a start line without an end line is that one
// line).
func within(it *Item, s span) bool {
	if it.Path != s.path {
		return false
	}
	end := it.EndLine
	if end < it.StartLine {
		end = it.StartLine
	}
	return s.start <= it.StartLine && end <= s.end
}

// LibraryResolution is the measure that says whether a hosted
// documentation system resolved a query to the task's library
// (datasets.Meta.Library), as the seed harness's library_resolution@1: 1
// when the first hit's library matches it (LibraryMatches), else 0. It
// reads a Resolution from metrics.Options.Task; it takes the cutoff 1 only
// (the library a system resolved a query to is its first hit's).
var LibraryResolution = &metrics.Def{Name: "library_resolution", Cut: metrics.AtCutoff, Score: func(r *metrics.Ranking, _ int) float64 {
	if res, ok := r.Task.(Resolution); ok && LibraryMatches(res.Resolved, res.Library) {
		return 1
	}
	return 0
}}

// Resolution is what LibraryResolution scores one ranking by: the library
// id its first hit resolved to ("" without hits) and the task's library.
type Resolution struct{ Resolved, Library string }

// libraryAliases are the short names tasks use for libraries whose ids
// spell them out (DS-1000's "Sklearn" is scikit-learn).
var libraryAliases = map[string]string{"sklearn": "scikitlearn", "torch": "pytorch", "tf": "tensorflow"}

// LibraryMatches reports whether a resolved library id ("/numpy/numpy")
// names library ("Numpy"): compared lower-cased with everything but letters
// and digits removed, the id must contain the library's name (or the name
// its alias spells out).
func LibraryMatches(resolved, library string) bool {
	norm := func(s string) string {
		var b strings.Builder
		for _, r := range strings.ToLower(s) {
			if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
				b.WriteRune(r)
			}
		}
		return b.String()
	}
	id, lib := norm(resolved), norm(library)
	if id == "" || lib == "" {
		return false
	}
	if a, ok := libraryAliases[lib]; ok && strings.Contains(id, a) {
		return true
	}
	return strings.Contains(id, lib)
}
