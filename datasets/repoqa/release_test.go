package repoqa

import (
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
)

const fixturePath = "../../" + FixtureFile

// goodRepo is a minimal valid repo; its needle spans "def f():\n    return 1".
const goodRepo = `{"repo": "o/r", "commit_sha": "c", "entrypoint_path": "p", "topic": "t",
  "content": {"p/a.py": "def f():\n    return 1\n"}, "dependency": {}, "functions": {},
  "needles": [{"name": "f", "path": "p/a.py", "start_line": 0, "end_line": 2, "start_byte": 0, "end_byte": 21, "description": "Returns one."}]}`

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestReadReleaseValidation(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		wantIs  error
		wantMsg string
		reason  string
	}{
		{"missing repo field", `{"python": [{"commit_sha": "c", "content": {}}]}`, ErrMissingField, `python[0]: missing field "repo"`,
			"a repo without its name cannot key a corpus"},
		{"missing needle field", `{"python": [` + strings.Replace(goodRepo, `"end_byte": 21, `, "", 1) + `]}`, ErrMissingField, `needles[0]: missing field "end_byte"`,
			"a needle without its byte range has no body"},
		{"needle bytes outside file", `{"python": [` + strings.Replace(goodRepo, `"end_byte": 21`, `"end_byte": 99`, 1) + `]}`, ErrNeedleRange,
			"[0, 99) in p/a.py of 22 bytes", "the range must lie inside the file"},
		{"needle path unknown", `{"python": [` + strings.Replace(goodRepo, `"path": "p/a.py"`, `"path": "p/zz.py"`, 1) + `]}`, ErrUnknownPath,
			`"p/zz.py"`, "a needle must point into content"},
		{"unknown language", `{"cobol": [` + goodRepo + `]}`, ErrUnknownLanguage, `"cobol"`,
			"only the six release languages are known"},
		{"duplicate repo", `{"python": [` + goodRepo + `, ` + goodRepo + `]}`, ErrDuplicateRepo, "python[1] (o/r)",
			"two repos with one name would share a corpus ID"},
		{"duplicate across languages", `{"python": [` + goodRepo + `], "go": [` + strings.Replace(goodRepo, `"needles": [{`, `"needles": [], "x": [{`, 1) + `]}`,
			ErrDuplicateRepo, "python[0] (o/r)", "repo names are unique over the whole file"},
		{"syntax error has a line", "{\"python\": [\n" + goodRepo + ",\n]}", nil, ".json:5:",
			"malformed JSON is reported as file:line"},
		{"empty top level", `{}`, nil, "no language lists", "an empty file is not a release"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, "bad.json", tc.text)
			_, err := ReadRelease(p)
			if err == nil {
				t.Fatalf("%s: ReadRelease accepted the file", tc.reason)
			}
			if tc.wantIs != nil && !errors.Is(err, tc.wantIs) {
				t.Errorf("%s: error %q is not %v", tc.reason, err, tc.wantIs)
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("%s: error %q should name the file and contain %q", tc.reason, err, tc.wantMsg)
			}
		})
	}
}

func TestReadReleaseGzipAndGood(t *testing.T) {
	p := filepath.Join(t.TempDir(), "r.json.gz")
	f, err := os.Create(p)
	require.NoError(t, err)
	zw := gzip.NewWriter(f)
	_, err = zw.Write([]byte(`{"python": [` + goodRepo + `]}`))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())

	ds, err := FromRelease("t", p, datasets.SplitAll, DefaultConfig())
	require.NoError(t, err)
	require.Len(t, ds.Tasks, 1)
	want := datasets.Task{
		ID: "python::o/r::f", Query: "Returns one.", CorpusID: "o/r",
		Gold: []datasets.Relevant{{Kind: "needle", ID: "p/a.py#f", Grade: 1, Body: "def f():\n    return 1", Language: "python"}},
		Meta: datasets.Meta{Repo: "o/r", Language: "python"},
	}
	if d := cmp.Diff(want, ds.Tasks[0]); d != "" {
		t.Errorf("task from a gzip release (-want +got):\n%s", d)
	}
	if len(ds.Notes) != 0 || len(ds.Dropped) != 0 {
		t.Errorf("exact needle gave notes %v / dropped %v", ds.Notes, ds.Dropped)
	}
}

func TestNeedleNotDefinedIsDropped(t *testing.T) {
	text := strings.Replace(goodRepo, `"name": "f"`, `"name": "g"`, 1)
	p := writeFile(t, "r.json", `{"python": [`+text+`]}`)
	ds, err := FromRelease("t", p, datasets.SplitAll, DefaultConfig())
	require.NoError(t, err)
	if len(ds.Tasks) != 0 || len(ds.Dropped) != 1 || !strings.Contains(ds.Dropped[0].Reason, "no definition") {
		t.Errorf("needle g (not defined) gave tasks %v, dropped %v; want it dropped with the reason", ds.Tasks, ds.Dropped)
	}
}

func TestFixture(t *testing.T) {
	rel, err := ReadRelease(fixturePath)
	require.NoError(t, err)
	ds, err := Fixture(fixturePath, datasets.SplitAll, DefaultConfig())
	require.NoError(t, err)

	if len(ds.Tasks) < 8 || len(ds.Tasks) > 12 {
		t.Errorf("fixture has %d tasks, want 8..12", len(ds.Tasks))
	}
	if len(ds.Corpora) < 3 {
		t.Errorf("fixture has %d corpora, want >= 3", len(ds.Corpora))
	}
	if len(ds.Notes) != 0 || len(ds.Dropped) != 0 {
		t.Errorf("fixture byte ranges must be exact definitions; notes %v, dropped %v", ds.Notes, ds.Dropped)
	}
	langs := map[string]bool{}
	for _, tk := range ds.Tasks {
		langs[tk.Meta.Language] = true
	}
	if len(langs) < 2 {
		t.Errorf("fixture languages %v, want >= 2", langs)
	}

	// Independent check: the body equals the release's line range
	// (content lines [start_line, end_line)), modulo the first line's indent.
	needles := map[string]Needle{}
	for _, r := range rel.Repos {
		for _, n := range r.Needles {
			needles[r.Repo+"/"+n.Path+"#"+n.Name] = n
		}
	}
	for _, tk := range ds.Tasks {
		g := tk.Gold[0]
		c := ds.Corpora[tk.CorpusID]
		require.NotNil(t, c, "corpus %s of task %s", tk.CorpusID, tk.ID)
		path, _, _ := strings.Cut(g.ID, "#")
		i, ok := c.Lookup()[path]
		require.True(t, ok, "gold file %s not in corpus %s", path, c.ID)
		doc := c.Docs[i]
		if !strings.Contains(doc.Text, g.Body) {
			t.Errorf("%s: body not found in %s", tk.ID, path)
		}
		if doc.Language != g.Language || doc.Kind != "file" || doc.Path != path {
			t.Errorf("%s: doc %+v does not match gold language %s", tk.ID, doc, g.Language)
		}
		n := needles[tk.CorpusID+"/"+g.ID]
		lines := strings.Split(doc.Text, "\n")[n.StartLine:n.EndLine]
		if got := strings.TrimSpace(strings.Join(lines, "\n")); got != strings.TrimSpace(g.Body) {
			t.Errorf("%s: body differs from lines [%d,%d):\n%s\nvs\n%s", tk.ID, n.StartLine, n.EndLine, g.Body, got)
		}
		if strings.Count(doc.Text, g.Body) != 1 {
			t.Errorf("%s: body occurs %d times in its file", tk.ID, strings.Count(doc.Text, g.Body))
		}
	}
}

func TestLanguageOf(t *testing.T) {
	tests := []struct{ path, fallback, want, reason string }{
		{"a/b.py", "go", "python", "extension wins"},
		{"x.tsx", "", "typescript", "tsx is typescript"},
		{"inc/x.H", "", "cpp", "case-insensitive header"},
		{"Makefile", "rust", "rust", "unknown extension falls back to the repo language"},
		{"stubs/x.pyi", "go", "python", "a type stub is Python (chunk's table; the RepoQA copy missed it)"},
		{"esm/x.mts", "", "typescript", "an ES module TypeScript file"},
		{"cjs/x.cts", "python", "typescript", "a CommonJS TypeScript file"},
	}
	for _, tc := range tests {
		if got := LanguageOf(tc.path, tc.fallback); got != tc.want {
			t.Errorf("%s: LanguageOf(%q, %q) = %q, want %q", tc.reason, tc.path, tc.fallback, got, tc.want)
		}
	}
}

func TestDefinitionsAllLanguages(t *testing.T) {
	tests := []struct {
		lang, path, src string
		want            []string
		reason          string
	}{
		{"python", "a.py", "class A:\n    @property\n    def f(self):\n        def g(): pass\n        return 1\n", []string{"A", "A.f", "A.f.g"}, "methods and nested functions are qualified"},
		{"go", "a.go", "package a\ntype T struct{}\nfunc (t T) M() {}\nfunc F[X any](x X) {}\n", []string{"T", "T.M", "F"}, "methods are Recv.Method, as Go users write them; generics"},
		{"go/pointer-generic", "a.go", "package a\ntype L[E any] struct{}\nfunc (l *L[E]) Push(e E) {}\n", []string{"L", "L.Push"}, "a pointer receiver of a generic type is named by its type"},
		{"java", "A.java", "class A { A() {} <T> void m(T t) {} class B { int n() { return 1; } } }", []string{"A", "A.A", "A.m", "A.B", "A.B.n"}, "constructors, generics, nested classes"},
		{"typescript", "a.ts", "export class C { m(): void {} }\nfunction f<T>(x: T): T { return x }\n", []string{"C", "C.m", "f"}, "class methods and generic functions"},
		{"rust", "a.rs", "struct S;\nimpl S { fn new() -> S { S } }\nfn free<T>(t: T) {}\n", []string{"S", "S", "S.new", "free"}, "impl blocks scope their functions"},
		{"cpp", "a.cpp", "namespace n { int f(int x) { return x; } }\nint C::g() { return 0; }\n", []string{"n", "n.f", "C.g"}, "namespaces and out-of-class definitions (C::g is C.g)"},
		{"cpp/template", "a.cpp", "namespace a::b {\ntemplate <typename T>\nT V<T>::get() const { return T(); }\n}\n", []string{"a.b", "a.b.V.get"}, "nested namespaces and a template class's member defined outside it"},
		{"rust/generic-impl", "a.rs", "struct W<'a, T>(&'a T);\nimpl<'a, T> W<'a, T> { fn get(&self) -> &T { self.0 } }\n", []string{"W", "W", "W.get"}, "impl<T> W<T> scopes its functions as W (W::get)"},
	}
	for _, tc := range tests {
		t.Run(tc.lang, func(t *testing.T) {
			lang, _, _ := strings.Cut(tc.lang, "/")
			defs, err := parseDefinitions(lang, tc.path, []byte(tc.src))
			require.NoError(t, err)
			var got []string
			for _, d := range defs {
				got = append(got, d.Qualified)
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("%s (-want +got):\n%s", tc.reason, d)
			}
		})
	}
}

func TestModuleName(t *testing.T) {
	tests := []struct{ entry, path, want string }{
		{"src/black", "src/black/trans.py", "black.trans"},
		{"src/black", "src/blackd/__init__.py", "blackd"},
		{"locust", "locust/test/test_dispatch.py", "locust.test.test_dispatch"},
		{"src/py/reactpy/reactpy", "src/py/reactpy/reactpy/testing/common.py", "reactpy.testing.common"},
	}
	for _, tc := range tests {
		if got := moduleName(tc.entry, tc.path); got != tc.want {
			t.Errorf("moduleName(%q, %q) = %q, want %q", tc.entry, tc.path, got, tc.want)
		}
	}
}

func taskIDs(ts []datasets.Task) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.ID
	}
	slices.Sort(out)
	return out
}
