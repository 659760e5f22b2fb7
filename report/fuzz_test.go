package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The seed corpora live in testdata/fuzz/<FuzzName> (the campaign
// fixture's grades.csv among them).

// FuzzReadSheet checks that no grading sheet makes ReadSheet panic, that
// every error names the file, and that accepted judgments have a task, a
// result and a grade in 0..3, each pair once.
func FuzzReadSheet(f *testing.F) {
	f.Add([]byte("case_id,result_id,grade,notes\nc1,a.py#f,2,\nc1,b.py,,\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		file := filepath.Join(t.TempDir(), "grades.csv")
		if err := os.WriteFile(file, in, 0o644); err != nil {
			t.Fatal(err)
		}
		js, err := ReadSheet(file)
		if err != nil {
			if !strings.Contains(err.Error(), file) {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		seen := map[[2]string]bool{}
		for _, j := range js {
			if j.Task == "" || j.DocID == "" || j.Grade < 0 || j.Grade > 3 {
				t.Errorf("judgment %+v accepted", j)
			}
			if seen[[2]string{j.Task, j.DocID}] {
				t.Errorf("judgment %+v listed twice", j)
			}
			seen[[2]string{j.Task, j.DocID}] = true
		}
	})
}
