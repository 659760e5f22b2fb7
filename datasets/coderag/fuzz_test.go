package coderag

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName>.

// FuzzReadProblems feeds the same rows file (JSON Lines or a JSON array)
// to the ODEX and DS-1000 readers: no panic, every error names the file,
// and accepted problems have a query and docs with ids and text.
func FuzzReadProblems(f *testing.F) {
	f.Add([]byte(`{"task_id": 3, "intent": "sort a list", "library": ["os"], "docs": [{"title": "sorted", "text": "sorted(x)"}]}` + "\n"))
	f.Add([]byte(`[{"prompt": "p", "metadata": {"problem_id": 1, "library": "Numpy"}, "docs": [{"doc_id": "d", "doc_content": "c"}]}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "rows.jsonl")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{ODEX, DS1000} {
			ps, err := readProblems(file, name)
			if err != nil {
				if !strings.Contains(err.Error(), file) {
					t.Fatalf("%s: error %q does not name the file", name, err)
				}
				continue
			}
			for _, p := range ps {
				if strings.TrimSpace(p.query) == "" {
					t.Errorf("%s: problem %s accepted with an empty query", name, p.id)
				}
				for _, d := range p.docs {
					if d.id() == "" || strings.TrimSpace(d.text()) == "" {
						t.Errorf("%s: problem %s accepted a doc without id or text", name, p.id)
					}
				}
			}
			if _, err := buildStore("fuzz", ps); err != nil && !strings.Contains(err.Error(), file) {
				t.Fatalf("%s: store error %q does not name the file", name, err)
			}
		}
	})
}
