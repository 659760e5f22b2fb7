package coderag

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
	"github.com/retrievalbench/retrievalbench/metrics"
)

func writeFile(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, Folder, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
}

const (
	goodDS1000 = `{"prompt": "drop nan rows", "metadata": {"problem_id": 0, "library": "Pandas"}, "docs": [{"function": "df.dropna", "title": "pandas.DataFrame.dropna", "text": "Remove missing values."}]}
{"prompt": "cumulative sum", "metadata": {"problem_id": 1, "library": "Numpy"}, "docs": []}
`
	goodODEX = `{"task_id": 7, "intent": "decode hex", "library": [], "docs": [{"function": "bytes.fromhex", "title": "python.library.stdtypes#bytes.fromhex", "text": "Create bytes from hex."}]}
`
)

func TestLoadValidation(t *testing.T) {
	tests := []struct {
		name, bench, file, content, wantErr, reason string
	}{
		{"bad json", HumanEval, "humaneval_solutions.json", "{\"task_id\": \"H/0\"\n", "humaneval_solutions.json:1:", "malformed line"},
		{"empty query", HumanEval, "humaneval_solutions.json", `{"task_id": "H/0", "prompt": " ", "docs": [{"title": "f", "text": "def f(): pass"}]}`, "humaneval_solutions.json:1: empty query", "blank prompt"},
		{"duplicate id", MBPP, "mbpp_solutions.json", `{"task_id": 11, "text": "q", "docs": [{"title": "f", "text": "x"}]}` + "\n" + `{"task_id": 11, "text": "q", "docs": [{"title": "f", "text": "x"}]}`, `mbpp_solutions.json:2: duplicate task_id "11" (first on line 1)`, "task ids are unique"},
		{"no solution", MBPP, "mbpp_solutions.json", `{"task_id": 11, "text": "q", "docs": []}`, "mbpp_solutions.json:1: want exactly one non-empty canonical solution", "the gold doc is missing"},
		{"missing task id", HumanEval, "humaneval_solutions.json", `{"prompt": "q", "docs": [{"title": "f", "text": "x"}]}`, "humaneval_solutions.json:1: task_id", "no id"},
		{"doc without title", DS1000, "ds1000_docs.json", `{"prompt": "q", "metadata": {"problem_id": 0, "library": "Numpy"}, "docs": [{"text": "x"}]}`, "ds1000_docs.json:1: docs[0] has no title or doc_id", "gold doc cannot be named"},
		{"doc without text", DS1000, "ds1000_docs.json", `{"prompt": "q", "metadata": {"problem_id": 0, "library": "Numpy"}, "docs": [{"title": "np.x", "text": ""}]}`, "ds1000_docs.json:1: docs[0] (np.x) has no text", "empty doc"},
		{"conflicting doc", DS1000, "ds1000_docs.json", goodDS1000 + `{"prompt": "q2", "metadata": {"problem_id": 2, "library": "Pandas"}, "docs": [{"title": "pandas.DataFrame.dropna", "text": "Other text."}]}`, `ds1000_docs.json:3: doc "pandas.DataFrame.dropna" has a different text than at`, "one doc id, two texts"},
		{"duplicate problem", DS1000, "ds1000_docs.json", goodDS1000 + `{"prompt": "q2", "metadata": {"problem_id": 1, "library": "Pandas"}, "docs": []}`, `ds1000_docs.json:3: duplicate task id "ds1000/1" (first on line 2)`, "problem ids are unique"},
		{"bad odex library", ODEX, "odex_docs.json", `{"task_id": 1, "intent": "q", "library": 5, "docs": []}`, "odex_docs.json:1: library:", "library must be a list"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, tc.file, tc.content)
			_, err := Load(dir, tc.bench, DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load error = %v, want it to contain %q (%s)", err, tc.wantErr, tc.reason)
			}
			filelinetest.Want(t, err, tc.wantErr)
		})
	}
}

func TestLoadBadConfig(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "ds1000_docs.json", goodDS1000)
	for _, tc := range []struct{ bench, run, want string }{
		{"nope", Ranked, `unknown benchmark "nope"`},
		{DS1000, "best", `unknown run "best"`},
		{HumanEval, Composite, `run "composite" undefined`},
	} {
		if _, err := Load(dir, tc.bench, Config{Run: tc.run}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Load(%s, %s) error = %v, want %q", tc.bench, tc.run, err, tc.want)
		}
	}
}

func TestLoadDocsRuns(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "ds1000_docs.json", goodDS1000)
	writeFile(t, dir, "odex_docs.json", goodODEX)
	for _, tc := range []struct {
		run, kind string
		undefined bool
	}{
		{Ranked, "doc_section", false},
		{Composite, "doc", true},
		{Oracle, "doc", false},
	} {
		t.Run(tc.run, func(t *testing.T) {
			ds, err := Load(dir, DS1000, Config{Run: tc.run})
			require.NoError(t, err)
			want := []datasets.Task{{
				ID: "ds1000/0", Query: "drop nan rows", CorpusID: DocStoreApprox,
				Gold: []datasets.Relevant{{Kind: tc.kind, ID: "pandas.DataFrame.dropna", Grade: 1}},
				Meta: datasets.Meta{Library: "Pandas", Language: "python"},
			}}
			if diff := cmp.Diff(want, ds.Tasks); diff != "" {
				t.Errorf("tasks (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff([]datasets.Dropped{{ID: "ds1000/1", Reason: "no gold docs in the canonical file"}}, ds.Dropped); diff != "" {
				t.Errorf("dropped (-want +got):\n%s", diff)
			}
			// The store holds the ODEX gold doc too, as a distractor.
			var ids []string
			for _, d := range ds.Corpora[DocStoreApprox].Docs {
				ids = append(ids, d.ID)
			}
			if diff := cmp.Diff([]string{"pandas.DataFrame.dropna", "python.library.stdtypes#bytes.fromhex"}, ids); diff != "" {
				t.Errorf("store (-want +got):\n%s", diff)
			}
			_, hasMRR := ds.Undefined["mrr"]
			_, hasHit1 := ds.Undefined["hit@1"]
			if hasMRR != tc.undefined || hasHit1 {
				t.Errorf("Undefined = %v: mrr listed %v (want %v), hit@1 must never be", ds.Undefined, hasMRR, tc.undefined)
			}
		})
	}
}

// TestCompositeUndefinedNames checks that every measure a composite run
// declares undefined is spelled as the metrics package spells it (the
// harness matches names exactly) and that no rank-1 measure is among them.
func TestCompositeUndefinedNames(t *testing.T) {
	for _, n := range compositeUndefined() {
		m, err := metrics.ParseMeasure(n)
		if err != nil {
			t.Errorf("%s: %v", n, err)
			continue
		}
		if m.String() != n {
			t.Errorf("%s spelled %s by the metrics package", n, m.String())
		}
		if strings.HasSuffix(n, "@1") {
			t.Errorf("%s is a rank-1 measure", n)
		}
	}
}

func TestLoadSeedDS1000(t *testing.T) {
	p := testenv.MustHaveData(t, "pydocs-eval/ds1000_mini.json")
	dir := filepath.Dir(p)
	for _, tc := range []struct {
		file      string
		tasks     int
		firstGold string
		firstLib  string
		reason    string
	}{
		{"ds1000_mini.json", 8, "pandas.DataFrame.dropna", "Pandas", "flat shape, doc_id"},
		{"ds1000_50.json", 50, "pandas.api.synthetic_0.DataFrame.dropna", "Pandas", "flat shape, 50 rows"},
		{"ds1000_metadata_nested.json", 2, "numpy.reference.generated.numpy.cumsum", "Numpy", "nested Hugging Face shape, title; problem 2 has no docs and is dropped"},
	} {
		t.Run(tc.file, func(t *testing.T) {
			ds, err := LoadSeedDS1000(filepath.Join(dir, tc.file), Config{Run: Oracle})
			require.NoError(t, err)
			require.Len(t, ds.Tasks, tc.tasks, tc.reason)
			if got := ds.Tasks[0].Gold[0].ID + "|" + ds.Tasks[0].Meta.Library; got != tc.firstGold+"|"+tc.firstLib {
				t.Errorf("first task gold|library = %q, want %q (%s)", got, tc.firstGold+"|"+tc.firstLib, tc.reason)
			}
			ids := ds.Corpora[ds.Tasks[0].CorpusID].Lookup()
			for _, task := range ds.Tasks {
				for _, g := range task.Gold {
					if _, ok := ids[g.ID]; !ok {
						t.Errorf("%s: gold %s missing from the store", task.ID, g.ID)
					}
				}
			}
		})
	}
}

func TestLoadRealData(t *testing.T) {
	testenv.MustHaveData(t, "coderag/humaneval_solutions.json")
	dir, _ := testenv.DataDir()
	for _, tc := range []struct {
		bench          string
		kept, dropped  int
		corpus, lenDoc int
	}{
		{HumanEval, 164, 0, 0, 164},
		{MBPP, 500, 0, 0, 500},
		{ODEX, 201, 238, 0, 354},
		{DS1000, 513, 487, 0, 354},
	} {
		t.Run(tc.bench, func(t *testing.T) {
			ds, err := Load(dir, tc.bench, DefaultConfig())
			require.NoError(t, err)
			require.Len(t, ds.Corpora, 1)
			var c = ds.Corpora[ds.Tasks[0].CorpusID]
			if len(ds.Tasks) != tc.kept || len(ds.Dropped) != tc.dropped || len(c.Docs) != tc.lenDoc {
				t.Errorf("kept %d dropped %d corpus %d; want %d %d %d", len(ds.Tasks), len(ds.Dropped), len(c.Docs), tc.kept, tc.dropped, tc.lenDoc)
			}
			ids := c.Lookup()
			for _, task := range ds.Tasks {
				for _, g := range task.Gold {
					if _, ok := ids[g.ID]; !ok {
						t.Errorf("%s: gold %s not in %s", task.ID, g.ID, c.ID)
					}
				}
			}
			t.Logf("%s: kept %d dropped %d corpus %d notes %q", tc.bench, len(ds.Tasks), len(ds.Dropped), len(c.Docs), ds.Notes)
		})
	}
}

// TestSplitByLibrary checks that DS-1000's small split draws from every
// library in proportion (Hamilton apportionment of datasets.Split).
func TestSplitByLibrary(t *testing.T) {
	testenv.MustHaveData(t, "coderag/ds1000_docs.json.gz")
	dir, _ := testenv.DataDir()
	cfg := DefaultConfig()
	cfg.Split = datasets.SplitSmallTest
	ds, err := Load(dir, DS1000, cfg)
	require.NoError(t, err)
	libs := map[string]int{}
	for _, task := range ds.Tasks {
		libs[task.Meta.Library]++
		if task.Meta.Repo != "" {
			t.Errorf("%s: Meta.Repo %q leaked from the split", task.ID, task.Meta.Repo)
		}
	}
	if len(ds.Tasks) != 30 || len(libs) != 5 {
		t.Errorf("small_test: %d tasks over libraries %v; want 30 over 5 libraries", len(ds.Tasks), libs)
	}
	again, err := Load(dir, DS1000, cfg)
	require.NoError(t, err)
	if diff := cmp.Diff(ds.Tasks, again.Tasks); diff != "" {
		t.Errorf("split not deterministic (-first +second):\n%s", diff)
	}
	dev, err := Load(dir, DS1000, Config{Run: Ranked, Split: datasets.SplitDev})
	require.NoError(t, err)
	test, err := Load(dir, DS1000, Config{Run: Ranked, Split: datasets.SplitTest})
	require.NoError(t, err)
	if len(dev.Tasks)+len(test.Tasks) != 513 {
		t.Errorf("dev %d + test %d != 513", len(dev.Tasks), len(test.Tasks))
	}
}
