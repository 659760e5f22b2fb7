package leakage

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// TestDatapack checks the leakage the benchmarks' construction implies:
// CodeRAG-Bench's HumanEval query is a prefix of its gold document and
// MBPP's gold starts with "# " + its query, so every task leaks into its
// gold; the docstring RepoQA tasks remove the docstring from the indexed
// code and the needle, so none does.
func TestDatapack(t *testing.T) {
	testenv.MustHaveData(t, "coderag/humaneval_solutions.json")
	testenv.MustHaveData(t, "repoqa/repoqa-python-corpora.json.gz")
	dir, _ := testenv.DataDir()
	for _, tc := range []struct {
		name     string
		allLeak  bool
		noneLeak bool
	}{
		{"coderag/humaneval", true, false},
		{"coderag/mbpp", true, false},
		{"repoqa/docstring", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, d, err := catalogue.Lookup(tc.name)
			require.NoError(t, err)
			ds, err := d.Load(dir, datasets.SplitAll)
			require.NoError(t, err)
			r, err := Scan(ds, DefaultConfig())
			require.NoError(t, err)
			t.Log(r.Summary())
			if tc.allLeak && r.Full.Gold != r.Tasks {
				t.Errorf("whole query in its gold for %d of %d tasks, want all (by construction)", r.Full.Gold, r.Tasks)
			}
			if tc.noneLeak && (r.Full.Gold != 0 || r.Span.Gold != 0) {
				t.Errorf("query in its gold: %d whole, %d span; want none (the docstring is removed)", r.Full.Gold, r.Span.Gold)
			}
		})
	}
}
