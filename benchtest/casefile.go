package benchtest

import (
	"github.com/retrievalbench/retrievalbench/chunk"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
)

// CaseFileFamily is the family of the cells of a user's own case file: the
// name of their family and matrix.Key's Family.
const CaseFileFamily = "casefile"

// CaseFile is a family of one dataset: the case file casesFile over the
// repositories its manifest names (the format `retrievalbench campaign
// -cases FILE -repos MANIFEST` reads; datasets/cases), loaded as a
// campaign loads it, chunked as every dataset is. The dataset is named
// after the file ("my-cases" for my-cases.jsonl) and runs at every -size
// (it needs no data pack unless its manifest names data-pack
// repositories). Test runs it as any family: subtests
// system/config/dataset, golden files under the Suite's Golden.
func CaseFile(casesFile, manifest string) catalogue.Family {
	name := strings.TrimSuffix(filepath.Base(casesFile), filepath.Ext(casesFile))
	return catalogue.Family{Name: CaseFileFamily, Datasets: []catalogue.Dataset{{Name: name, Hermetic: true,
		Load: func(_, split string) (*datasets.Dataset, error) {
			cfg := cases.DefaultConfig()
			cfg.Split = split
			return cases.Load(casesFile, manifest, cfg)
		},
		Chunking: caseFileChunking(manifest)}}}
}

// caseFileChunking is how a campaign chunks the repositories of manifest
// (campaign.DefaultConfig's chunk.RepoOptions, then each entry's
// excludes), so that a case file's go test cells judge the chunks its
// campaign judges. A manifest that cannot be read chunks with
// chunk.RepoOptions; loading the case file then fails naming the problem.
func caseFileChunking(manifest string) func(string) chunk.Options {
	m, err := cases.ReadManifest(manifest)
	return func(repo string) chunk.Options {
		if err != nil {
			return chunk.RepoOptions()
		}
		return m.ChunkOptions(repo, chunk.RepoOptions())
	}
}

// TestCaseFile runs s on the user's case file of -cases over the
// repositories of -repos (CaseFile), against golden files in -golden:
//
//	go test ./bench -run 'TestCaseFile/bm25' -cases "$PWD/my/cases.jsonl" -repos "$PWD/my/repos.json" -golden "$PWD/my/golden" -create
//
// (go test runs the test binary in the package's directory: relative
// paths are relative to it). Without -cases it skips, saying how to run
// it; -cases without -repos, or a missing file, fails.
func TestCaseFile(t *testing.T, s Suite) {
	fl := s.flags()
	if fl.Cases == "" {
		t.Skip("SKIP: no -cases FILE: run your own case file's cells with: " +
			"go test " + s.Package + " -run 'TestCaseFile' -cases FILE -repos MANIFEST -golden DIR -create (absolute paths: go test runs in the package directory)")
	}
	if fl.Repos == "" {
		t.Fatalf("-cases %s needs -repos MANIFEST: the JSON file naming its repositories (docs/campaigns.md)", fl.Cases)
	}
	for flag, f := range map[string]string{"-cases": fl.Cases, "-repos": fl.Repos} {
		if _, err := os.Stat(f); err != nil {
			wd, _ := os.Getwd()
			t.Fatalf("%s %s: %v (a relative path is relative to the package directory %s, where go test runs the test binary: pass an absolute one)", flag, f, err, wd)
		}
	}
	if fl.Golden != "" {
		s.Golden = fl.Golden
	} else {
		s.Golden = filepath.Join(filepath.Dir(fl.Cases), "golden")
	}
	Test(t, s, CaseFile(fl.Cases, fl.Repos))
}
