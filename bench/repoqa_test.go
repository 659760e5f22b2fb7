package bench

import (
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/repoqa"
)

// repoqaSets are the RepoQA "search needle function" datasets: the hermetic
// fixture, tasks generated from docstrings of the data pack's ten Python
// repositories, the 20 official RepoQA descriptions, and the seed's
// structural split (gold = a 1-hop call-graph neighbour of the described
// function).
func repoqaSets() []dataset {
	cfg := repoqa.DefaultConfig()
	return []dataset{
		{name: "fixture", hermetic: true, load: func(_, split string) (*datasets.Dataset, error) {
			return repoqa.Fixture("../fixtures/repoqa/repoqa-fixture.json", split, cfg)
		}},
		{name: "docstring", load: func(dir, split string) (*datasets.Dataset, error) {
			return repoqa.PythonDocstring(dir, split, cfg)
		}},
		// The 20 official-description rows are few: they always run whole.
		{name: "official-desc", load: func(dir, _ string) (*datasets.Dataset, error) {
			return repoqa.PythonOfficialDesc(dir, "all", cfg)
		}},
		{name: "structural", load: func(dir, _ string) (*datasets.Dataset, error) {
			return repoqa.Structural(dir, "all", cfg)
		}},
	}
}

func TestRepoQA(t *testing.T) { runFamily(t, "repoqa", repoqaSets()) }
