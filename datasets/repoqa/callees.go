package repoqa

import (
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/tsgrammar"
)

// StructuralLanguages are the languages GenerateStructural makes a
// structural (1-hop callee) split for.
func StructuralLanguages() []string { return []string{"go", "java"} }

// StructuralName is the dataset name of a language's structural split
// ("repoqa-go-structural").
func StructuralName(lang string) string { return "repoqa-" + lang + "-structural" }

// MaxCallees is how many resolved callees a structural task keeps as gold.
const MaxCallees = 3

// DocStructural loads repoqa-LANG-structural from the data pack's RepoQA
// corpora of lang: the repoqa-LANG-doc queries, gold = the described
// function's 1-hop callees (GenerateStructural). These are generated, not
// RepoQA's. A split holds the seeds of repoqa-LANG-doc's same split that
// have a resolved callee (the doc tasks are split, then the seeds without
// a callee dropped), so a query is in the same split in both datasets.
func DocStructural(dataDir, lang, split string, cfg Config) (*datasets.Dataset, error) {
	if !slices.Contains(StructuralLanguages(), lang) {
		return nil, fmt.Errorf("%w: %q has no structural generator", ErrUnknownLanguage, lang)
	}
	rel, err := ReadRelease(filepath.Join(dataDir, filepath.FromSlash(DocCorporaFile(lang))))
	if err != nil {
		return nil, err
	}
	rel = onlyRepos(rel, cfg.Repos)
	ds, err := GenerateStructural(rel, lang, cfg.Generator)
	if err != nil {
		return nil, err
	}
	// Split the seeds (the doc tasks, kept or dropped) as the doc dataset
	// splits them, then keep the split's tasks.
	seeds := slices.Clone(ds.Tasks)
	for _, d := range ds.Dropped {
		repo, _, _ := strings.Cut(d.ID, "::")
		seeds = append(seeds, datasets.Task{ID: d.ID, CorpusID: repo, Meta: datasets.Meta{Repo: repo}})
	}
	slices.SortFunc(seeds, func(a, b datasets.Task) int { return strings.Compare(a.ID, b.ID) })
	sc := cfg.Split
	if sc.Salt == "" {
		sc.Salt = DocName(lang)
	}
	in, err := datasets.Split(seeds, split, sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	keep := map[string]bool{}
	for _, t := range in {
		keep[t.ID] = true
	}
	ds.Tasks = slices.DeleteFunc(ds.Tasks, func(t datasets.Task) bool { return !keep[t.ID] })
	ds.Dropped = slices.DeleteFunc(ds.Dropped, func(d datasets.Dropped) bool { return !keep[d.ID] })
	ds.Split = split
	cfg.Split = sc
	// finish prunes the corpora; "all" keeps the tasks as split here.
	out, err := finish(&datasets.Dataset{Name: ds.Name, Split: datasets.SplitAll, Tasks: ds.Tasks, Corpora: ds.Corpora}, cfg)
	if err != nil {
		return nil, err
	}
	ds.Tasks, ds.Corpora = out.Tasks, out.Corpora
	return ds, nil
}

// onlyRepos returns rel limited to repos (all of it when repos is nil).
func onlyRepos(rel *Release, repos []string) *Release {
	if repos == nil {
		return rel
	}
	keep := rel.Repos[:0:0]
	for _, r := range rel.Repos {
		if slices.Contains(repos, r.Repo) {
			keep = append(keep, r)
		}
	}
	return &Release{File: rel.File, Repos: keep}
}

// GenerateStructural makes the repoqa-LANG-structural tasks (Go and Java)
// from the lang repos of a release, deterministically. The seeds are the
// repoqa-LANG-doc tasks (GenerateDoc: same candidates, filters, seeded
// order, and the same indexed files, their chosen comments removed); the
// query is the seed's doc summary, and the gold is up to MaxCallees of the
// seed's 1-hop callees, found in the syntax tree (not by systems/graph's
// lexical builder, which the split measures), in the order of their first
// call in the seed's body, each relevance 1:
//
//   - Go: call_expression nodes whose function is an identifier F (a
//     function F of the seed's package directory), recv.M with recv the
//     seed's receiver (a method M of the receiver's own type, in the
//     package directory), or pkg.F with pkg an import of the repository
//     (path github.com/OWNER/REPO[/vN]/DIR: a function F of DIR).
//   - Java: method_invocation nodes with no object or "this" (a method of
//     the seed's class, or else of the nearest enclosing class declaring
//     that name), or a class name C (a method of class C declared in the
//     seed's file, its package directory or a file the seed's file imports
//     by single-type import); among several methods of that name the one
//     whose parameter count fits the arguments (varargs included).
//
// A call resolves only when exactly one definition fits. Not gold: calls
// into the standard library or other modules (no definition in the
// corpus), calls through variables and fields (no type inference),
// definitions without a body, in test, generated or vendored files, the
// seed itself, and trivial callees (a body of one line, or a
// get/set/is/has accessor of fewer than MinBodyLines lines). A seed with
// no resolved callee makes no task (listed in Dropped).
//
// Task IDs are the doc task's ("REPO::PATH#QUALNAME"), gold IDs
// "PATH#QUALNAME" as in GenerateDoc; Meta.Intent is "callee".
func GenerateStructural(rel *Release, lang string, cfg GeneratorConfig) (*datasets.Dataset, error) {
	if !slices.Contains(StructuralLanguages(), lang) {
		return nil, fmt.Errorf("%w: %q has no structural generator", ErrUnknownLanguage, lang)
	}
	ds := &datasets.Dataset{Name: StructuralName(lang), Corpora: map[string]*corpus.Corpus{}}
	ds.Notes = append(ds.Notes, "generated, not RepoQA's: queries are doc-comment summaries (as in "+DocName(lang)+"), gold = the described function's 1-hop callees resolved in its syntax tree")
	repos := slices.Clone(rel.Repos)
	slices.SortFunc(repos, func(a, b Repo) int { return strings.Compare(a.Repo, b.Repo) })
	for i := range repos {
		r := &repos[i]
		if r.Language != lang {
			continue
		}
		seeds, content, _, err := generateDocRepo(r, lang, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", rel.File, r.Repo, err)
		}
		ix := &calleeIndex{lang: lang, repo: r.Repo, content: content, cfg: cfg, files: map[string]*indexedFile{}}
		kept := 0
		for _, s := range seeds {
			gold, err := ix.callees(s)
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %w", rel.File, r.Repo, err)
			}
			if len(gold) == 0 {
				ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: s.ID, Reason: "no callee of the seed resolves to a definition in the repository"})
				continue
			}
			t := s
			t.Gold = gold
			t.Meta.Intent = "callee"
			ds.Tasks = append(ds.Tasks, t)
			kept++
		}
		ds.Notes = append(ds.Notes, fmt.Sprintf("%s: %d tasks of %d doc seeds", r.Repo, kept, len(seeds)))
		ds.Corpora[r.Repo] = filesCorpus(r.Repo, r.CommitSHA, r.Language, content)
		ix.close()
	}
	return ds, nil
}

// indexedFile is one parsed file of the callee index.
type indexedFile struct {
	path     string
	src      []byte
	tree     *sitter.Tree
	defs     []definition
	ordinals []int // of defs[i] among the file's definitions of its qualified name
	excluded bool
}

// calleeIndex parses a repository's (modified) files on demand.
type calleeIndex struct {
	lang, repo string
	content    map[string]string
	cfg        GeneratorConfig
	files      map[string]*indexedFile
	dirs       map[string][]string // directory → its files of lang, sorted
}

func (ix *calleeIndex) close() {
	for _, f := range ix.files {
		if f.tree != nil {
			f.tree.Close()
		}
	}
}

// file parses p once.
func (ix *calleeIndex) file(p string) (*indexedFile, error) {
	if f, ok := ix.files[p]; ok {
		return f, nil
	}
	text := ix.content[p]
	f := &indexedFile{path: p, src: []byte(text), excluded: excludedFile(ix.lang, p, text)}
	defs, err := parseDefinitions(ix.lang, p, f.src)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	for _, d := range defs {
		f.ordinals = append(f.ordinals, seen[d.Qualified])
		seen[d.Qualified]++
	}
	f.defs = defs
	parser := sitter.NewParser()
	defer parser.Close()
	if err := parser.SetLanguage(tsgrammar.For(ix.lang, p)); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	f.tree = parser.Parse(f.src, nil)
	if f.tree == nil {
		return nil, fmt.Errorf("%s: tree-sitter returned no tree", p)
	}
	ix.files[p] = f
	return f, nil
}

// dir returns the files of lang in directory d.
func (ix *calleeIndex) dir(d string) []string {
	if ix.dirs == nil {
		ix.dirs = map[string][]string{}
		for p := range ix.content {
			if LanguageOf(p, "") == ix.lang {
				ix.dirs[path.Dir(p)] = append(ix.dirs[path.Dir(p)], p)
			}
		}
		for _, ps := range ix.dirs {
			slices.Sort(ps)
		}
	}
	return ix.dirs[d]
}

// target is a definition a call may resolve to.
type target struct {
	f *indexedFile
	i int // index in f.defs
}

func (t target) def() definition { return t.f.defs[t.i] }

// node returns the definition's syntax node.
func (t target) node() *sitter.Node {
	d := t.def()
	return t.f.tree.RootNode().NamedDescendantForByteRange(uint(d.StartByte), uint(d.EndByte))
}

// lookup returns the definitions named qual in the files ps (excluded
// files too: the caller rejects them, so that a name defined both in a
// test file and elsewhere stays ambiguous).
func (ix *calleeIndex) lookup(ps []string, qual string, kinds ...string) ([]target, error) {
	var out []target
	for _, p := range ps {
		f, err := ix.file(p)
		if err != nil {
			return nil, err
		}
		for i, d := range f.defs {
			if d.Qualified == qual && slices.Contains(kinds, d.Kind) {
				out = append(out, target{f, i})
			}
		}
	}
	return out, nil
}

// seedTarget finds the definition a doc task's gold names.
func (ix *calleeIndex) seedTarget(t datasets.Task) (target, error) {
	gid := t.Gold[0].ID
	p, qual, _ := strings.Cut(gid, "#")
	ord := 0
	if q, n, ok := strings.Cut(qual, "~"); ok {
		qual = q
		k, err := strconv.Atoi(n)
		if err != nil {
			return target{}, fmt.Errorf("%s: bad ordinal in gold ID %s", p, gid)
		}
		ord = k - 1
	}
	f, err := ix.file(p)
	if err != nil {
		return target{}, err
	}
	for i, d := range f.defs {
		if d.Qualified == qual && f.ordinals[i] == ord {
			return target{f, i}, nil
		}
	}
	return target{}, fmt.Errorf("%s: seed %s not found", p, qual)
}

// callees returns the gold of the structural task of doc task t.
func (ix *calleeIndex) callees(t datasets.Task) ([]datasets.Relevant, error) {
	seed, err := ix.seedTarget(t)
	if err != nil {
		return nil, err
	}
	n := seed.node()
	if n == nil {
		return nil, fmt.Errorf("%s: no syntax node for %s", seed.f.path, seed.def().Qualified)
	}
	body := n.ChildByFieldName("body")
	if body == nil {
		return nil, nil
	}
	var calls []*sitter.Node
	walk(body, func(c *sitter.Node) {
		if k := c.Kind(); k == "call_expression" && ix.lang == "go" || k == "method_invocation" && ix.lang == "java" {
			calls = append(calls, c)
		}
	})
	var gold []datasets.Relevant
	seen := map[string]bool{}
	for _, c := range calls {
		var ts []target
		if ix.lang == "go" {
			ts, err = ix.resolveGo(seed, c)
		} else {
			ts, err = ix.resolveJava(seed, c)
		}
		if err != nil {
			return nil, err
		}
		if len(ts) != 1 {
			continue
		}
		g := ts[0]
		d := g.def()
		if g.f == seed.f && g.i == seed.i || g.f.excluded || g.node().ChildByFieldName("body") == nil || ix.trivial(g) {
			continue
		}
		id := g.f.path + "#" + d.Qualified
		if o := g.f.ordinals[g.i]; o > 0 {
			id += fmt.Sprintf("~%d", o+1)
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		gold = append(gold, datasets.Relevant{Kind: "needle", ID: id, Grade: 1, Body: string(g.f.src[d.StartByte:d.EndByte]), Language: ix.lang})
		if len(gold) == MaxCallees {
			break
		}
	}
	return gold, nil
}

// trivial reports callees too small to be a structural target: a body of
// one line, or an accessor shorter than MinBodyLines.
func (ix *calleeIndex) trivial(t target) bool {
	d := t.def()
	body := bodyLines(string(t.f.src[d.StartByte:d.EndByte]))
	return body < 2 || accessor.MatchString(d.Name) && body < ix.cfg.MinBodyLines
}

// walk calls fn on n's named descendants in source order.
func walk(n *sitter.Node, fn func(*sitter.Node)) {
	for i := uint(0); i < n.NamedChildCount(); i++ {
		c := n.NamedChild(i)
		fn(c)
		walk(c, fn)
	}
}

// resolveGo resolves a Go call_expression made in seed.
func (ix *calleeIndex) resolveGo(seed target, call *sitter.Node) ([]target, error) {
	fn := call.ChildByFieldName("function")
	if fn == nil {
		return nil, nil
	}
	src := seed.f.src
	dir := path.Dir(seed.f.path)
	switch fn.Kind() {
	case "identifier":
		return ix.lookup(ix.dir(dir), fn.Utf8Text(src), "function")
	case "selector_expression":
		op, field := fn.ChildByFieldName("operand"), fn.ChildByFieldName("field")
		if op == nil || field == nil || op.Kind() != "identifier" {
			return nil, nil
		}
		x, m := op.Utf8Text(src), field.Utf8Text(src)
		if recv, typ := goReceiver(seed.node(), src); recv != "" && x == recv {
			return ix.lookup(ix.dir(dir), typ+"."+m, "method")
		}
		if d, ok := ix.goImport(seed.f, x); ok {
			return ix.lookup(ix.dir(d), m, "function")
		}
	}
	return nil, nil
}

// goReceiver returns a Go method's receiver name and type name.
func goReceiver(n *sitter.Node, src []byte) (string, string) {
	if n == nil || n.Kind() != "method_declaration" {
		return "", ""
	}
	r := n.ChildByFieldName("receiver")
	if r == nil || r.NamedChildCount() == 0 {
		return "", ""
	}
	p := r.NamedChild(0)
	name := p.ChildByFieldName("name")
	typ := ownerOf("go", n, src)
	if name == nil || len(typ) == 0 || name.Utf8Text(src) == "_" {
		return "", ""
	}
	return name.Utf8Text(src), typ[0]
}

// goVersionElem matches a module path's major-version element ("v2").
var goVersionElem = regexp.MustCompile(`^v[0-9]+$`)

// goImport returns the repository directory the package name x of file f
// imports: an import path github.com/OWNER/REPO[/vN]/DIR whose DIR holds
// Go files of the corpus and whose name (the alias, else the package
// clause of DIR's files) is x.
func (ix *calleeIndex) goImport(f *indexedFile, x string) (string, bool) {
	prefix := "github.com/" + strings.ToLower(ix.repo)
	root := f.tree.RootNode()
	for i := uint(0); i < root.NamedChildCount(); i++ {
		decl := root.NamedChild(i)
		if decl.Kind() != "import_declaration" {
			continue
		}
		var specs []*sitter.Node
		walk(decl, func(n *sitter.Node) {
			if n.Kind() == "import_spec" {
				specs = append(specs, n)
			}
		})
		for _, s := range specs {
			pn := s.ChildByFieldName("path")
			if pn == nil {
				continue
			}
			ip, err := strconv.Unquote(pn.Utf8Text(f.src))
			if err != nil {
				continue
			}
			rest, ok := strings.CutPrefix(strings.ToLower(ip), prefix)
			if !ok || rest != "" && !strings.HasPrefix(rest, "/") {
				continue
			}
			elems := strings.Split(strings.TrimPrefix(ip[len(prefix):], "/"), "/")
			if len(elems) > 0 && goVersionElem.MatchString(elems[0]) {
				elems = elems[1:]
			}
			d := strings.Join(elems, "/")
			if d == "" {
				d = "."
			}
			if len(ix.dir(d)) == 0 {
				continue
			}
			name := ""
			if a := s.ChildByFieldName("name"); a != nil {
				name = a.Utf8Text(f.src)
			} else {
				name = ix.goPackage(d)
			}
			if name == x {
				return d, true
			}
		}
	}
	return "", false
}

var goPackageClause = regexp.MustCompile(`(?m)^package\s+(\w+)`)

// goPackage returns the package name of directory d (from its first
// non-test file's package clause).
func (ix *calleeIndex) goPackage(d string) string {
	for _, p := range ix.dir(d) {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		if m := goPackageClause.FindStringSubmatch(ix.content[p]); m != nil {
			return m[1]
		}
	}
	return ""
}

// resolveJava resolves a Java method_invocation made in seed.
func (ix *calleeIndex) resolveJava(seed target, call *sitter.Node) ([]target, error) {
	src := seed.f.src
	nameN := call.ChildByFieldName("name")
	if nameN == nil {
		return nil, nil
	}
	name := nameN.Utf8Text(src)
	args := javaArgs(call.ChildByFieldName("arguments"))
	obj := call.ChildByFieldName("object")
	var cands []target
	switch {
	case obj == nil || obj.Kind() == "this":
		// The seed's class, else the nearest enclosing class declaring name.
		scope := strings.Split(seed.def().Qualified, ".")
		scope = scope[:len(scope)-1]
		for k := len(scope); k > 0 && len(cands) == 0; k-- {
			ts, err := ix.lookup([]string{seed.f.path}, strings.Join(scope[:k], ".")+"."+name, "method")
			if err != nil {
				return nil, err
			}
			cands = ts
		}
	case obj.Kind() == "identifier" && isUpper(obj.Utf8Text(src)):
		cls := obj.Utf8Text(src)
		// A class of the seed's file (top-level or nested).
		for i, d := range seed.f.defs {
			if d.Kind == "method" && (d.Qualified == cls+"."+name || strings.HasSuffix(d.Qualified, "."+cls+"."+name)) {
				cands = append(cands, target{seed.f, i})
			}
		}
		if len(cands) == 0 {
			ps := slices.DeleteFunc(slices.Clone(ix.dir(path.Dir(seed.f.path))), func(p string) bool { return p == seed.f.path })
			if p, ok := ix.javaImport(seed.f, cls); ok && !slices.Contains(ps, p) {
				ps = append(ps, p)
			}
			ts, err := ix.lookup(ps, cls+"."+name, "method")
			if err != nil {
				return nil, err
			}
			cands = ts
		}
	default:
		return nil, nil
	}
	// Constructors share the class's name, never a method's call.
	if len(cands) <= 1 {
		if len(cands) == 1 && !javaArity(cands[0].node(), args) {
			return nil, nil
		}
		return cands, nil
	}
	return slices.DeleteFunc(cands, func(t target) bool { return !javaArity(t.node(), args) }), nil
}

// javaImport returns the corpus file a single-type import of class cls
// in f names ("import a.b.C;" → a file ending in a/b/C.java), if exactly
// one file fits.
func (ix *calleeIndex) javaImport(f *indexedFile, cls string) (string, bool) {
	root := f.tree.RootNode()
	for i := uint(0); i < root.NamedChildCount(); i++ {
		imp := root.NamedChild(i)
		if imp.Kind() != "import_declaration" {
			continue
		}
		text := strings.TrimSpace(imp.Utf8Text(f.src))
		text = strings.TrimSuffix(strings.TrimPrefix(text, "import"), ";")
		text = strings.TrimSpace(text)
		if strings.HasPrefix(text, "static ") || strings.HasSuffix(text, "*") {
			continue
		}
		if !strings.HasSuffix(text, "."+cls) {
			continue
		}
		suffix := "/" + strings.ReplaceAll(text, ".", "/") + ".java"
		var hits []string
		for p := range ix.content {
			if strings.HasSuffix("/"+p, suffix) {
				hits = append(hits, p)
			}
		}
		if len(hits) == 1 {
			return hits[0], true
		}
	}
	return "", false
}

// javaArgs counts a call's arguments.
func javaArgs(list *sitter.Node) int {
	if list == nil {
		return 0
	}
	n := 0
	for i := uint(0); i < list.NamedChildCount(); i++ {
		if k := list.NamedChild(i).Kind(); k != "line_comment" && k != "block_comment" {
			n++
		}
	}
	return n
}

// javaArity reports whether a method declaration takes args arguments.
func javaArity(decl *sitter.Node, args int) bool {
	if decl == nil {
		return false
	}
	ps := decl.ChildByFieldName("parameters")
	if ps == nil {
		return false
	}
	n, varargs := 0, false
	for i := uint(0); i < ps.NamedChildCount(); i++ {
		switch ps.NamedChild(i).Kind() {
		case "formal_parameter":
			n++
		case "spread_parameter":
			n++
			varargs = true
		}
	}
	return args == n || varargs && args >= n-1
}

func isUpper(s string) bool { return s != "" && s[0] >= 'A' && s[0] <= 'Z' }
