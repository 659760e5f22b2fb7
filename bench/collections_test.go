package bench

import (
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/beir"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/datasets/cosqa"
	"github.com/retrievalbench/retrievalbench/datasets/trec"
)

// cosqaSets is CoSQA's retrieval split: web queries over a 6,267-function
// code base. -size=small searches the small_test queries among the 500 test
// queries' gold functions.
func cosqaSets() []dataset {
	return []dataset{{name: "cosqa", pool: true, load: func(dir, split string) (*datasets.Dataset, error) {
		cfg := cosqa.DefaultConfig()
		cfg.Split = split
		return cosqa.Load(dir, cfg)
	}}}
}

// trecSets are classic TREC collections: the hermetic fixture and Vaswani
// (NPL). -size=small searches Vaswani's small_test topics among its judged
// documents.
func trecSets() []dataset {
	return []dataset{
		{name: "fixture", hermetic: true, load: func(_, split string) (*datasets.Dataset, error) {
			cfg := trec.DefaultConfig()
			cfg.Split = split
			return trec.LoadFiles(trec.Files{Name: "trec-fixture", Docs: []string{"../fixtures/trec/docs.trec"}, Topics: "../fixtures/trec/topics.trec", Qrels: "../fixtures/trec/qrels"}, cfg)
		}},
		{name: "vaswani", pool: true, load: func(dir, split string) (*datasets.Dataset, error) {
			cfg := trec.DefaultConfig()
			cfg.Split = split
			return trec.Load(dir, "vaswani", cfg)
		}},
	}
}

// beirSets is a BEIR folder: the hermetic fixture.
func beirSets() []dataset {
	return []dataset{{name: "fixture", hermetic: true, load: func(_, split string) (*datasets.Dataset, error) {
		cfg := beir.DefaultConfig()
		cfg.Split = split
		return beir.Load("../fixtures/beir", cfg)
	}}}
}

// casesSets are hand-written case files (intent taxonomy, graded
// relevance): the hermetic fixture over two tiny repositories.
func casesSets() []dataset {
	return []dataset{{name: "fixture", hermetic: true, load: func(_, split string) (*datasets.Dataset, error) {
		cfg := cases.DefaultConfig()
		cfg.Split = split
		return cases.Load("../fixtures/cases/cases.jsonl", "../fixtures/cases/manifest.json", cfg)
	}}}
}

func TestCoSQA(t *testing.T) { runFamily(t, "cosqa", cosqaSets()) }
func TestTREC(t *testing.T)  { runFamily(t, "trec", trecSets()) }
func TestBEIR(t *testing.T)  { runFamily(t, "beir", beirSets()) }
func TestCases(t *testing.T) { runFamily(t, "cases", casesSets()) }
