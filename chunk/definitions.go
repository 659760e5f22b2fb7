package chunk

import (
	"fmt"
	"runtime"
	"sort"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/tsgrammar"
)

// Definitions returns every definition the parser finds in the code files
// (Kind "file") of c, at every nesting level — a method in a class, a
// function or a class in a function, a method of a class in a class —
// whether or not Corpus cuts a chunk for it, ordered by path and start
// line. A definition's lines are those its chunk would have (its comments
// and decorators directly above included; the chunker's own rules, see
// the package doc), so the definitions Corpus cuts have their chunks'
// exact lines; its symbol is qualified by the definitions and scopes
// holding it ("Outer.method.helper"). Files the chunker cannot parse have
// none. The judge resolves location hits against them (docs/judging.md).
func Definitions(c *corpus.Corpus) ([]corpus.Definition, error) {
	workers := max(1, runtime.GOMAXPROCS(0))
	results := make([][]corpus.Definition, len(c.Docs))
	errs := make([]error, len(c.Docs))
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
				results[i], errs[i] = p.definitions(d)
				if errs[i] != nil {
					errs[i] = fmt.Errorf("parsing %s: %w", d.Path, errs[i])
				}
			}
		}()
	}
	for i := range c.Docs {
		if c.Docs[i].Kind == KindFile {
			jobs <- i
		}
	}
	close(jobs)
	wg.Wait()
	var out []corpus.Definition
	for i := range results {
		if errs[i] != nil {
			return nil, errs[i]
		}
		out = append(out, results[i]...)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Start < out[j].Start
	})
	return out, nil
}

// definitions parses one file doc and walks it deep.
func (p *parsers) definitions(d *corpus.Doc) ([]corpus.Definition, error) {
	lang := d.Language
	if lang == "" {
		lang = codetext.LanguageOf(d.Path)
	}
	if tsgrammar.For(lang, d.Path) == nil {
		return nil, nil
	}
	g, err := p.get(lang, d.Path)
	if err != nil {
		return nil, err
	}
	src := []byte(d.Text)
	tree := g.parser.Parse(src, nil)
	if tree == nil {
		return nil, nil
	}
	defer tree.Close()
	f := newFile(lang, src)
	f.root = tree.RootNode()
	f.minLines = 1
	f.visitDeep(f.root, nil, 0, false)
	out := make([]corpus.Definition, 0, len(f.pieces)-1)
	for _, pc := range f.pieces[1:] {
		to := pc.end
		for to+1 < f.lines() && f.blank(to+1) {
			to++
		}
		out = append(out, corpus.Definition{Path: d.Path, Language: lang, Symbol: pc.symbol, Kind: pc.kind,
			Start: pc.start + 1, End: pc.end + 1, To: to + 1})
	}
	return out, nil
}

// visitDeep is visit (chunk.go) without its limits: a function's body is
// searched too (nested functions and classes), and so is every node that
// is not a definition (a function declared inside a statement block or an
// arrow function's body). Each definition claims its lines from the one
// holding it, as visit's do, so the definitions visit finds get the same
// lines here.
func (f *file) visitDeep(n *sitter.Node, scope []string, parent int, inClass bool) {
	cnt := n.NamedChildCount()
	for i := uint(0); i < cnt; i++ {
		c := n.NamedChild(i)
		if c == nil {
			continue
		}
		d, ok := f.classify(c)
		if !ok {
			f.visitDeep(c, scope, parent, false)
			continue
		}
		switch d.role {
		case roleTransparent:
			f.visitDeep(d.body, scope, parent, inClass)
		case roleScope:
			f.visitDeep(d.body, appendScope(scope, d.name), parent, false)
		case roleFunction, roleClass:
			kind := KindClass
			if d.role == roleFunction {
				kind = KindFunction
				if inClass || d.method {
					kind = KindMethod
				}
			}
			id := f.claim(d.outer, parent, kind, qualify(scope, d.name))
			if id < 0 {
				id = parent
			}
			inner := appendScope(scope, d.name)
			if d.role == roleClass {
				if d.body != nil {
					f.visitDeep(d.body, inner, id, true)
				}
				continue
			}
			// A function's own node (not the decorators or export around
			// it, which would find the function again).
			f.visitDeep(defNode(c), inner, id, false)
		}
	}
}

// defNode returns the node of the function n classifies as (n itself, or
// the definition a decorator, export, template or declare wraps).
func defNode(n *sitter.Node) *sitter.Node {
	for {
		var next *sitter.Node
		switch n.Kind() {
		case "decorated_definition":
			next = n.ChildByFieldName("definition")
		case "export_statement":
			next = n.ChildByFieldName("declaration")
		case "template_declaration", "ambient_declaration", "linkage_specification":
			for i := uint(0); i < n.NamedChildCount(); i++ {
				if c := n.NamedChild(i); c.Kind() != "template_parameter_list" && c.Kind() != "string_literal" {
					next = c
				}
			}
		}
		if next == nil {
			return n
		}
		n = next
	}
}
