package sweqa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName>.

// FuzzReadRows checks that no questions file makes readRows or the answer
// resolver panic, that every error names the file, and that accepted rows
// have a question.
func FuzzReadRows(f *testing.F) {
	f.Add([]byte(`{"question": "How does X work?", "answer": "See src/x.py and pkg.mod.func", "repo": "r", "qa_type": {"class_name": "What"}}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "questions.jsonl")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		rows, err := readRows(file)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		res := NewResolver([]string{"src/x.py", "pkg/mod.py", "README.md"})
		for _, r := range rows {
			if strings.TrimSpace(r.question) == "" {
				t.Errorf("row %s accepted with an empty question", r.id)
			}
			res.Resolve(r.answer)
		}
	})
}

// FuzzReadCorpus checks the {path, text} corpus reader the same way.
func FuzzReadCorpus(f *testing.F) {
	f.Add([]byte(`{"path": "src/x.py", "text": "def f(): pass\n"}` + "\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "corpus.jsonl")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadCorpus(file, "r", "c"); err != nil && !strings.Contains(err.Error(), file) {
			t.Fatalf("error %q does not name the file", err)
		}
	})
}
