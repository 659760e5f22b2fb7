package tsgrammar

import (
	"testing"

	sitter "github.com/tree-sitter/go-tree-sitter"
)

func TestFor(t *testing.T) {
	for _, tc := range []struct {
		lang, path, src, want string
		reason                string
	}{
		{"python", "a.py", "def f():\n    pass\n", "function_definition", "python"},
		{"go", "a.go", "package a\nfunc F() {}\n", "function_declaration", "go"},
		{"java", "A.java", "class A { void f() {} }", "class_declaration", "java"},
		{"typescript", "a.ts", "function f(): number { return 1 }", "function_declaration", "typescript"},
		{"typescript", "a.TSX", "const x = <div/>;", "jsx_self_closing_element", "a .tsx file, in any case, parses JSX"},
		{"rust", "a.rs", "fn f() {}", "function_item", "rust"},
		{"cpp", "a.h", "int f() { return 0; }", "function_definition", "C++ (headers too)"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			g := For(tc.lang, tc.path)
			if g == nil {
				t.Fatalf("%s: no grammar for %s", tc.reason, tc.lang)
			}
			p := sitter.NewParser()
			defer p.Close()
			if err := p.SetLanguage(g); err != nil {
				t.Fatalf("%s: %v", tc.reason, err)
			}
			tree := p.Parse([]byte(tc.src), nil)
			defer tree.Close()
			root := tree.RootNode()
			if root.HasError() {
				t.Errorf("%s: %s parses with errors: %s", tc.reason, tc.path, root.ToSexp())
			}
			if !contains(root, tc.want) {
				t.Errorf("%s: no %s node in %s", tc.reason, tc.want, root.ToSexp())
			}
		})
	}
	if g := For("cobol", "a.cbl"); g != nil {
		t.Error("an unknown language has a grammar")
	}
}

func contains(n *sitter.Node, kind string) bool {
	if n.Kind() == kind {
		return true
	}
	for i := uint(0); i < n.ChildCount(); i++ {
		if contains(n.Child(i), kind) {
			return true
		}
	}
	return false
}

func TestIsTSX(t *testing.T) {
	for _, tc := range []struct {
		path   string
		want   bool
		reason string
	}{
		{"ui/App.tsx", true, "a TSX file"},
		{"ui/App.TSX", true, "extensions compare case-insensitively"},
		{"ui/app.ts", false, "plain TypeScript"},
		{"x.tsx/app.ts", false, "only the file's own extension counts"},
	} {
		if got := IsTSX(tc.path); got != tc.want {
			t.Errorf("IsTSX(%q) = %v, want %v (%s)", tc.path, got, tc.want, tc.reason)
		}
	}
}
