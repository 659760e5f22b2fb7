package graph

import (
	"path"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
)

// Graph is the reference graph of one corpus (see the package doc). Nodes
// are doc positions in the corpus.
type Graph struct {
	ids     []string
	index   map[string]int
	callees [][]int // in order of first use in the doc's text
	callers [][]int // ascending
	edges   int
	defs    int
}

// Counts is the size of a Graph.
type Counts struct {
	Docs        int // nodes
	Definitions int // docs that define a name
	Edges       int // distinct u → v references
}

// Stats returns the size of g.
func (g *Graph) Stats() Counts {
	return Counts{Docs: len(g.ids), Definitions: g.defs, Edges: g.edges}
}

// Callees returns the IDs of the docs that doc id references, in the order
// of their first use; nil for an unknown id.
func (g *Graph) Callees(id string) []string { return g.names(g.callees, id) }

// Callers returns the IDs of the docs that reference doc id, in corpus
// order; nil for an unknown id.
func (g *Graph) Callers(id string) []string { return g.names(g.callers, id) }

func (g *Graph) names(adj [][]int, id string) []string {
	i, ok := g.index[id]
	if !ok {
		return nil
	}
	var out []string
	for _, j := range adj[i] {
		out = append(out, g.ids[j])
	}
	return out
}

// neighbours returns the callees then the callers of doc i, each once.
func (g *Graph) neighbours(i int) []int {
	out := append([]int(nil), g.callees[i]...)
	seen := make(map[int]bool, len(out))
	for _, j := range out {
		seen[j] = true
	}
	for _, j := range g.callers[i] {
		if !seen[j] {
			out = append(out, j)
		}
	}
	return out
}

// builder holds the lookups of one Build.
type builder struct {
	c             *corpus.Corpus
	maxCandidates int
	defs          map[string][]int            // name → defining docs
	fileDefs      map[string]map[string][]int // path → name → defining docs
	dirDefs       map[string]map[string][]int // dir → name → defining docs
	modules       map[string][]string         // dotted module suffix → Python file paths
	imports       map[string]*fileImports     // Python file path → its imports
	pyFiles       map[string]bool             // Python file paths
	tokens        [][]string
}

// fileImports is what one Python file imports.
type fileImports struct {
	files map[string]bool     // every file of an imported module
	named map[string]namedUse // local name → where it comes from
}

type namedUse struct {
	name  string   // name in the source module
	files []string // files of the source module
}

// Build returns the reference graph of c. maxCandidates bounds rule 5 of
// the resolution (a name defined anywhere in the corpus); 0 disables it.
func Build(c *corpus.Corpus, maxCandidates int) *Graph {
	b := &builder{
		c: c, maxCandidates: maxCandidates,
		defs:     map[string][]int{},
		fileDefs: map[string]map[string][]int{},
		dirDefs:  map[string]map[string][]int{},
		modules:  map[string][]string{},
		imports:  map[string]*fileImports{},
		tokens:   make([][]string, len(c.Docs)),
	}
	g := &Graph{
		ids:     make([]string, len(c.Docs)),
		index:   c.Lookup(),
		callees: make([][]int, len(c.Docs)),
		callers: make([][]int, len(c.Docs)),
	}
	pyFiles := map[string]bool{}
	b.pyFiles = pyFiles
	for i := range c.Docs {
		d := &c.Docs[i]
		g.ids[i] = d.ID
		if d.Language == "" {
			continue
		}
		b.tokens[i] = codetext.Tokens(d.Language, d.Text)
		if d.Language == codetext.Python && d.Path != "" {
			pyFiles[d.Path] = true
		}
		name := defName(d.Symbol)
		if name == "" {
			continue
		}
		g.defs++
		b.defs[name] = append(b.defs[name], i)
		add(b.fileDefs, d.Path, name, i)
		add(b.dirDefs, path.Dir(d.Path), name, i)
	}
	for _, p := range sortedKeys(pyFiles) {
		mod := moduleOf(p)
		parts := strings.Split(mod, ".")
		for k := range parts {
			suffix := strings.Join(parts[k:], ".")
			b.modules[suffix] = append(b.modules[suffix], p)
		}
	}
	for i := range c.Docs {
		if c.Docs[i].Language == codetext.Python {
			b.readImports(i)
		}
	}
	for i := range c.Docs {
		seen := map[int]bool{}
		for _, n := range b.uses(i) {
			for _, j := range b.resolve(i, n) {
				if j != i && !seen[j] {
					seen[j] = true
					g.callees[i] = append(g.callees[i], j)
				}
			}
		}
		g.edges += len(g.callees[i])
	}
	for i, out := range g.callees {
		for _, j := range out {
			g.callers[j] = append(g.callers[j], i) // i ascends, so callers stay sorted
		}
	}
	return g
}

func add(m map[string]map[string][]int, key, name string, i int) {
	if m[key] == nil {
		m[key] = map[string][]int{}
	}
	m[key][name] = append(m[key][name], i)
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// defName is the name a doc with this symbol defines, "" for none.
func defName(symbol string) string {
	if symbol == "" || strings.HasPrefix(symbol, "<") {
		return ""
	}
	name := symbol[strings.LastIndexByte(symbol, '.')+1:]
	if !isIdent(name) {
		return ""
	}
	return name
}

// moduleOf is the dotted Python module of a file path.
func moduleOf(p string) string {
	p = strings.TrimSuffix(strings.TrimSuffix(p, ".py"), ".pyi")
	p = strings.TrimSuffix(p, "/__init__")
	return strings.ReplaceAll(p, "/", ".")
}

func isIdent(s string) bool {
	if s == "" {
		return false
	}
	r, _ := utf8.DecodeRuneInString(s)
	if !(r == '_' || r == '$' || unicode.IsLetter(r)) {
		return false
	}
	for _, r := range s {
		if !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r)) {
			return false
		}
	}
	return true
}

func isDunder(s string) bool {
	return len(s) > 4 && strings.HasPrefix(s, "__") && strings.HasSuffix(s, "__")
}

// defKeywords introduce the name of a definition in one of chunk's
// languages; the identifier after one is not a use.
var defKeywords = map[string]bool{
	"def": true, "class": true, "func": true, "fn": true, "struct": true, "enum": true,
	"trait": true, "interface": true, "type": true, "function": true, "union": true,
	"record": true, "namespace": true, "mod": true,
}

// uses returns the identifiers doc i uses, in order, each once, without
// definition names, Python import statements and dunder names.
func (b *builder) uses(i int) []string {
	toks := b.tokens[i]
	python := b.c.Docs[i].Language == codetext.Python
	var out []string
	seen := map[string]bool{}
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		if python {
			if end, ok := importEnd(toks, k); ok {
				k = end - 1
				continue
			}
		}
		if defKeywords[t] && k+1 < len(toks) && isIdent(toks[k+1]) {
			k++
			continue
		}
		if !isIdent(t) || isDunder(t) || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// importStmt is one parsed Python import statement.
type importStmt struct {
	from  string      // "from" module with its leading dots, "" for "import m"
	names [][2]string // (name, alias); for "import a.b as c": ("a.b", "c")
}

// importEnd reports whether a Python import statement starts at toks[k] and
// where it ends (exclusive).
func importEnd(toks []string, k int) (int, bool) {
	_, end, ok := parseImport(toks, k)
	return end, ok
}

// parseImport parses "import a.b [as c], …" or "from [.]*a.b import (x [as
// y], …)" at toks[k]. Without newlines in the token stream, a statement ends
// where its grammar stops ("import os foo()" is "import os" then "foo()").
func parseImport(toks []string, k int) (importStmt, int, bool) {
	var st importStmt
	i := k
	dotted := func() string {
		var sb strings.Builder
		for i < len(toks) && (toks[i] == "." || toks[i] == "...") {
			sb.WriteString(toks[i])
			i++
		}
		for i < len(toks) && isIdent(toks[i]) {
			sb.WriteString(toks[i])
			i++
			if i+1 < len(toks) && toks[i] == "." && isIdent(toks[i+1]) {
				sb.WriteString(".")
				i++
				continue
			}
			break
		}
		return sb.String()
	}
	switch toks[k] {
	case "from":
		i++
		st.from = dotted()
		if st.from == "" || i >= len(toks) || toks[i] != "import" {
			return st, 0, false // "yield from x", "raise e from x"
		}
	case "import":
	default:
		return st, 0, false
	}
	i++ // "import"
	paren := i < len(toks) && toks[i] == "("
	if paren {
		i++
	}
	for i < len(toks) {
		if toks[i] == "*" {
			i++
			break
		}
		var name string
		if st.from == "" {
			name = dotted()
		} else if isIdent(toks[i]) {
			name = toks[i]
			i++
		}
		if name == "" {
			break
		}
		alias := ""
		if i+1 < len(toks) && toks[i] == "as" && isIdent(toks[i+1]) {
			alias = toks[i+1]
			i += 2
		}
		st.names = append(st.names, [2]string{name, alias})
		if i < len(toks) && toks[i] == "," {
			i++
			continue
		}
		break
	}
	if paren && i < len(toks) && toks[i] == ")" {
		i++
	}
	return st, i, true
}

// readImports adds the import statements of Python doc i to its file's.
func (b *builder) readImports(i int) {
	d := &b.c.Docs[i]
	imp := b.imports[d.Path]
	if imp == nil {
		imp = &fileImports{files: map[string]bool{}, named: map[string]namedUse{}}
		b.imports[d.Path] = imp
	}
	toks := b.tokens[i]
	for k := 0; k < len(toks); k++ {
		st, end, ok := parseImport(toks, k)
		if !ok {
			continue
		}
		k = end - 1
		if st.from == "" {
			for _, n := range st.names {
				for _, f := range b.moduleFiles(d.Path, n[0]) {
					imp.files[f] = true
				}
			}
			continue
		}
		base := b.moduleFiles(d.Path, st.from)
		for _, f := range base {
			imp.files[f] = true
		}
		for _, n := range st.names {
			sep := "."
			if strings.HasSuffix(st.from, ".") {
				sep = ""
			}
			for _, f := range b.moduleFiles(d.Path, st.from+sep+n[0]) {
				imp.files[f] = true // a submodule imported by name
			}
			local := n[0]
			if n[1] != "" {
				local = n[1]
			}
			if len(base) > 0 {
				imp.named[local] = namedUse{name: n[0], files: base}
			}
		}
	}
}

// moduleFiles returns the files of Python module mod imported from file
// from: relative modules (leading dots) against from's package, absolute
// ones by dotted suffix.
func (b *builder) moduleFiles(from, mod string) []string {
	dots := len(mod) - len(strings.TrimLeft(mod, "."))
	if dots == 0 {
		return b.modules[mod]
	}
	dir := path.Dir(from)
	for range dots - 1 {
		dir = path.Dir(dir)
	}
	rest := strings.ReplaceAll(mod[dots:], ".", "/")
	want := []string{path.Join(dir, "__init__.py")}
	if rest != "" {
		want = []string{path.Join(dir, rest+".py"), path.Join(dir, rest, "__init__.py")}
	}
	var out []string
	for _, w := range want {
		if b.pyFiles[w] {
			out = append(out, w)
		}
	}
	return out
}

// resolve returns the definitions a use of name n in doc i links to, by the
// first rule of the package doc that finds any.
func (b *builder) resolve(i int, n string) []int {
	d := &b.c.Docs[i]
	if ds := without(b.fileDefs[d.Path][n], i); len(ds) > 0 {
		return ds
	}
	if d.Language == codetext.Python {
		if imp := b.imports[d.Path]; imp != nil {
			if u, ok := imp.named[n]; ok {
				var ds []int
				for _, f := range u.files {
					ds = append(ds, b.fileDefs[f][u.name]...)
				}
				if len(ds) > 0 {
					return ds
				}
			}
			var ds []int
			for _, j := range b.defs[n] {
				if imp.files[b.c.Docs[j].Path] {
					ds = append(ds, j)
				}
			}
			if len(ds) > 0 {
				return ds
			}
		}
	} else if ds := without(b.dirDefs[path.Dir(d.Path)][n], i); len(ds) > 0 {
		return ds
	}
	if ds := b.defs[n]; len(ds) <= b.maxCandidates {
		return ds
	}
	return nil
}

func without(ds []int, i int) []int {
	var out []int
	for _, j := range ds {
		if j != i {
			out = append(out, j)
		}
	}
	return out
}
