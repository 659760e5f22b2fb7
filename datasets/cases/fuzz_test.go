package cases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName> (the fixture's case
// file and manifest among them).

// FuzzLoad validates arbitrary case files against the minikv fixture
// repository: no panic, every error names the case file, and an accepted
// case has gold.
func FuzzLoad(f *testing.F) {
	f.Add([]byte(`{"id": "a", "repo": "minikv", "intent": "symbol_lookup", "query": "q", "relevant": [{"kind": "symbol", "id": "Store.delete", "grade": 3}]}` + "\n"))
	manifest, err := filepath.Abs("../../fixtures/cases/manifest.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "cases.jsonl")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		ds, err := Load(file, manifest, DefaultConfig())
		if err != nil {
			if !strings.Contains(err.Error(), file) && !strings.Contains(err.Error(), manifest) {
				t.Fatalf("error %q names neither the case file nor the manifest", err)
			}
			return
		}
		for _, tk := range ds.Tasks {
			if len(tk.Gold) == 0 {
				t.Errorf("case %s accepted without gold", tk.ID)
			}
		}
	})
}

// FuzzReadManifest checks the repository manifest reader: no panic, every
// error names the file, every accepted entry has exactly one source.
func FuzzReadManifest(f *testing.F) {
	f.Add([]byte(`{"minikv": {"path": "repos/minikv", "commit": "fixture-v1"}}`))
	f.Add([]byte(`{"flask": {"datapack": "swe-qa/corpora/flask.jsonl.gz", "commit": "abc"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "manifest.json")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := ReadManifest(file)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for n, s := range m.Repos {
			k := 0
			for _, v := range []string{s.Path, s.Archive, s.Datapack} {
				if v != "" {
					k++
				}
			}
			if k != 1 {
				t.Errorf("repo %q accepted with %d sources", n, k)
			}
		}
	})
}

// FuzzSections cuts arbitrary text as Markdown and as reStructuredText:
// no panic, sections in order, inside the file, each ID unique.
func FuzzSections(f *testing.F) {
	f.Add([]byte("Title\n=====\n\ntext\n\nSub\n~~~\n\nmore\n"))
	f.Add([]byte("# A\n\n```\n# not\n```\n\n## B\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		for _, p := range []string{"a.md", "a.rst"} {
			text := string(in)
			n := strings.Count(text, "\n") + 1
			seen := map[string]bool{}
			prev := 0
			for _, d := range sectionDocs(p, text) {
				if seen[d.ID] {
					t.Errorf("%s: duplicate section id %q", p, d.ID)
				}
				seen[d.ID] = true
				if d.StartLine < 1 || d.EndLine > n || d.StartLine > d.EndLine || d.StartLine <= prev {
					t.Errorf("%s: section %q lines %d-%d (file has %d, previous started at %d)", p, d.ID, d.StartLine, d.EndLine, n, prev)
				}
				prev = d.StartLine
			}
		}
	})
}
