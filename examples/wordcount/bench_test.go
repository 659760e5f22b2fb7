package wordcount

import (
	"flag"
	"testing"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
)

var flags = benchtest.NewFlags(flag.CommandLine)

// suite measures wordcount next to retrievalbench's BM25, on the hermetic
// fixtures, against this module's own golden files.
func suite() benchtest.Suite {
	specs := []systems.Spec{Spec()}
	for _, s := range bm25.Specs() {
		if s.Config == "porter" {
			specs = append(specs, s)
		}
	}
	return benchtest.Suite{Systems: specs, Golden: "testdata/golden", Flags: flags}
}

func TestRepoQA(t *testing.T) { benchtest.Test(t, suite(), catalogue.RepoQA()) }
func TestTREC(t *testing.T)   { benchtest.Test(t, suite(), catalogue.TREC()) }
func TestCases(t *testing.T)  { benchtest.Test(t, suite(), catalogue.Cases()) }

func BenchmarkRepoQA(b *testing.B) { benchtest.Benchmark(b, suite(), catalogue.RepoQA()) }
