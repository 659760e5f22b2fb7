// Package catalogue is the list of datasets the bench runs: families of
// named datasets (Families, RepoQA, …, Cases), each loaded through one
// signature (Loader: a split from the data pack directory), with what
// -size=small loads of it (Dataset.LoadSmall). It is a plain package —
// no testing, no systems, no harness — read by benchtest (the matrix of
// go test), the CLI (`retrievalbench leakage family/dataset`) and the
// leakage package's data-pack test.
//
// A dataset is named "family/dataset" ("repoqa/docstring", "trec/fixture"):
// its family's name and the last part of its go test subtest path
// (TestRepoQA/system/config/docstring); Lookup finds it by that name.
package catalogue

import (
	"fmt"
	"github.com/retrievalbench/retrievalbench/chunk"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/retrievalbench/retrievalbench/datasets"
)

// Loader loads one split of a dataset (datasets.SplitAll, SplitTest, …,
// SplitSmallTest) from the data pack directory dataDir; a hermetic
// dataset reads the fixtures (FixturesDir) and ignores dataDir. It is the
// one signature of every dataset in the catalogue.
type Loader func(dataDir, split string) (*datasets.Dataset, error)

// Dataset is one dataset of a family: a name and a loader.
type Dataset struct {
	Name string
	// Hermetic datasets (fixtures shipped with retrievalbench) run on any
	// machine and at every size; the others need the data pack.
	Hermetic bool
	// Load returns the dataset for a split.
	Load Loader
	// Small names the corpora (a few small repositories) that -size=small
	// runs: the dataset's test split restricted to them, labelled
	// SmallSplit. Without it (and without Pool), -size=small runs the
	// small_test split.
	Small []string
	// LoadSmallCorpora, when set, loads a split of the Small corpora alone
	// (a generator that costs time per repository skips the others); for
	// the test split it must give the tasks Load(dataDir, "test")
	// restricted to Small gives.
	LoadSmallCorpora Loader
	// Pool makes -size=small search the small_test tasks among the docs
	// judged in the whole dataset (datasets.JudgedPool): for document
	// collections too large to embed in CI.
	Pool bool
	// Chunking, when set, is how each corpus (by id) is chunked; nil is
	// chunk.DefaultOptions, the chunking the catalogue's golden files were
	// recorded with. A user's case file sets it to what a campaign uses
	// (chunk.RepoOptions plus the manifest's excludes), so that its go test
	// cells and its campaign judge the same chunks.
	Chunking func(corpus string) chunk.Options
}

// SmallSplit is the split label of what LoadSmall returns for a dataset
// with Small corpora or Pool (golden files live per split label).
const SmallSplit = "small"

// LoadSmall returns what -size=small runs of d (a data-pack dataset): the
// small_test tasks searched among the docs judged in the whole dataset
// (Pool), the test split of the Small corpora (Small), or else the
// small_test split.
func (d Dataset) LoadSmall(dataDir string) (*datasets.Dataset, error) {
	switch {
	case d.Pool:
		ds, err := d.Load(dataDir, datasets.SplitSmallTest)
		if err != nil {
			return nil, err
		}
		all, err := d.Load(dataDir, datasets.SplitAll)
		if err != nil {
			return nil, err
		}
		return datasets.JudgedPool(ds, all, SmallSplit)
	case d.Small == nil:
		return d.Load(dataDir, datasets.SplitSmallTest)
	}
	load := d.Load
	if d.LoadSmallCorpora != nil {
		load = d.LoadSmallCorpora
	}
	ds, err := load(dataDir, datasets.SplitTest)
	if err != nil {
		return nil, err
	}
	return datasets.Restrict(ds, d.Small, SmallSplit)
}

// Family is a named group of datasets: the Test function's name part
// ("repoqa" in TestRepoQA/…) and its datasets in order, with the size
// policy a runner reads at -size=small.
type Family struct {
	Name     string
	Datasets []Dataset
	// HeavyAtSmall lets heavy configs (Spec.Bench.Heavy) run on this family's
	// data-pack datasets at -size=small; elsewhere they run on the fixtures
	// only, and everywhere at -size=full.
	HeavyAtSmall bool
}

// Names returns every dataset's name ("family/dataset"), in the order of
// Families.
func Names() []string {
	var names []string
	for _, f := range Families() {
		for _, d := range f.Datasets {
			names = append(names, f.Name+"/"+d.Name)
		}
	}
	return names
}

// Lookup returns the dataset named "family/dataset" and its family.
func Lookup(name string) (Family, Dataset, error) {
	fam, ds, ok := strings.Cut(name, "/")
	if ok {
		for _, f := range Families() {
			if f.Name != fam {
				continue
			}
			for _, d := range f.Datasets {
				if d.Name == ds {
					return f, d, nil
				}
			}
		}
	}
	return Family{}, Dataset{}, fmt.Errorf("unknown dataset %q (known: %s)", name, strings.Join(Names(), ", "))
}

// FixturesDir is the directory of the hermetic fixtures shipped with
// retrievalbench: $RETRIEVALBENCH_FIXTURES if set, else the fixtures
// directory of the module source this package was built from (in a
// checkout, or the module cache for a user's module).
func FixturesDir() string {
	if d := os.Getenv("RETRIEVALBENCH_FIXTURES"); d != "" {
		return d
	}
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "fixtures"
	}
	return filepath.Join(filepath.Dir(file), "..", "..", "fixtures")
}
