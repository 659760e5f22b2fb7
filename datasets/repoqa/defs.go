package repoqa

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/retrievalbench/retrievalbench/internal/tsgrammar"
)

// definition is one function, method or class found by tree-sitter.
type definition struct {
	Name      string // simple name
	Qualified string // enclosing definitions joined by "." ("Class.method", Go "Recv.Method", C++ "ns.Class.method" from "ns::Class::method")
	Kind      string // "function", "method" or "class"
	StartByte int    // of the definition node (decorators excluded, as in RepoQA)
	EndByte   int
	StartLine int // 1-based, inclusive
	EndLine   int // 1-based, inclusive
	// Python only: the docstring statement (an expression statement made of
	// one string literal, first in the body), or -1 when there is none.
	DocStart, DocEnd int
	// Python only: the string literal's own text.
	DocText string
	// InFunction reports whether the definition is nested in a function.
	InFunction bool
}

// parseDefinitions lists the definitions of one file in source order.
func parseDefinitions(lang, p string, src []byte) ([]definition, error) {
	g := tsgrammar.For(lang, p)
	if g == nil {
		return nil, fmt.Errorf("%s: no grammar for language %q", p, lang)
	}
	parser := sitter.NewParser()
	defer parser.Close()
	if err := parser.SetLanguage(g); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	tree := parser.Parse(src, nil)
	if tree == nil {
		return nil, fmt.Errorf("%s: tree-sitter returned no tree", p)
	}
	defer tree.Close()
	q, err := defQuery(lang, p)
	if err != nil {
		return nil, err
	}
	qc := sitter.NewQueryCursor()
	defer qc.Close()
	kinds := defKinds[lang]
	var out []definition
	// The query finds the definition nodes in C (walking every node through
	// cgo costs several times more); scopes come from the parent chain.
	matches := qc.Matches(q, tree.RootNode(), src)
	for m := matches.Next(); m != nil; m = matches.Next() {
		for _, c := range m.Captures {
			n := c.Node
			name := defName(lang, &n, src)
			if name == "" {
				continue
			}
			kind := kinds[n.Kind()]
			var scope []string
			inFunc := false
			for a := n.Parent(); a != nil; a = a.Parent() {
				ak, ok := kinds[a.Kind()]
				if !ok {
					continue
				}
				an := defName(lang, a, src)
				if an == "" {
					continue
				}
				scope = append(scope, an)
				if ak != "class" {
					inFunc = true
				}
			}
			slices.Reverse(scope)
			scope = append(scope, ownerOf(lang, &n, src)...)
			if kind == "function" && len(scope) > 0 && !inFunc && lang == "python" {
				kind = "method"
			}
			d := definition{
				Name: name, Qualified: strings.Join(append(scope, name), "."), Kind: kind,
				StartByte: int(n.StartByte()), EndByte: int(n.EndByte()),
				StartLine: int(n.StartPosition().Row) + 1, EndLine: int(n.EndPosition().Row) + 1,
				DocStart: -1, DocEnd: -1, InFunction: inFunc,
			}
			if lang == "cpp" {
				// Nested namespaces ("namespace mlx::core") join like the rest.
				d.Qualified = strings.ReplaceAll(d.Qualified, "::", ".")
			}
			if lang == "python" {
				docstring(&n, src, &d)
			}
			out = append(out, d)
		}
	}
	slices.SortStableFunc(out, func(a, b definition) int { return a.StartByte - b.StartByte })
	return out, nil
}

var (
	queryMu sync.Mutex
	queries = map[string]*sitter.Query{}
)

// defQuery returns the (shared, immutable) query that captures every
// definition node of a language.
func defQuery(lang, p string) (*sitter.Query, error) {
	key := lang
	if tsgrammar.IsTSX(p) {
		key += "/tsx"
	}
	queryMu.Lock()
	defer queryMu.Unlock()
	if q, ok := queries[key]; ok {
		return q, nil
	}
	kinds := make([]string, 0, len(defKinds[lang]))
	for k := range defKinds[lang] {
		kinds = append(kinds, "("+k+")")
	}
	slices.Sort(kinds)
	q, qerr := sitter.NewQuery(tsgrammar.For(lang, p), "["+strings.Join(kinds, " ")+"] @def")
	if qerr != nil {
		return nil, fmt.Errorf("definition query for %s: %s", lang, qerr.Error())
	}
	queries[key] = q
	return q, nil
}

// defName returns the simple name of a definition node.
func defName(lang string, n *sitter.Node, src []byte) string {
	switch {
	case lang == "cpp" && n.Kind() == "function_definition":
		d := cppDeclarator(n, false)
		if d == nil {
			return ""
		}
		name := d.Utf8Text(src)
		if i := strings.LastIndex(name, "::"); i >= 0 {
			name = name[i+2:]
		}
		return name
	case lang == "rust" && n.Kind() == "impl_item":
		if t := n.ChildByFieldName("type"); t != nil {
			// "impl<T> Foo<T>" is Foo's, as Rust users write Foo::method.
			return strings.TrimSpace(stripAngles(t.Utf8Text(src)))
		}
		return ""
	}
	if c := n.ChildByFieldName("name"); c != nil {
		return c.Utf8Text(src)
	}
	return ""
}

// docstring fills d's docstring fields from a Python definition node.
func docstring(n *sitter.Node, src []byte, d *definition) {
	body := n.ChildByFieldName("body")
	if body == nil || body.NamedChildCount() == 0 {
		return
	}
	first := body.NamedChild(0)
	if first == nil || first.Kind() != "expression_statement" || first.NamedChildCount() != 1 {
		return
	}
	s := first.NamedChild(0)
	if s == nil || s.Kind() != "string" {
		return
	}
	d.DocStart, d.DocEnd = int(first.StartByte()), int(first.EndByte())
	d.DocText = s.Utf8Text(src)
}

// ownerOf returns the scope a definition names itself, outside its parent
// chain: a Go method's receiver type ("(*Server[T]) Serve" → Server) and
// the qualifiers of a C++ definition outside its class ("Foo::bar" → Foo).
func ownerOf(lang string, n *sitter.Node, src []byte) []string {
	switch {
	case lang == "go" && n.Kind() == "method_declaration":
		r := n.ChildByFieldName("receiver")
		if r == nil || r.NamedChildCount() == 0 {
			return nil
		}
		p := r.NamedChild(0)
		t := p.ChildByFieldName("type")
		if t == nil {
			return nil
		}
		name := strings.TrimLeft(t.Utf8Text(src), "*( ")
		if i := strings.IndexAny(name, "[) "); i >= 0 {
			name = name[:i]
		}
		if name == "" {
			return nil
		}
		return []string{name}
	case lang == "cpp" && n.Kind() == "function_definition":
		d := cppDeclarator(n, true)
		if d == nil || d.Kind() != "qualified_identifier" {
			return nil
		}
		name := d.Utf8Text(src)
		if strings.ContainsAny(name, "<(\n") {
			// Template arguments: keep the names, drop the arguments.
			name = stripAngles(name)
		}
		parts := strings.Split(name, "::")
		var out []string
		for _, p := range parts[:len(parts)-1] {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	}
	return nil
}

// cppDeclarator follows a C++ function definition's declarators (function,
// pointer, reference, parenthesized, attributed: "int& A::f()" is a
// reference_declarator, which has no declarator field, around the function
// declarator) down to the declared name, or to its qualified_identifier
// when qualified is set.
func cppDeclarator(n *sitter.Node, qualified bool) *sitter.Node {
	d := n.ChildByFieldName("declarator")
	for d != nil {
		if qualified && d.Kind() == "qualified_identifier" {
			return d
		}
		next := d.ChildByFieldName("declarator")
		if next == nil {
			switch d.Kind() {
			case "reference_declarator", "pointer_declarator", "parenthesized_declarator", "attributed_declarator":
				if c := d.NamedChildCount(); c > 0 {
					next = d.NamedChild(c - 1)
				}
			}
		}
		if next == nil {
			return d
		}
		d = next
	}
	return nil
}

// stripAngles removes <…> groups (template arguments) from a C++ name.
func stripAngles(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch {
		case r == '<':
			depth++
		case r == '>' && depth > 0:
			depth--
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}
