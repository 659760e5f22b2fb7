package chunk

import (
	"fmt"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/tsgrammar"
)

// Chunk kinds written to corpus.Doc.Kind.
const (
	KindFile     = "file"     // a whole file (fallback)
	KindModule   = "module"   // a file's lines outside every definition
	KindFunction = "function" // a function not directly inside a class-like body
	KindMethod   = "method"   // a function directly inside a class-like body (or a Go method)
	KindClass    = "class"    // a class-like definition's own lines (class, struct, interface, enum, trait, impl, type)
)

// Options are the tunables of Corpus.
type Options struct {
	// MinLines is the least number of lines (decorators and doc comments
	// included) a definition needs to become a chunk of its own; shorter
	// ones stay in the chunk of their parent. 1 splits every definition.
	MinLines int
	// MaxBytes, when positive, cuts "file" and "module" chunks longer than
	// MaxBytes into consecutive runs of whole lines of at most MaxBytes
	// (a single longer line stays whole). Definitions are never cut, so a
	// needle inside a function stays whole; a file that falls back to one
	// chunk (no definitions, parse failure) may be cut. 0 disables it.
	MaxBytes int
	// StrictParse makes a file whose syntax tree has errors fall back to
	// one file chunk. By default such a file is still chunked: tree-sitter
	// recovers locally, lines it cannot place stay in the module chunk, and
	// the file is counted in Stats.ParseErrors.
	StrictParse bool
	// MaxChunkLines and MaxChunkBytes, when positive, cut every chunk
	// longer than either — definitions too, unlike MaxBytes — into parts of
	// consecutive whole lines within both (a single longer line stays
	// whole). A cut goes, by preference, at a blank or bare comment line
	// ("//", "#": a paragraph of a doc comment), then where a comment ends
	// and code starts or a member was cut out of a class, then at the
	// limit; parts keep the chunk's symbol and kind, each with its own
	// lines. So a 421-line package doc comment is several module chunks,
	// and a function's long doc comment can be a part of its own. 0 keeps
	// chunks whole (DefaultOptions).
	MaxChunkLines int
	MaxChunkBytes int
	// KeepFunctions makes the size limits cut only module, class and file
	// chunks, never a function or method chunk nor a function left inside
	// another chunk, whatever its length: for judging that needs a
	// function's text in one chunk (RepoQA's needles).
	KeepFunctions bool
	// Exclude drops files from the corpus before chunking (see Exclude).
	// The zero value keeps every file (DefaultOptions).
	Exclude Exclude
}

// DefaultOptions returns the catalogue's recorded chunking: the options
// every dataset of the benchmark's catalogue (RepoQA, SWE-QA, CodeRAG, …,
// and fixtures/cases) is chunked with, whose golden files hash them. It
// keeps every file and every chunk whole; RepoOptions is for a user's
// repository.
func DefaultOptions() Options {
	return Options{MinLines: 1}
}

// Default chunk limits of RepoOptions.
const (
	DefaultMaxChunkLines = 100
	DefaultMaxChunkBytes = 8 << 10
)

// RepoOptions returns the chunking of a user's repository (campaigns and
// case files): DefaultOptions plus DefaultExclude and chunks cut at
// DefaultMaxChunkLines lines or DefaultMaxChunkBytes bytes.
func RepoOptions() Options {
	o := DefaultOptions()
	o.Exclude = DefaultExclude()
	o.MaxChunkLines, o.MaxChunkBytes = DefaultMaxChunkLines, DefaultMaxChunkBytes
	return o
}

// Validate reports options Corpus cannot use.
func (o Options) Validate() error {
	if o.MaxChunkLines < 0 || o.MaxChunkBytes < 0 || o.MaxBytes < 0 {
		return fmt.Errorf("chunk: negative limit (max bytes %d, max chunk lines %d, max chunk bytes %d)", o.MaxBytes, o.MaxChunkLines, o.MaxChunkBytes)
	}
	return o.Exclude.Validate()
}

// Key is the options as golden files hash and record them. Options that
// were there before MaxChunkLines, MaxChunkBytes and Exclude print as
// fmt's %+v printed them ("{MinLines:1 MaxBytes:0 StrictParse:false}"), so
// that baselines made before stay valid; the newer ones are added only when
// set.
func (o Options) Key() string {
	k := fmt.Sprintf("{MinLines:%d MaxBytes:%d StrictParse:%t", o.MinLines, o.MaxBytes, o.StrictParse)
	if o.MaxChunkLines > 0 || o.MaxChunkBytes > 0 {
		k += fmt.Sprintf(" MaxChunkLines:%d MaxChunkBytes:%d", o.MaxChunkLines, o.MaxChunkBytes)
		if o.KeepFunctions {
			k += " KeepFunctions:true"
		}
	}
	if !o.Exclude.IsZero() {
		k += fmt.Sprintf(" Exclude:{Paths:%q Generated:%t MaxFileBytes:%d}", o.Exclude.Paths, o.Exclude.Generated, o.Exclude.MaxFileBytes)
	}
	return k + "}"
}

// Counts counts what Corpus did.
type Counts struct {
	Files       int // file docs (Kind "file") read, excluded ones not counted
	Chunks      int // docs written for those files
	Fallback    int // files written as one file chunk (unknown language, parse failure, no definitions)
	ParseErrors int // files whose syntax tree has errors
	// Cut counts the chunks over MaxChunkLines or MaxChunkBytes cut into
	// parts, Parts the parts they became (counted in Chunks too).
	Cut, Parts int
	// LargestLines and LargestBytes are the longest chunk written, in lines
	// and bytes of its text (a module or class chunk's span also covers the
	// chunks cut out of it).
	LargestLines, LargestBytes int
	// Excluded is what Options.Exclude took.
	Excluded Excluded
}

// Add adds o to c (LargestLines and LargestBytes: the larger).
func (c *Counts) Add(o Counts) {
	c.Files += o.Files
	c.Chunks += o.Chunks
	c.Fallback += o.Fallback
	c.ParseErrors += o.ParseErrors
	c.Cut += o.Cut
	c.Parts += o.Parts
	c.LargestLines = max(c.LargestLines, o.LargestLines)
	c.LargestBytes = max(c.LargestBytes, o.LargestBytes)
	c.Excluded.Add(o.Excluded)
}

// String is one line for a report.
func (c Counts) String() string {
	s := fmt.Sprintf("%d files → %d chunks (largest %d lines, %s)", c.Files, c.Chunks, c.LargestLines, humanBytes(c.LargestBytes))
	if c.Cut > 0 {
		s += fmt.Sprintf("; %d chunks over the size limit cut into %d parts", c.Cut, c.Parts)
	}
	if c.Excluded.Files > 0 {
		s += "; excluded " + c.Excluded.String()
	}
	return s
}

// Corpus returns a copy of c in which every file doc (Kind "file") is
// replaced by its chunks, in file order and then line order; other docs
// are copied unchanged. See the package doc for the chunking rules. The
// input corpus is not modified.
//
// Files are parsed in parallel (GOMAXPROCS workers); the output does not
// depend on the number of workers, so it is not an option (options are
// hashed into golden baselines).
func Corpus(c *corpus.Corpus, opt Options) (*corpus.Corpus, Counts, error) {
	return split(c, opt, runtime.GOMAXPROCS(0))
}

func split(c *corpus.Corpus, opt Options, workers int) (*corpus.Corpus, Counts, error) {
	if err := opt.Validate(); err != nil {
		return nil, Counts{}, err
	}
	if opt.MinLines < 1 {
		opt.MinLines = 1
	}
	c, excluded := opt.Exclude.Filter(c)
	workers = max(1, workers)
	type result struct {
		docs []corpus.Doc
		st   Counts
		err  error
	}
	results := make([]result, len(c.Docs))
	jobs := make(chan int)
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := newParsers()
			defer p.close()
			for i := range jobs {
				d := &c.Docs[i]
				if d.Kind != KindFile {
					results[i].docs = []corpus.Doc{*d}
					continue
				}
				docs, st, err := p.splitFile(d, opt)
				if err != nil {
					err = fmt.Errorf("chunking %s: %w", d.Path, err)
				}
				results[i] = result{docs, st, err}
			}
		}()
	}
	for i := range c.Docs {
		jobs <- i
	}
	close(jobs)
	wg.Wait()

	out := &corpus.Corpus{ID: c.ID, Commit: c.Commit}
	st := Counts{Excluded: excluded}
	seen := make(map[string]int, len(c.Docs))
	for _, r := range results {
		if r.err != nil {
			return nil, Counts{}, r.err
		}
		st.Add(r.st)
		for _, d := range r.docs {
			// IDs are unique by construction except in corner cases (a
			// file doc whose ID looks like a chunk ID); number repeats so
			// the corpus stays well-formed.
			if n := seen[d.ID]; n > 0 {
				seen[d.ID] = n + 1
				d.ID += "~" + strconv.Itoa(n+1)
			}
			seen[d.ID]++
			out.Docs = append(out.Docs, d)
		}
	}
	return out, st, nil
}

// parsers holds one parser per grammar for one worker; tree-sitter
// parsers are not safe for concurrent use.
type parsers struct {
	byGrammar map[string]*grammarState
}

type grammarState struct {
	parser *sitter.Parser
	err    error
}

func newParsers() *parsers { return &parsers{byGrammar: map[string]*grammarState{}} }

func (p *parsers) close() {
	for _, g := range p.byGrammar {
		if g.parser != nil {
			g.parser.Close()
		}
	}
}

func (p *parsers) get(lang, path string) (*grammarState, error) {
	key := lang
	if lang == codetext.TypeScript && tsgrammar.IsTSX(path) {
		key = "tsx"
	}
	if g, ok := p.byGrammar[key]; ok {
		return g, g.err
	}
	g := &grammarState{}
	p.byGrammar[key] = g
	l := tsgrammar.For(lang, path)
	g.parser = sitter.NewParser()
	if err := g.parser.SetLanguage(l); err != nil {
		g.err = fmt.Errorf("loading %s grammar: %w", key, err)
		return g, g.err
	}
	return g, nil
}

// splitFile chunks one file doc.
func (p *parsers) splitFile(d *corpus.Doc, opt Options) ([]corpus.Doc, Counts, error) {
	st := Counts{Files: 1}
	lang := d.Language
	if lang == "" {
		lang = codetext.LanguageOf(d.Path)
	}
	src := []byte(d.Text)
	f := newFile(lang, src)
	fallback := func() ([]corpus.Doc, Counts, error) {
		whole := *d
		whole.Language = lang
		docs := f.fallback(whole, opt, &st)
		st.Fallback++
		st.Chunks += len(docs)
		st.largest(docs)
		return docs, st, nil
	}
	if tsgrammar.For(lang, d.Path) == nil {
		return fallback()
	}
	g, err := p.get(lang, d.Path)
	if err != nil {
		return nil, st, err
	}
	tree := g.parser.Parse(src, nil)
	if tree == nil {
		st.ParseErrors++
		return fallback()
	}
	defer tree.Close()
	root := tree.RootNode()
	if root.HasError() {
		st.ParseErrors++
		if opt.StrictParse {
			return fallback()
		}
	}
	f.root = root
	f.minLines = opt.MinLines
	f.visit(root, nil, 0, false)
	if len(f.pieces) == 1 { // only the module piece: no definitions
		return fallback()
	}
	docs := f.docs(d, lang, opt, &st)
	st.Chunks += len(docs)
	st.largest(docs)
	return docs, st, nil
}

// largest notes the longest of docs in c.
func (c *Counts) largest(docs []corpus.Doc) {
	for i := range docs {
		c.LargestLines = max(c.LargestLines, strings.Count(strings.TrimRight(docs[i].Text, "\r\n"), "\n")+1)
		c.LargestBytes = max(c.LargestBytes, len(docs[i].Text))
	}
}

// piece is one chunk under construction; pieces[0] is the module.
type piece struct {
	kind       string
	symbol     string
	start, end int // 0-based inclusive line span of the definition
}

// file is the per-file chunking state: every line has exactly one owner
// piece, which is how "no line is indexed twice" is kept.
type file struct {
	lang      string
	src       []byte
	lineStart []int // byte offset of each line
	owner     []int // owning piece of each line
	root      *sitter.Node
	pieces    []piece
	minLines  int
	defs      [][2]int // line spans of every function in the tree (insideDef), made on first need
}

func newFile(lang string, src []byte) *file {
	f := &file{lang: lang, src: src, lineStart: []int{0}}
	for i, b := range src {
		if b == '\n' && i+1 < len(src) {
			f.lineStart = append(f.lineStart, i+1)
		}
	}
	f.owner = make([]int, len(f.lineStart))
	f.pieces = []piece{{kind: KindModule}}
	return f
}

// lines is the number of lines of the file; an empty file has one.
func (f *file) lines() int { return len(f.lineStart) }

// lineEnd returns the offset of the end of line i (before its newline).
func (f *file) lineEnd(i int) int {
	if i+1 < len(f.lineStart) {
		return f.lineStart[i+1] - 1
	}
	e := len(f.src)
	if e > 0 && f.src[e-1] == '\n' {
		e--
	}
	return e
}

// lineOf returns the line holding byte offset off.
func (f *file) lineOf(off int) int {
	lo, hi := 0, len(f.lineStart)-1
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if f.lineStart[mid] <= off {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	return lo
}

// Prefix classes of a byte, see prefixAt.
const (
	code      = iota
	comment   // inside a comment
	decorator // inside a decorator or attribute kept outside its definition
)

// prefixAt tells whether byte off lies inside a comment or a decorator
// (TypeScript decorators in a class body, Rust attributes), and where that
// node ends. It asks the tree lazily: only the few lines around each
// definition are ever looked at, which is far cheaper than collecting
// every comment of the file.
func (f *file) prefixAt(off int) (class, end int) {
	for n := f.root.NamedDescendantForByteRange(uint(off), uint(off)); n != nil; n = n.Parent() {
		switch n.Kind() {
		case "comment", "line_comment", "block_comment":
			return comment, int(n.EndByte())
		case "decorator", "attribute_item":
			return decorator, int(n.EndByte())
		}
	}
	return code, off
}

// scan walks the bytes [from, to) of one line and reports whether each
// non-space byte is space, inside a prefix node of an allowed class, or an
// allowed punctuation byte; it also reports whether any prefix node was seen.
func (f *file) scan(from, to int, allow func(class int) bool, punct string) (ok, any bool) {
	for j := from; j < to; {
		b := f.src[j]
		if isSpace(b) || strings.IndexByte(punct, b) >= 0 {
			j++
			continue
		}
		class, end := f.prefixAt(j)
		if class == code || !allow(class) {
			return false, any
		}
		any = true
		j = max(end, j+1)
	}
	return true, any
}

func isSpace(b byte) bool {
	return b == ' ' || b == '\t' || b == '\r' || b == '\n' || b == '\f' || b == '\v'
}

// prefixLine reports whether line i holds only comments, decorators or
// attributes (and at least one of them).
func (f *file) prefixLine(i int) bool {
	ok, any := f.scan(f.lineStart[i], f.lineEnd(i), func(int) bool { return true }, "")
	return ok && any
}

// claim gives the whole lines of n, plus the comment and decorator lines
// directly above it, to a new piece, if n occupies whole lines that still
// belong to parent. It returns the new piece's index, or -1.
func (f *file) claim(n *sitter.Node, parent int, kind, symbol string) int {
	sb, eb := int(n.StartByte()), int(n.EndByte())
	for eb > sb && isSpace(f.src[eb-1]) {
		eb--
	}
	if eb <= sb {
		return -1
	}
	s, e := f.lineOf(sb), f.lineOf(eb-1)
	if ok, _ := f.scan(f.lineStart[s], sb, func(int) bool { return true }, ""); !ok {
		return -1 // code before n on its first line
	}
	if ok, _ := f.scan(eb, f.lineEnd(e), func(c int) bool { return c == comment }, ";,"); !ok {
		return -1 // code after n on its last line
	}
	for l := s; l <= e; l++ {
		if f.owner[l] != parent {
			return -1
		}
	}
	for s > 0 && f.owner[s-1] == parent && f.prefixLine(s-1) {
		s--
	}
	if e-s+1 < f.minLines {
		return -1
	}
	id := len(f.pieces)
	f.pieces = append(f.pieces, piece{kind: kind, symbol: symbol, start: s, end: e})
	for l := s; l <= e; l++ {
		f.owner[l] = id
	}
	return id
}

// visit looks for definitions among the named children of n. scope is the
// qualified name prefix, parent the piece that owns n's lines, and inClass
// tells whether n is a class-like body (functions there are methods).
func (f *file) visit(n *sitter.Node, scope []string, parent int, inClass bool) {
	cnt := n.NamedChildCount()
	for i := uint(0); i < cnt; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		d, ok := f.classify(c)
		if !ok {
			continue
		}
		switch d.role {
		case roleTransparent:
			f.visit(d.body, scope, parent, inClass)
		case roleScope:
			f.visit(d.body, appendScope(scope, d.name), parent, false)
		case roleFunction:
			kind := KindFunction
			if inClass || d.method {
				kind = KindMethod
			}
			f.claim(d.outer, parent, kind, qualify(scope, d.name))
		case roleClass:
			id := f.claim(d.outer, parent, KindClass, qualify(scope, d.name))
			if id >= 0 && d.body != nil {
				f.visit(d.body, appendScope(scope, d.name), id, true)
			}
		}
	}
}

func appendScope(scope []string, name string) []string {
	if name == "" {
		return scope
	}
	return append(scope[:len(scope):len(scope)], name)
}

func qualify(scope []string, name string) string {
	if name == "" {
		name = "<anonymous>"
	}
	if len(scope) == 0 {
		return name
	}
	return strings.Join(scope, ".") + "." + name
}

// docs turns the pieces into corpus docs ordered by start line.
func (f *file) docs(d *corpus.Doc, lang string, opt Options, st *Counts) []corpus.Doc {
	owned := make([][]int, len(f.pieces))
	for l, o := range f.owner {
		owned[o] = append(owned[o], l)
	}
	var out []corpus.Doc
	for i, p := range f.pieces {
		base := corpus.Doc{
			ID:       d.ID,
			Path:     d.Path,
			Symbol:   p.symbol,
			Kind:     p.kind,
			Language: lang,
			Title:    d.Title,
		}
		if i == 0 {
			for _, run := range f.cutLines(f.trimBlank(owned[0]), opt.MaxBytes) {
				for _, part := range f.cutChunk(run, opt, st) {
					out = append(out, f.linesDoc(base, part))
				}
			}
			continue
		}
		parts := [][]int{owned[i]}
		if !opt.KeepFunctions || p.kind != KindFunction && p.kind != KindMethod {
			parts = f.cutChunk(owned[i], opt, st)
		}
		if len(parts) > 1 {
			for _, part := range parts {
				out = append(out, f.linesDoc(base, part))
			}
			continue
		}
		doc := f.linesDoc(base, owned[i])
		// A class's span is its whole definition even though its text
		// leaves out the lines of its members' chunks.
		doc.StartLine, doc.EndLine = p.start+1, p.end+1
		doc.ID = chunkID(d.ID, p.symbol, p.kind, doc.StartLine, doc.EndLine)
		out = append(out, doc)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartLine < out[j].StartLine })
	return out
}

// trimBlank drops blank lines at both ends of lines.
func (f *file) trimBlank(lines []int) []int {
	for len(lines) > 0 && f.blank(lines[0]) {
		lines = lines[1:]
	}
	for len(lines) > 0 && f.blank(lines[len(lines)-1]) {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func (f *file) blank(l int) bool {
	for _, b := range f.src[f.lineStart[l]:f.lineEnd(l)] {
		if !isSpace(b) {
			return false
		}
	}
	return true
}

// linesDoc fills base with the text of lines (in order, joined by
// newlines), their first and last line, and turns its ID (the file doc's)
// into the chunk's.
func (f *file) linesDoc(base corpus.Doc, lines []int) corpus.Doc {
	// Module and class chunks skip the lines of the chunks cut out of
	// them; the blank lines left around those holes collapse to one.
	collapse := base.Kind == KindModule || base.Kind == KindClass
	var b strings.Builder
	prevBlank := false
	for k, l := range lines {
		blank := f.blank(l)
		if collapse && blank && prevBlank {
			continue
		}
		prevBlank = blank
		if k > 0 {
			b.WriteByte('\n')
		}
		b.Write(f.src[f.lineStart[l]:f.lineEnd(l)])
	}
	base.Text = strings.TrimRight(b.String(), " \t\r\n\f\v")
	base.StartLine, base.EndLine = lines[0]+1, lines[len(lines)-1]+1
	base.ID = chunkID(base.ID, base.Symbol, base.Kind, base.StartLine, base.EndLine)
	return base
}

// chunkID is the file doc's ID (its path, for every loader) plus symbol
// and lines: unique within the file because no two chunks own a line.
func chunkID(fileID, symbol, kind string, start, end int) string {
	if symbol == "" {
		symbol = "<" + kind + ">"
	}
	return fmt.Sprintf("%s#%s@L%d-L%d", fileID, symbol, start, end)
}

// cutLines splits lines into runs whose text is at most maxBytes long (a
// longer single line is a run of its own); see Options.MaxBytes.
func (f *file) cutLines(lines []int, maxBytes int) [][]int {
	if len(lines) == 0 {
		return nil
	}
	if maxBytes <= 0 {
		return [][]int{lines}
	}
	var runs [][]int
	start, size := 0, 0
	for k, l := range lines {
		n := f.lineEnd(l) - f.lineStart[l] + 1
		if k > start && size+n > maxBytes {
			runs = append(runs, lines[start:k])
			start, size = k, 0
		}
		size += n
	}
	return append(runs, lines[start:])
}

// fallback returns the file doc whole, or cut into runs of lines when it
// is longer than opt.MaxBytes, opt.MaxChunkLines or opt.MaxChunkBytes.
func (f *file) fallback(d corpus.Doc, opt Options, st *Counts) []corpus.Doc {
	d.Kind = KindFile
	d.StartLine, d.EndLine = 1, f.lines()
	if opt.MaxBytes <= 0 && opt.MaxChunkLines <= 0 && opt.MaxChunkBytes <= 0 {
		return []corpus.Doc{d} // DefaultOptions: no line list to build
	}
	all := make([]int, f.lines())
	for i := range all {
		all[i] = i
	}
	if (opt.MaxBytes <= 0 || len(d.Text) <= opt.MaxBytes) && f.fits(all, opt) {
		return []corpus.Doc{d}
	}
	var out []corpus.Doc
	for _, run := range f.cutLines(all, opt.MaxBytes) {
		for _, part := range f.cutChunk(run, opt, st) {
			out = append(out, f.linesDoc(d, part))
		}
	}
	return out
}
