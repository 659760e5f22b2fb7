package chunk

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/tsgrammar"
)

// functionKinds are the tree-sitter node kinds whose text must lie whole
// in one chunk: named functions and methods, but also closures and
// lambdas, which stay in their enclosing function.
var functionKinds = map[string][]string{
	codetext.Python:     {"function_definition", "lambda"},
	codetext.Go:         {"function_declaration", "method_declaration", "func_literal"},
	codetext.Java:       {"method_declaration", "constructor_declaration", "lambda_expression"},
	codetext.TypeScript: {"function_declaration", "method_definition", "arrow_function", "function_expression"},
	codetext.Rust:       {"function_item", "closure_expression"},
	codetext.Cpp:        {"function_definition", "lambda_expression"},
}

// TestCorpusRealSources runs the chunk invariants on real code of every
// language that is on any machine that builds this package: the Go
// standard library and the example files shipped in the grammar modules
// (odd Python 2/3 grammar samples with CRLF and tabs, a large TypeScript
// parser, Rust syntax torture tests), plus the C++ standard library
// headers when installed.
func TestCorpusRealSources(t *testing.T) {
	if testing.Short() {
		t.Skip("reads a few MB of sources")
	}
	modcache := goEnv(t, "GOMODCACHE")
	goroot := goEnv(t, "GOROOT")
	ts := filepath.Join(modcache, "github.com/tree-sitter")
	globs := map[string][]string{
		codetext.Python:     {ts + "/tree-sitter-python@v0.23.6/examples/*.py"},
		codetext.Go:         {goroot + "/src/net/http/*.go", goroot + "/src/go/types/*.go", ts + "/tree-sitter-go@v0.23.4/examples/*.go"},
		codetext.Java:       {ts + "/tree-sitter-java@v0.23.5/test/highlight/*.java"},
		codetext.TypeScript: {ts + "/tree-sitter-typescript@v0.23.2/examples/*.ts"},
		codetext.Rust:       {ts + "/tree-sitter-rust@v0.23.2/examples/*.rs"},
		codetext.Cpp:        {ts + "/tree-sitter-cpp@v0.23.4/examples/*", "/usr/include/c++/*/bits/stl_*.h"},
	}
	langs := make([]string, 0, len(globs))
	for l := range globs {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	for _, lang := range langs {
		t.Run(lang, func(t *testing.T) {
			c := &corpus.Corpus{ID: "real/" + lang}
			for _, g := range globs[lang] {
				paths, err := filepath.Glob(g)
				require.NoError(t, err)
				for _, p := range paths {
					b, err := os.ReadFile(p)
					require.NoError(t, err)
					c.Docs = append(c.Docs, corpus.Doc{ID: p, Path: p, Kind: KindFile, Language: lang, Text: string(b)})
				}
			}
			if len(c.Docs) == 0 {
				t.Skipf("no %s sources found in %v", lang, globs[lang])
			}
			out, st, err := Corpus(c, DefaultOptions())
			require.NoError(t, err)
			t.Logf("%d files → %d chunks (%+v)", len(c.Docs), len(out.Docs), st)
			byPath := map[string][]corpus.Doc{}
			ids := map[string]bool{}
			for _, d := range out.Docs {
				if ids[d.ID] {
					t.Errorf("duplicate chunk ID %q", d.ID)
				}
				ids[d.ID] = true
				byPath[d.Path] = append(byPath[d.Path], d)
			}
			parser := sitter.NewParser()
			defer parser.Close()
			functions := 0
			for _, f := range c.Docs {
				chunks := byPath[f.Path]
				require.NotEmpty(t, chunks, f.Path)
				checkPartition(t, lang, f, chunks)
				require.NoError(t, parser.SetLanguage(tsgrammar.For(lang, f.Path)))
				functions += checkWhole(t, parser, lang, f, chunks, functionKinds[lang])
			}
			t.Logf("%d function bodies found whole", functions)
		})
	}
}

func goEnv(t *testing.T, key string) string {
	t.Helper()
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		t.Skipf("go env %s: %v", key, err)
	}
	return strings.TrimSpace(string(out))
}
