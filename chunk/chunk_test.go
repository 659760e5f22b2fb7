package chunk

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
)

// ignoreLargest leaves the size of the largest chunk out of a Counts
// comparison (TestMaxChunk checks it).
var ignoreLargest = cmpopts.IgnoreFields(Counts{}, "LargestLines", "LargestBytes")

// span is what the boundary tests compare of a chunk.
type span struct {
	Kind   string
	Symbol string
	Start  int
	End    int
}

func spans(docs []corpus.Doc) []span {
	var out []span
	for _, d := range docs {
		out = append(out, span{d.Kind, d.Symbol, d.StartLine, d.EndLine})
	}
	return out
}

func fileCorpus(path, src string) *corpus.Corpus {
	return &corpus.Corpus{ID: "test/repo", Docs: []corpus.Doc{
		{ID: path, Path: path, Kind: KindFile, Language: codetext.LanguageOf(path), Text: src},
	}}
}

// TestCorpusLanguages checks chunk boundaries and qualified symbols on one
// small real-looking file per language, and that the chunks partition the
// file's lines (no line twice, none lost).
func TestCorpusLanguages(t *testing.T) {
	tests := []struct {
		name   string
		path   string
		reason string
		src    string
		want   []span
	}{
		{
			name:   "python",
			path:   "pkg/tool.py",
			reason: "decorators with a comment above, nested function stays in its parent, nested class, async method, a def inside if TYPE_CHECKING",
			src: `"""Module doc."""
import os

CONST = 1


# helper comment
@decorator
@other(arg=1)
def top(a, b):
    def inner():
        return a
    return inner() + b


class Outer(Base):
    """Outer doc."""

    x = 1

    class Inner:
        def deep(self):
            return 1

    @property
    def name(self):
        return self._name

    async def run(self):
        await go()


if TYPE_CHECKING:
    def typed() -> int:
        ...
`,
			want: []span{
				{KindModule, "", 1, 33},
				{KindFunction, "top", 7, 13},
				{KindClass, "Outer", 16, 30},
				{KindClass, "Outer.Inner", 21, 23},
				{KindMethod, "Outer.Inner.deep", 22, 23},
				{KindMethod, "Outer.name", 25, 27},
				{KindMethod, "Outer.run", 29, 30},
				{KindFunction, "typed", 34, 35},
			},
		},
		{
			name:   "go",
			path:   "stack/stack.go",
			reason: "generic type, pointer and value receivers as Type.Method, doc comments, closure stays in New, grouped type declaration is one chunk",
			src: `// Package stack is a stack.
package stack

import "fmt"

// Stack is a LIFO.
type Stack[T any] struct {
	items []T
}

// Push adds x.
func (s *Stack[T]) Push(x T) {
	s.items = append(s.items, x)
}

func (s Stack[T]) Len() int { return len(s.items) }

// New returns an empty stack.
func New[T any]() *Stack[T] {
	f := func() {}
	f()
	return &Stack[T]{}
}

type (
	A int
	B string
)

var x = fmt.Sprint(1)
`,
			want: []span{
				{KindModule, "", 1, 30},
				{KindClass, "Stack", 6, 9},
				{KindMethod, "Stack.Push", 11, 14},
				{KindMethod, "Stack.Len", 16, 16},
				{KindFunction, "New", 18, 23},
				{KindClass, "A", 25, 28},
			},
		},
		{
			name:   "java",
			path:   "src/p/Box.java",
			reason: "annotations and Javadoc, constructor, nested class and enum with a method, interface default method; a bodiless interface method stays in the interface",
			src: `package p;

import java.util.List;

/** Doc for Box. */
@Deprecated
public class Box<T extends Comparable<T>> {
    private T value;

    /** Creates a box. */
    public Box(T v) {
        this.value = v;
    }

    @Override
    public String toString() {
        return "Box(" + value + ")";
    }

    static class Inner {
        void run() {
            Runnable r = () -> {};
        }
    }

    enum Color {
        RED, GREEN;

        Color next() { return RED; }
    }
}

interface Shape {
    double area();

    default String name() {
        return "shape";
    }
}
`,
			want: []span{
				{KindModule, "", 1, 3},
				{KindClass, "Box", 5, 31},
				{KindMethod, "Box.Box", 10, 13},
				{KindMethod, "Box.toString", 15, 18},
				{KindClass, "Box.Inner", 20, 24},
				{KindMethod, "Box.Inner.run", 21, 23},
				{KindClass, "Box.Color", 26, 30},
				{KindMethod, "Box.Color.next", 29, 29},
				{KindClass, "Shape", 33, 39},
				{KindMethod, "Shape.name", 36, 38},
			},
		},
		{
			name:   "typescript",
			path:   "src/widget.ts",
			reason: "exported function with JSDoc, arrow function bound to const, interface, decorated class with constructor, decorated method, arrow-function property, namespace member",
			src: `import { x } from "./x";

/** Adds. */
export function add(a: number, b: number): number {
  return a + b;
}

export const mul = (a: number, b: number): number => {
  return a * b;
};

export interface Point {
  x: number;
  y: number;
}

@Component({ selector: "app" })
export class Widget<T> extends Base<T> {
  private items: T[] = [];

  constructor(private readonly svc: Service) {
    super();
  }

  @HostListener("click")
  onClick(e: Event): void {
    this.items.push(e as any);
  }

  handle = (x: T) => {
    return x;
  };
}

namespace Geometry {
  export function area(r: number): number {
    return Math.PI * r * r;
  }
}

const config = { a: 1 };
`,
			want: []span{
				{KindModule, "", 1, 41},
				{KindFunction, "add", 3, 6},
				{KindFunction, "mul", 8, 10},
				{KindClass, "Point", 12, 15},
				{KindClass, "Widget", 17, 33},
				{KindMethod, "Widget.constructor", 21, 23},
				{KindMethod, "Widget.onClick", 25, 28},
				{KindMethod, "Widget.handle", 30, 32},
				{KindFunction, "Geometry.area", 36, 38},
			},
		},
		{
			name:   "rust",
			path:   "src/lib.rs",
			reason: "attributes and doc comments, trait impl and inherent impl named after the type, trait with default method, nested fn stays in free, mod member",
			src: `use std::fmt;

/// A wrapper.
#[derive(Debug, Clone)]
pub struct Wrapper<T> {
    inner: T,
}

impl<T: fmt::Display> fmt::Display for Wrapper<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "[{}]", self.inner)
    }
}

impl<T> Wrapper<T> {
    /// Makes one.
    pub fn new(inner: T) -> Self {
        Wrapper { inner }
    }
}

pub trait Shape {
    fn area(&self) -> f64;

    fn name(&self) -> String {
        "shape".to_string()
    }
}

pub enum Color {
    Red,
    Green,
}

pub fn free<'a>(s: &'a str) -> &'a str {
    fn helper() {}
    s
}

mod tests {
    #[test]
    fn it_works() {
        assert_eq!(2 + 2, 4);
    }
}
`,
			want: []span{
				{KindModule, "", 1, 45},
				{KindClass, "Wrapper", 3, 7},
				{KindClass, "Wrapper", 9, 13},
				{KindMethod, "Wrapper.fmt", 10, 12},
				{KindClass, "Wrapper", 15, 20},
				{KindMethod, "Wrapper.new", 16, 19},
				{KindClass, "Shape", 22, 28},
				{KindMethod, "Shape.name", 25, 27},
				{KindClass, "Color", 30, 33},
				{KindFunction, "free", 35, 38},
				{KindFunction, "tests.it_works", 41, 44},
			},
		},
		{
			name:   "cpp",
			path:   "src/point.hpp",
			reason: "namespace members, class template with constructor, method and nested struct, out-of-line template member, #ifdef function",
			src: `#include <vector>

namespace geo {

// A point.
template <typename T>
class Point {
 public:
  Point(T x, T y) : x_(x), y_(y) {}

  T norm2() const {
    return x_ * x_ + y_ * y_;
  }

  struct Cache {
    int hits;
  };

 private:
  T x_, y_;
};

int helper(int a) {
  return a * 2;
}

}  // namespace geo

template <typename T>
T geo::Point<T>::scale(T k) {
  return k;
}

#ifdef EXTRA
static void extra() {
  return;
}
#endif
`,
			want: []span{
				{KindModule, "", 1, 38},
				{KindClass, "geo.Point", 5, 21},
				{KindMethod, "geo.Point.Point", 9, 9},
				{KindMethod, "geo.Point.norm2", 11, 13},
				{KindClass, "geo.Point.Cache", 15, 17},
				{KindFunction, "geo.helper", 23, 25},
				{KindMethod, "geo.Point.scale", 29, 32},
				{KindFunction, "extra", 35, 37},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fileCorpus(tt.path, tt.src)
			out, st, err := Corpus(c, DefaultOptions())
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, spans(out.Docs)); diff != "" {
				t.Errorf("%s: chunks mismatch (-want +got):\n%s", tt.reason, diff)
			}
			want := Counts{Files: 1, Chunks: len(tt.want)}
			if diff := cmp.Diff(want, st, ignoreLargest); diff != "" {
				t.Errorf("stats mismatch (-want +got):\n%s", diff)
			}
			checkPartition(t, tt.name, c.Docs[0], out.Docs)
			for _, d := range out.Docs {
				if d.Path != tt.path || d.Language != tt.name {
					t.Errorf("%s: path %q language %q, want %q %q", d.ID, d.Path, d.Language, tt.path, tt.name)
				}
				if !strings.HasPrefix(d.ID, tt.path+"#") {
					t.Errorf("ID %q does not start with the path", d.ID)
				}
			}
		})
	}
}

// TestCorpusFallbacks covers the file-level fallback and the options.
func TestCorpusFallbacks(t *testing.T) {
	strict := DefaultOptions()
	strict.StrictParse = true
	minLines := DefaultOptions()
	minLines.MinLines = 3
	maxBytes := DefaultOptions()
	maxBytes.MaxBytes = 40
	tests := []struct {
		name      string
		path      string
		src       string
		opt       Options
		want      []span
		wantStats Counts
		reason    string
	}{
		{
			name:      "unknown-language",
			path:      "README.md",
			src:       "# Title\n\ndef not_code():\n",
			opt:       DefaultOptions(),
			want:      []span{{KindFile, "", 1, 3}},
			wantStats: Counts{Files: 1, Chunks: 1, Fallback: 1},
			reason:    "a file of unknown language is one file chunk, even if it looks like code",
		},
		{
			name:      "no-definitions",
			path:      "pkg/consts.py",
			src:       "import os\n\nX = os.sep\n",
			opt:       DefaultOptions(),
			want:      []span{{KindFile, "", 1, 3}},
			wantStats: Counts{Files: 1, Chunks: 1, Fallback: 1},
			reason:    "a file without definitions is one file chunk, not a module chunk",
		},
		{
			name:      "empty",
			path:      "pkg/__init__.py",
			src:       "",
			opt:       DefaultOptions(),
			want:      []span{{KindFile, "", 1, 1}},
			wantStats: Counts{Files: 1, Chunks: 1, Fallback: 1},
			reason:    "an empty file still yields one chunk, so every file is retrievable",
		},
		{
			name: "syntax-error-tolerant",
			path: "pkg/broken.py",
			src:  "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n",
			opt:  DefaultOptions(),
			want: []span{
				{KindFunction, "ok", 1, 2},
				{KindFunction, "broken", 5, 6},
			},
			wantStats: Counts{Files: 1, Chunks: 2, ParseErrors: 1},
			reason:    "by default a file with a syntax error is still chunked where tree-sitter recovers (here it even keeps the broken def)",
		},
		{
			name:      "syntax-error-strict",
			path:      "pkg/broken.py",
			src:       "def ok():\n    return 1\n\n\ndef broken(:\n    pass\n",
			opt:       strict,
			want:      []span{{KindFile, "", 1, 6}},
			wantStats: Counts{Files: 1, Chunks: 1, Fallback: 1, ParseErrors: 1},
			reason:    "StrictParse turns a file with a syntax error into one file chunk",
		},
		{
			name: "shared-line",
			path: "src/three.cc",
			src:  "int a() { return 1; } int b() { return 2; }\nint c() {\n  return 3;\n}\n",
			opt:  DefaultOptions(),
			want: []span{
				{KindModule, "", 1, 1},
				{KindFunction, "c", 2, 4},
			},
			wantStats: Counts{Files: 1, Chunks: 2},
			reason:    "definitions that share a line cannot own whole lines, so they stay in their parent",
		},
		{
			name: "min-lines",
			path: "pkg/short.py",
			src:  "def short(): return 1\n\ndef long():\n    x = 1\n    return x\n",
			opt:  minLines,
			want: []span{
				{KindModule, "", 1, 1},
				{KindFunction, "long", 3, 5},
			},
			wantStats: Counts{Files: 1, Chunks: 2},
			reason:    "with MinLines 3 a one-line function stays in the module chunk",
		},
		{
			name: "max-bytes",
			path: "pkg/big.py",
			src: "A = 'aaaaaaaaaaaaaaaaaaaa'\nB = 'bbbbbbbbbbbbbbbbbbbb'\n" +
				"def f():\n    return 'a function longer than forty bytes stays whole'\n",
			opt: maxBytes,
			want: []span{
				{KindModule, "", 1, 1},
				{KindModule, "", 2, 2},
				{KindFunction, "f", 3, 4},
			},
			wantStats: Counts{Files: 1, Chunks: 3},
			reason:    "MaxBytes cuts the module chunk at line boundaries but never a definition",
		},
		{
			name:      "tsx",
			path:      "src/App.tsx",
			src:       "export const App = () => {\n  return <div className=\"x\">{'hi'}</div>;\n};\n",
			opt:       DefaultOptions(),
			want:      []span{{KindFunction, "App", 1, 3}},
			wantStats: Counts{Files: 1, Chunks: 1},
			reason:    ".tsx files use the TSX grammar, so JSX parses",
		},
		{
			name: "ts-declare",
			path: "types/foo.d.ts",
			src:  "declare class Foo {\n  bar(): void;\n}\ndeclare module \"m\" {\n  export function h(): void;\n}\n",
			opt:  DefaultOptions(),
			want: []span{
				{KindClass, "Foo", 1, 3},
				{KindModule, "", 4, 6},
			},
			wantStats: Counts{Files: 1, Chunks: 2},
			reason:    "an ambient class keeps its declare prefix; a module of signatures has no definition",
		},
		{
			name: "cpp-extern-c",
			path: "src/c_api.cc",
			src:  "extern \"C\" int f() {\n  return 1;\n}\nextern \"C\" {\nint g() {\n  return 2;\n}\n}\n",
			opt:  DefaultOptions(),
			want: []span{
				{KindFunction, "f", 1, 3},
				{KindModule, "", 4, 8},
				{KindFunction, "g", 5, 7},
			},
			wantStats: Counts{Files: 1, Chunks: 3},
			reason:    "extern \"C\" before one function belongs to it; an extern \"C\" block is looked through",
		},
		{
			name: "c-header",
			path: "include/util.h",
			src:  "int add(int a, int b);\n\nstatic inline int twice(int x) {\n  return 2 * x;\n}\n",
			opt:  DefaultOptions(),
			want: []span{
				{KindModule, "", 1, 1},
				{KindFunction, "twice", 3, 5},
			},
			wantStats: Counts{Files: 1, Chunks: 2},
			reason:    ".h files parse as C++; a prototype is not a definition",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fileCorpus(tt.path, tt.src)
			out, st, err := Corpus(c, tt.opt)
			require.NoError(t, err)
			if diff := cmp.Diff(tt.want, spans(out.Docs)); diff != "" {
				t.Errorf("%s: chunks mismatch (-want +got):\n%s", tt.reason, diff)
			}
			if diff := cmp.Diff(tt.wantStats, st, ignoreLargest); diff != "" {
				t.Errorf("%s: stats mismatch (-want +got):\n%s", tt.reason, diff)
			}
			checkPartition(t, tt.name, c.Docs[0], out.Docs)
		})
	}
}

// TestCorpusTexts pins the text of chunks where the design rule matters:
// a class chunk holds only its own lines, a function keeps its decorators
// and comments, a file fallback keeps the original doc.
func TestCorpusTexts(t *testing.T) {
	src := "import os\n\n\nclass A(B):\n    \"\"\"Doc.\"\"\"\n\n    # about f\n    @staticmethod\n    def f():\n        return 1\n\n    y = 2\n"
	out, _, err := Corpus(fileCorpus("pkg/a.py", src), DefaultOptions())
	require.NoError(t, err)
	got := map[string]string{}
	for _, d := range out.Docs {
		got[d.ID] = d.Text
	}
	want := map[string]string{
		"pkg/a.py#<module>@L1-L1": "import os",
		"pkg/a.py#A@L4-L12":       "class A(B):\n    \"\"\"Doc.\"\"\"\n\n    y = 2",
		"pkg/a.py#A.f@L7-L10":     "    # about f\n    @staticmethod\n    def f():\n        return 1",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("chunk texts mismatch (-want +got):\n%s", diff)
	}

	readme := corpus.Doc{ID: "custom-id", Path: "README", Kind: KindFile, Title: "t", Text: "hello\n"}
	prose := corpus.Doc{ID: "d1", Kind: "doc", Text: "not a file"}
	c := &corpus.Corpus{ID: "x", Commit: "abc", Docs: []corpus.Doc{prose, readme}}
	out, _, err = Corpus(c, DefaultOptions())
	require.NoError(t, err)
	wantReadme := readme
	wantReadme.StartLine, wantReadme.EndLine = 1, 1
	if diff := cmp.Diff([]corpus.Doc{prose, wantReadme}, out.Docs); diff != "" {
		t.Errorf("non-file docs must pass unchanged and a fallback file keep its ID and text (-want +got):\n%s", diff)
	}
	if out.ID != "x" || out.Commit != "abc" {
		t.Errorf("corpus ID/commit = %q/%q, want x/abc", out.ID, out.Commit)
	}
}

// TestCorpusDeterministic checks that the output does not depend on the
// number of workers and that the input is not modified.
func TestCorpusDeterministic(t *testing.T) {
	c := &corpus.Corpus{ID: "mixed"}
	for _, s := range []struct{ path, src string }{
		{"a.py", "def f():\n    return 1\n\nclass C:\n    def m(self):\n        pass\n"},
		{"b.go", "package b\n\nfunc F() {}\n\ntype T struct{}\n\nfunc (T) M() {}\n"},
		{"c.rs", "fn main() {}\n"},
		{"d.txt", "plain\n"},
		{"e.java", "class E {\n  void m() {}\n}\n"},
	} {
		c.Docs = append(c.Docs, corpus.Doc{ID: s.path, Path: s.path, Kind: KindFile, Language: codetext.LanguageOf(s.path), Text: s.src})
	}
	before := c.Hash()
	a, _, err := split(c, DefaultOptions(), 1)
	require.NoError(t, err)
	b, _, err := split(c, DefaultOptions(), 4)
	require.NoError(t, err)
	if diff := cmp.Diff(a, b); diff != "" {
		t.Errorf("output depends on Workers (-1 worker +4 workers):\n%s", diff)
	}
	if c.Hash() != before {
		t.Errorf("Corpus modified its input corpus")
	}
}

// TestCorpusIDs checks that chunk IDs derive from the file doc's ID, so two
// repositories merged into one corpus with the same paths stay distinct.
func TestCorpusIDs(t *testing.T) {
	src := "def f():\n    return 1\n\nX = 2\n"
	c := &corpus.Corpus{ID: "merged", Docs: []corpus.Doc{
		{ID: "one/repo/m.py", Path: "m.py", Kind: KindFile, Language: codetext.Python, Text: src},
		{ID: "two/repo/m.py", Path: "m.py", Kind: KindFile, Language: codetext.Python, Text: src},
	}}
	out, _, err := Corpus(c, DefaultOptions())
	require.NoError(t, err)
	var ids []string
	for _, d := range out.Docs {
		ids = append(ids, d.ID)
	}
	want := []string{
		"one/repo/m.py#f@L1-L2",
		"one/repo/m.py#<module>@L4-L4",
		"two/repo/m.py#f@L1-L2",
		"two/repo/m.py#<module>@L4-L4",
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("chunk IDs mismatch (-want +got):\n%s", diff)
	}
}
