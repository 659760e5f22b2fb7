package benchtest

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

// envUnsupportedGolden names the golden directory of the unsupported
// child runs; unset, they skip (TestUnsupportedSkipsByDesign runs them).
const envUnsupportedGolden = "BENCHTEST_UNSUPPORTED_GOLDEN"

// unsupportedSuite is one peer whose only cell on TREC is unsupported: its
// Only names RepoQA alone, it is not installed, and building it fails, so
// the cell passes only by skipping before any of that is asked.
func unsupportedSuite(t testing.TB) Suite {
	dir := os.Getenv(envUnsupportedGolden)
	if dir == "" {
		t.Skip("a child of TestUnsupportedSkipsByDesign")
	}
	spec := systems.Spec{
		System: "peer", Config: "nolang", Hash: "h",
		Requires: func(string) *systems.Requirement {
			return &systems.Requirement{Kind: systems.NeedsPeer, Reason: "peer is not installed"}
		},
		New: func(systems.Options) (systems.System, error) { return nil, errors.New("the unsupported cell ran") },
		Bench: systems.Schedule{
			Only:        []string{"repoqa/*"},
			Unsupported: []systems.Unsupported{{Datasets: "trec/fix*", Reason: "reads no TREC documents (its docs say so)"}},
		},
	}
	return Suite{Systems: []systems.Spec{spec}, Golden: dir, Flags: testFlags}
}

func TestUnsupportedChild(t *testing.T)      { Test(t, unsupportedSuite(t), catalogue.TREC()) }
func BenchmarkUnsupportedChild(b *testing.B) { Benchmark(b, unsupportedSuite(b), catalogue.TREC()) }

// TestUnsupportedSkipsByDesign runs a peer's unsupported cell as go test
// and as a benchmark in a child binary that requires everything: the cell
// exists (onFamily keeps a spec whose Only misses the family), skips with
// "SKIP (unsupported): <system/config> <reason>", and neither fails the
// run (RETRIEVALBENCH_REQUIRE is about what a machine lacks) nor runs,
// builds or asks for the peer, nor leaves a cell without its golden file.
func TestUnsupportedSkipsByDesign(t *testing.T) {
	golden := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestUnsupportedChild$", "-test.bench=^BenchmarkUnsupportedChild$",
		"-test.benchtime=1x", "-test.v", "-size=fixture")
	cmd.Env = append(os.Environ(), envUnsupportedGolden+"="+golden, testenv.EnvRequire+"=all")
	b, err := cmd.CombinedOutput()
	out := string(b)
	require.NoError(t, err, "an unsupported cell failed the run:\n%s", out)
	const why = "SKIP (unsupported): peer/nolang reads no TREC documents (its docs say so)"
	for _, want := range []string{
		"--- SKIP: TestUnsupportedChild/peer/nolang/fixture",
		"--- SKIP: BenchmarkUnsupportedChild/system=peer/config=nolang/dataset=fixture",
	} {
		require.Contains(t, out, want, "the cell exists and skips")
	}
	require.Equal(t, 2, strings.Count(out, why), "the test's and the benchmark's skip each give the reason:\n%s", out)
	for _, never := range []string{"the unsupported cell ran", "peer is not installed", "no golden file"} {
		require.NotContains(t, out, never, "an unsupported cell builds nothing, needs nothing and has no baseline")
	}
	require.Empty(t, goldenFiles(t, golden))
}
