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
	// The three smallest of the ten repositories (about 1,200 chunks in all),
	// so that every system, dense models included, runs in CI.
	small := []string{"marshmallow-code/marshmallow", "reactive-python/reactpy", "psf/black"}
	return []dataset{
		{name: "fixture", hermetic: true, load: func(_, split string) (*datasets.Dataset, error) {
			return repoqa.Fixture("../fixtures/repoqa/repoqa-fixture.json", split, cfg)
		}},
		{name: "docstring", load: func(dir, split string) (*datasets.Dataset, error) {
			return repoqa.PythonDocstring(dir, split, cfg)
		}, small: small},
		// The 20 official-description rows are few: every size but small
		// runs them whole.
		{name: "official-desc", load: func(dir, _ string) (*datasets.Dataset, error) {
			return repoqa.PythonOfficialDesc(dir, "all", cfg)
		}, small: small[1:]}, // marshmallow has no official-description row
		{name: "structural", load: func(dir, _ string) (*datasets.Dataset, error) {
			return repoqa.Structural(dir, "all", cfg)
		}, small: small[1:]},
	}
}

func TestRepoQA(t *testing.T) { runFamily(t, "repoqa", repoqaSets()) }
