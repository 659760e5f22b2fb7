package cases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
)

// writeRepo writes files into a fresh repository directory and returns a
// manifest naming it "r" and the path of an (empty) case file next to it.
func writeRepo(t *testing.T, files map[string]string) (cases, manifest string) {
	t.Helper()
	dir := t.TempDir()
	for p, text := range files {
		f := filepath.Join(dir, "repo", filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(f), 0o755))
		require.NoError(t, os.WriteFile(f, []byte(text), 0o644))
	}
	manifest = filepath.Join(dir, "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"r": {"path": "repo", "commit": "x"}}`), 0o644))
	return filepath.Join(dir, "cases.jsonl"), manifest
}

var qualifiedRepo = map[string]string{
	"src/requests/__init__.py":          "from .adapters import HTTPAdapter\n",
	"src/requests/adapters.py":          "class BaseAdapter:\n    def send(self):\n        raise NotImplementedError\n\n\nclass HTTPAdapter(BaseAdapter):\n    def send(self, request):\n        return request\n",
	"go.mod":                            "module example.com/kv\n\ngo 1.22\n",
	"store/store.go":                    "package store\n\ntype Store struct{}\n\nfunc (s *Store) Get(k string) string {\n\treturn k\n}\n",
	"src/main/java/org/acme/Cache.java": "package org.acme;\n\npublic class Cache {\n    public int size() {\n        return 0;\n    }\n}\n",
	"web/src/util/index.ts":             "export function slugify(s: string): string {\n  return s;\n}\n",
}

// TestQualifiedSymbols checks that a symbol judgment may name a definition
// the way its language imports it — any dotted suffix of the fully
// qualified name — and nothing else.
func TestQualifiedSymbols(t *testing.T) {
	tests := []struct {
		name, id, path, wantErr, reason string
	}{
		{"python full", "requests.adapters.HTTPAdapter.send", "src/requests/adapters.py", "", "module path of a src/ layout, as a Python developer writes it"},
		{"python full no path", "requests.adapters.HTTPAdapter.send", "", "", "the qualified name alone identifies the method"},
		{"python module suffix", "adapters.HTTPAdapter.send", "", "", "a dotted suffix of the qualified name"},
		{"python chunk symbol", "HTTPAdapter.send", "src/requests/adapters.py", "", "the chunker's own name still works"},
		{"python package export", "requests.HTTPAdapter.send", "", "",
			"requests/__init__.py imports HTTPAdapter from .adapters: users write the name the package exports (codetext.Qualifier.Resolve)"},
		{"python package export in its file", "requests.HTTPAdapter.send", "src/requests/adapters.py", "", "the re-exported name, judged in the file that defines it"},
		{"python not exported", "requests.BaseAdapter.send", "", `symbol "requests.BaseAdapter.send": no definition in the repository`,
			"the package does not import BaseAdapter: not its name"},
		{"python partial part", "Adapter.send", "", `symbol "Adapter.send": no definition`, "a suffix inside a name part is another name"},
		{"python wrong module", "requests.sessions.HTTPAdapter.send", "", `symbol "requests.sessions.HTTPAdapter.send": no definition`, "a different module"},
		{"python src prefix", "src.requests.adapters.HTTPAdapter.send", "", `no definition`, "src/ is not a package"},
		{"go package", "store.Store.Get", "store/store.go", "", "Go: package name, receiver type, method"},
		{"go import path", "example.com/kv/store.Store.Get", "", "", "Go: the full import path from go.mod"},
		{"java package", "org.acme.Cache.size", "", "", "Java: package declaration and class"},
		{"ts module", "util.slugify", "web/src/util/index.ts", "", "TypeScript: index.ts stands for its directory"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cases, manifest := writeRepo(t, qualifiedRepo)
			j := `{"kind": "symbol", "id": "` + tc.id + `", "grade": 3}`
			if tc.path != "" {
				j = `{"kind": "symbol", "id": "` + tc.id + `", "path": "` + tc.path + `", "grade": 3}`
			}
			require.NoError(t, os.WriteFile(cases, []byte(`{"id": "c1", "repo": "r", "intent": "symbol_lookup", "query": "q", "relevant": [`+j+`]}`+"\n"), 0o644))
			ds, err := Load(cases, manifest, DefaultConfig())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Load error = %v, want %q (%s)", err, tc.wantErr, tc.reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Load: %v (%s)", err, tc.reason)
			}
			want := []datasets.Relevant{{Kind: "symbol", ID: tc.id, Grade: 3, Path: tc.path}}
			if diff := cmp.Diff(want, ds.Tasks[0].Gold); diff != "" {
				t.Errorf("gold (-want +got):\n%s\nthe symbol is stored as written, with its path", diff)
			}
		})
	}
}

// TestQualifiedSymbolsFixture checks the minikv fixture's flat package:
// minikv/store.py is module minikv.store.
func TestQualifiedSymbolsFixture(t *testing.T) {
	cases, manifest := writeCase(t, withField(`{"kind": "file", "path": "minikv/store.py", "grade": 1}`,
		`{"kind": "symbol", "id": "minikv.store.Store.delete", "path": "minikv/store.py", "grade": 3}, {"kind": "symbol", "id": "minikv.log.read_records", "grade": 2}`))
	_, err := Load(cases, manifest, DefaultConfig())
	require.NoError(t, err)
}
