package chunk

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
)

// TestDefinitionsDeep: Definitions finds the definitions at every nesting
// level, with the lines their chunk has (comments above included), and
// the blank lines after each in To.
func TestDefinitionsDeep(t *testing.T) {
	py := `"""Module."""


class Outer:
    """Outer."""

    def method(self, x):
        def helper(y):
            return y * 2

        return helper(x)

    class Inner:
        @property
        def deep(self):
            return 42


def top(a):
    class Local:
        def run(self):
            return a

    return Local().run()
`
	ts := `export class Shortener {
  resolve(code: string): string {
    function check(c: string) {
      return c;
    }
    return check(code);
  }
}

export const make = () => {
  function inner() {}
  return inner;
};
`
	goSrc := `package p

// Store keeps values.
type Store struct{}

// Get returns one.
func (s *Store) Get() int {
	return 1
}
`
	c := &corpus.Corpus{Docs: []corpus.Doc{
		{ID: "a.py", Path: "a.py", Kind: KindFile, Language: codetext.Python, Text: py},
		{ID: "s.ts", Path: "s.ts", Kind: KindFile, Language: codetext.TypeScript, Text: ts},
		{ID: "s.go", Path: "s.go", Kind: KindFile, Language: codetext.Go, Text: goSrc},
		{ID: "notes.txt", Path: "notes.txt", Kind: KindFile, Text: "def nothing(): pass\n"},
	}}
	defs, err := Definitions(c)
	require.NoError(t, err)
	var got []string
	for _, d := range defs {
		got = append(got, fmt.Sprintf("%s %s %s %d-%d~%d", d.Path, d.Kind, d.Symbol, d.Start, d.End, d.To))
	}
	want := []string{
		"a.py class Outer 4-16~18",
		"a.py method Outer.method 7-11~12",
		"a.py function Outer.method.helper 8-9~10",
		"a.py class Outer.Inner 13-16~18",
		"a.py method Outer.Inner.deep 14-16~18",
		"a.py function top 19-24~24",
		"a.py class top.Local 20-22~23",
		"a.py method top.Local.run 21-22~23",
		"s.go class Store 3-4~5",
		"s.go method Store.Get 6-9~9",
		"s.ts class Shortener 1-8~9",
		"s.ts method Shortener.resolve 2-7~7",
		"s.ts function Shortener.resolve.check 3-5~5",
		"s.ts function make 10-13~13",
		"s.ts function make.inner 11-11~11",
	}
	require.Equal(t, want, got)
}

// TestDefinitionsHaveTheChunksLines: on real sources of every language,
// every chunk of a definition has a definition with its symbol and exact
// lines, so that a chunk hit and a location of the same lines point at the
// same definition.
func TestDefinitionsHaveTheChunksLines(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a few MB of sources")
	}
	modcache := goEnv(t, "GOMODCACHE")
	goroot := goEnv(t, "GOROOT")
	ts := filepath.Join(modcache, "github.com/tree-sitter")
	globs := map[string]string{
		codetext.Python:     ts + "/tree-sitter-python@v0.23.6/examples/*.py",
		codetext.Go:         goroot + "/src/net/http/*.go",
		codetext.Java:       ts + "/tree-sitter-java@v0.23.5/test/highlight/*.java",
		codetext.TypeScript: ts + "/tree-sitter-typescript@v0.23.2/examples/*.ts",
		codetext.Rust:       ts + "/tree-sitter-rust@v0.23.2/examples/*.rs",
		codetext.Cpp:        ts + "/tree-sitter-cpp@v0.23.4/examples/*",
	}
	for lang, g := range globs {
		files, _ := filepath.Glob(g)
		if len(files) == 0 {
			t.Errorf("%s: no sources at %s", lang, g)
			continue
		}
		c := &corpus.Corpus{}
		for _, f := range files {
			b, err := os.ReadFile(f)
			require.NoError(t, err)
			c.Docs = append(c.Docs, corpus.Doc{ID: f, Path: f, Kind: KindFile, Language: lang, Text: string(b)})
		}
		chunks, _, err := Corpus(c, DefaultOptions())
		require.NoError(t, err)
		defs, err := Definitions(c)
		require.NoError(t, err)
		have := map[string]bool{}
		deeper := 0
		for _, d := range defs {
			have[fmt.Sprintf("%s %s %d-%d", d.Path, d.Symbol, d.Start, d.End)] = true
			if strings.Count(d.Symbol, ".") > 1 {
				deeper++
			}
		}
		n := 0
		for _, ch := range chunks.Docs {
			if ch.Kind != KindFunction && ch.Kind != KindMethod && ch.Kind != KindClass {
				continue
			}
			n++
			if k := fmt.Sprintf("%s %s %d-%d", ch.Path, ch.Symbol, ch.StartLine, ch.EndLine); !have[k] {
				t.Errorf("%s: chunk %s has no definition with its lines", lang, k)
			}
		}
		require.NotZero(t, n, lang)
		t.Logf("%s: %d files, %d definition chunks, %d definitions (%d nested two levels or more)", lang, len(files), n, len(defs), deeper)
	}
}
