package bench

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/builtin"
)

var flags = benchtest.NewFlags(flag.CommandLine)

const goldenDir = "../golden"

// suite is this repository's benchmark: every built-in system, gated by the
// golden files under golden/.
func suite() benchtest.Suite {
	return benchtest.Suite{Systems: specs(), Golden: goldenDir, Flags: flags, Package: "./bench"}
}

func specs() []systems.Spec { return builtin.Specs() }

// One line per family. Adding a family is adding its lines.
func TestRepoQA(t *testing.T)  { benchtest.Test(t, suite(), benchtest.RepoQA()) }
func TestSWEQA(t *testing.T)   { benchtest.Test(t, suite(), benchtest.SWEQA()) }
func TestCodeRAG(t *testing.T) { benchtest.Test(t, suite(), benchtest.CodeRAG()) }
func TestCoSQA(t *testing.T)   { benchtest.Test(t, suite(), benchtest.CoSQA()) }
func TestTREC(t *testing.T)    { benchtest.Test(t, suite(), benchtest.TREC()) }
func TestBEIR(t *testing.T)    { benchtest.Test(t, suite(), benchtest.BEIR()) }
func TestCases(t *testing.T)   { benchtest.Test(t, suite(), benchtest.Cases()) }

func BenchmarkRepoQA(b *testing.B)  { benchtest.Benchmark(b, suite(), benchtest.RepoQA()) }
func BenchmarkSWEQA(b *testing.B)   { benchtest.Benchmark(b, suite(), benchtest.SWEQA()) }
func BenchmarkCodeRAG(b *testing.B) { benchtest.Benchmark(b, suite(), benchtest.CodeRAG()) }
func BenchmarkCoSQA(b *testing.B)   { benchtest.Benchmark(b, suite(), benchtest.CoSQA()) }
func BenchmarkTREC(b *testing.B)    { benchtest.Benchmark(b, suite(), benchtest.TREC()) }
func BenchmarkBEIR(b *testing.B)    { benchtest.Benchmark(b, suite(), benchtest.BEIR()) }
func BenchmarkCases(b *testing.B)   { benchtest.Benchmark(b, suite(), benchtest.Cases()) }

// TestMain fails a whole-suite run (no -run, no -bench, no -update) that
// leaves golden files no cell read: a renamed or removed config, or a
// dataset cell that no longer exists, must take its baseline with it.
func TestMain(m *testing.M) {
	code := m.Run()
	if code != 0 || flags.Update || flag.Lookup("test.run").Value.String() != "" || flag.Lookup("test.bench").Value.String() != "" || testing.Short() {
		os.Exit(code)
	}
	orphans, err := benchtest.Orphans(goldenDir, specs())
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench: checking golden files:", err)
		os.Exit(1)
	}
	if len(orphans) > 0 {
		fmt.Fprintf(os.Stderr, "bench: %d golden files that no cell of this run read (delete them, or restore their cells):\n", len(orphans))
		for _, o := range orphans {
			fmt.Fprintln(os.Stderr, "  "+o)
		}
		fmt.Println("FAIL")
		os.Exit(1)
	}
	os.Exit(code)
}
