package repoqa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName> (the fixture release
// and hand-made near misses); go test runs them as ordinary test cases.

// FuzzReadRelease checks that no release JSON makes ReadRelease or the
// needle extraction panic, that every error names the file, and that an
// accepted release yields needles inside their repository's content.
func FuzzReadRelease(f *testing.F) {
	f.Add([]byte(`{"python": [{"repo": "a/b", "commit_sha": "c", "content": {"x.py": "def f():\n    return 1\n"}, "needles": [{"name": "f", "path": "x.py", "start_line": 0, "end_line": 2, "start_byte": 0, "end_byte": 25, "description": "d"}]}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "release.json")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		rel, err := ReadRelease(file)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, r := range rel.Repos {
			for _, n := range r.Needles {
				if _, ok := r.Content[n.Path]; !ok {
					t.Errorf("%s: needle %q in %q, a file the repository does not have", r.Repo, n.Name, n.Path)
				}
				needleBody(&r, n) // must not panic on any accepted release
			}
			r.Corpus()
		}
	})
}

// FuzzReadStructural checks ReadStructural the same way.
func FuzzReadStructural(f *testing.F) {
	f.Add([]byte(`{"python": [{"query": "q", "repo": "a/b", "commit": "c", "needle_path": "x.py", "seed_qname": "f", "gold_qname": "g", "gold_ast_body": "def g(): pass", "hop_distance": 1}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "structural_recall.json")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadStructural(file); err != nil && !strings.Contains(err.Error(), file) {
			t.Fatalf("error %q does not name the file", err)
		}
	})
}
