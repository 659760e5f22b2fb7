package cosqa

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName>.

// FuzzReadCoSQA feeds the input as the code base (code_idx_map.txt) and as
// the queries file: no panic, every error names the file, and accepted
// queries point inside the code base.
func FuzzReadCoSQA(f *testing.F) {
	f.Add([]byte(`{"def f(): pass": 0, "def g(): pass": 1}`))
	f.Add([]byte(`[{"idx": "cosqa-1", "doc": "python sort", "code": "def f(): pass", "label": 1, "retrieval_idx": 0}]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		dir := t.TempDir()
		file := filepath.Join(dir, "code_idx_map.txt")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		if c, _, err := readCodeBase(dir); err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("code base: error %q does not name the file", err)
			}
		} else {
			for i, d := range c.Docs {
				if d.ID != strconv.Itoa(i) {
					t.Errorf("code base doc %d has id %q", i, d.ID)
				}
			}
		}
		codeID := map[string]int{"def f(): pass": 0, "def g(): pass": 1}
		tasks, err := readQueries(file, codeID, 2)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("queries: error %q does not name the file", err)
			}
			return
		}
		for _, tk := range tasks {
			if len(tk.Gold) != 1 || (tk.Gold[0].ID != "0" && tk.Gold[0].ID != "1") {
				t.Errorf("task %s: gold %v outside the code base", tk.ID, tk.Gold)
			}
		}
	})
}
