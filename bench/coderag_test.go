package bench

import (
	"path/filepath"
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/coderag"
)

// coderagSets are CodeRAG-Bench's HumanEval, MBPP, ODEX and DS-1000 as its
// builders frame them, DS-1000 in its three runs (ranked, composite,
// oracle), and the seed harness's DS-1000 fixture. Their corpora are small
// (≤ 500 docs), so every size runs them whole; -size=small takes small_test.
func coderagSets() []dataset {
	load := func(name, run string) func(dir, split string) (*datasets.Dataset, error) {
		return func(dir, split string) (*datasets.Dataset, error) {
			cfg := coderag.DefaultConfig()
			cfg.Run, cfg.Split = run, split
			return coderag.Load(dir, name, cfg)
		}
	}
	return []dataset{
		{name: "humaneval", load: load(coderag.HumanEval, coderag.Ranked)},
		{name: "mbpp", load: load(coderag.MBPP, coderag.Ranked)},
		{name: "odex", load: load(coderag.ODEX, coderag.Ranked)},
		{name: "ds1000-ranked", load: load(coderag.DS1000, coderag.Ranked)},
		{name: "ds1000-composite", load: load(coderag.DS1000, coderag.Composite)},
		{name: "ds1000-oracle", load: load(coderag.DS1000, coderag.Oracle)},
		{name: "seed-ds1000", load: func(dir, _ string) (*datasets.Dataset, error) {
			return coderag.LoadSeedDS1000(filepath.Join(dir, "pydocs-eval", "ds1000_50.json"), coderag.DefaultConfig())
		}},
	}
}

func TestCodeRAG(t *testing.T) { runFamily(t, "coderag", coderagSets()) }
