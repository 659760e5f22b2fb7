package bench

import (
	"path/filepath"
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/sweqa"
)

// sweqaSets are SWE-QA (file-level pseudo-qrels extracted from the answers'
// citations) and the seed harness's SWE-QA and SWE-QA-Pro fixtures.
func sweqaSets() []dataset {
	load := func(repos ...string) func(dir, split string) (*datasets.Dataset, error) {
		return func(dir, split string) (*datasets.Dataset, error) {
			cfg := sweqa.DefaultConfig()
			cfg.Repos, cfg.Split = repos, split
			return sweqa.Load(dir, cfg)
		}
	}
	seed := func(questions string) func(dir, split string) (*datasets.Dataset, error) {
		return func(dir, _ string) (*datasets.Dataset, error) {
			return sweqa.LoadSeed(filepath.Join(dir, "pydocs-eval", questions), filepath.Join(dir, "pydocs-eval", "swe_qa_corpus.jsonl"))
		}
	}
	return []dataset{
		// The two smallest corpora (requests, flask) make the small size.
		{name: "sweqa", load: load(), small: []string{"psf/requests", "pallets/flask"}},
		{name: "seed-mini", load: seed("swe_qa_mini.jsonl")},
		{name: "seed-pro", load: seed("swe_qa_pro_mini.jsonl")},
	}
}

func TestSWEQA(t *testing.T) { runFamily(t, "sweqa", sweqaSets()) }
