package cosqa

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

const codeMap = `{"def a():\n    return 1": 0, "def b():\n    return 2": 1}`

func pack(t *testing.T, codes, test string) string {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"code_idx_map.txt":              codes,
		"cosqa-retrieval-test-500.json": test,
		"cosqa-retrieval-dev-500.json":  "[]",
	} {
		p := filepath.Join(dir, Folder, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	}
	return dir
}

func q(idx, doc, code string, label, ret string) string {
	return `{"idx": "` + idx + `", "doc": "` + doc + `", "code": "` + code + `", "label": ` + label + `, "retrieval_idx": ` + ret + `}`
}

func TestLoadValidation(t *testing.T) {
	good := q("q1", "return one", `def a():\n    return 1`, "1", "0")
	tests := []struct {
		name, codes, test, wantErr, reason string
	}{
		{"not an array", codeMap, `{}`, "cosqa-retrieval-test-500.json:1: want a JSON array", "wrong top-level shape"},
		{"bad json", codeMap, "[\n" + good + ",\n{oops}\n]", "cosqa-retrieval-test-500.json:3:", "malformed record"},
		{"empty query", codeMap, "[\n" + q("q1", " ", "", "1", "0") + "\n]", "cosqa-retrieval-test-500.json:2: q1: empty query", "blank doc"},
		{"missing idx", codeMap, "[\n" + q("", "x", "", "1", "0") + "\n]", "cosqa-retrieval-test-500.json:2: missing idx", "no id"},
		{"gold outside", codeMap, "[\n" + q("q1", "x", "", "1", "7") + "\n]", "q1: retrieval_idx 7 outside the code base (0..1)", "gold not in corpus"},
		{"label zero", codeMap, "[\n" + q("q1", "x", "", "0", "0") + "\n]", "q1: label must be 1", "negative pair in a retrieval split"},
		{"code mismatch", codeMap, "[\n" + q("q1", "x", `def b():\n    return 2`, "1", "0") + "\n]", "q1: code does not map to retrieval_idx 0", "code and id disagree"},
		{"duplicate idx", codeMap, "[\n" + good + ",\n" + good + "\n]", `cosqa-retrieval-test-500.json:3: duplicate idx "q1" (first on line 2)`, "ids are unique"},
		{"bad code map", `{"x": 0,`, "[]", "code_idx_map.txt:1:", "malformed code base"},
		{"code id gap", `{"x": 0, "y": 2}`, "[]", "code id 2 outside 0..1", "ids must be dense"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(pack(t, tc.codes, tc.test), DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load error = %v, want it to contain %q (%s)", err, tc.wantErr, tc.reason)
			}
			filelinetest.Want(t, err, tc.wantErr)
		})
	}
}

func TestLoadSmall(t *testing.T) {
	ds, err := Load(pack(t, codeMap, "[\n"+q("q1", "return one", `def a():\n    return 1`, "1", "0")+"\n]"), DefaultConfig())
	require.NoError(t, err)
	want := []datasets.Task{{ID: "q1", Query: "return one", CorpusID: CorpusID, Gold: []datasets.Relevant{{Kind: "doc", ID: "0", Grade: 1}}, Meta: datasets.Meta{Language: "python"}}}
	if diff := cmp.Diff(want, ds.Tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	c := ds.Corpora[CorpusID]
	require.Len(t, c.Docs, 2)
	if c.Docs[1].ID != "1" || c.Docs[1].Text != "def b():\n    return 2" {
		t.Errorf("doc 1 = %+v", c.Docs[1])
	}
}

func TestLoadRealData(t *testing.T) {
	testenv.MustHaveData(t, "cosqa/cosqa-retrieval-test-500.json")
	dir, _ := testenv.DataDir()
	for _, tc := range []struct {
		split   string
		n, gold int
	}{
		{datasets.SplitTest, 500, 472},
		{datasets.SplitDev, 500, 478},
		{datasets.SplitAll, 1000, -1},
		{datasets.SplitSmallTest, 30, -1},
		{datasets.SplitSmallDev, 30, -1},
	} {
		t.Run(tc.split, func(t *testing.T) {
			ds, err := Load(dir, Config{Split: tc.split})
			require.NoError(t, err)
			require.Len(t, ds.Corpora[CorpusID].Docs, 6267)
			targets := map[string]bool{}
			for _, task := range ds.Tasks {
				targets[task.Gold[0].ID] = true
			}
			if len(ds.Tasks) != tc.n || (tc.gold >= 0 && len(targets) != tc.gold) {
				t.Errorf("%d tasks, %d distinct targets; want %d and %d (PROVENANCE.md)", len(ds.Tasks), len(targets), tc.n, tc.gold)
			}
		})
	}
}
