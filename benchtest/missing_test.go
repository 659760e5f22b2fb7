package benchtest

import (
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/bm25"
)

// testFlags are this test binary's benchtest flags, as a user's module
// declares them; the child runs below parse them.
var testFlags = NewFlags(flag.CommandLine)

// envFirstRunGolden names the golden directory of the child tests; unset,
// they skip (they are run by TestFirstRunPrintsOneCommand, and as the
// shards of cmd/retrievalbench's TestShardedLeaderboard).
const envFirstRunGolden = "BENCHTEST_FIRST_RUN_GOLDEN"

func firstRunSuite(t *testing.T) Suite {
	dir := os.Getenv(envFirstRunGolden)
	if dir == "" {
		t.Skip("a child of TestFirstRunPrintsOneCommand")
	}
	var specs []systems.Spec
	for _, s := range bm25.Specs() {
		if s.Config == "porter" || s.Config == "unicode61" {
			specs = append(specs, s)
		}
	}
	return Suite{Systems: specs, Golden: dir, Flags: testFlags}
}

func TestFirstRunChildRepoQA(t *testing.T) { Test(t, firstRunSuite(t), catalogue.RepoQA()) }
func TestFirstRunChildTREC(t *testing.T)   { Test(t, firstRunSuite(t), catalogue.TREC()) }
func TestFirstRunChildCases(t *testing.T)  { Test(t, firstRunSuite(t), catalogue.Cases()) }

// TestFirstRunPrintsOneCommand runs three families of a new module (no golden
// files) in a child binary: it fails, and its last summary line is one
// command that creates every missing golden file; that command, run, writes
// them all and the next plain run passes; run again after one file is lost,
// it creates that one and leaves the others alone.
func TestFirstRunPrintsOneCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the test binary three times (-short)")
	}
	golden := t.TempDir()
	child := func(args ...string) (string, error) {
		cmd := exec.CommandContext(t.Context(), os.Args[0], args...)
		cmd.Env = append(os.Environ(), envFirstRunGolden+"="+golden)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := child("-test.run=^TestFirstRunChild", "-size=fixture")
	require.Error(t, err, "a run without golden files passed:\n%s", out)
	lines := regexp.MustCompile(`(\d+) cells of this test binary have no golden file \((\d+) in (\w+)\); create every missing one with: (.*)`).FindAllStringSubmatch(out, -1)
	require.Len(t, lines, 3, "one summary line per top-level test with missing cells:\n%s", out)
	last := lines[len(lines)-1]
	require.Equal(t, "TestFirstRunChildCases", last[3])
	cells := strings.Count(out, "create it with:")
	require.Equal(t, last[1], strconv.Itoa(cells), "the last line counts every cell that had no golden file")
	const want = `go test -run '^(TestFirstRunChildRepoQA|TestFirstRunChildTREC|TestFirstRunChildCases)$' -create -size=fixture`
	require.Equal(t, want, strings.TrimSpace(last[4]))

	// The command, as the test binary takes it.
	out, err = child("-test.run=^(TestFirstRunChildRepoQA|TestFirstRunChildTREC|TestFirstRunChildCases)$", "-create", "-size=fixture", "-test.v")
	require.NoError(t, err, "the printed command failed:\n%s", out)
	require.Equal(t, cells, strings.Count(out, "created "+golden), "every missing file created:\n%s", out)
	files := goldenFiles(t, golden)
	require.Len(t, files, cells)

	out, err = child("-test.run=^TestFirstRunChild", "-size=fixture")
	require.NoError(t, err, "the run after -create fails:\n%s", out)

	// Lose one file: -create makes it again and rewrites none of the others.
	before := map[string]time.Time{}
	for _, f := range files {
		st, err := os.Stat(f)
		require.NoError(t, err)
		before[f] = st.ModTime()
	}
	require.NoError(t, os.Remove(files[0]))
	out, err = child("-test.run=^TestFirstRunChild", "-create", "-size=fixture", "-test.v")
	require.NoError(t, err, "-create with one file missing:\n%s", out)
	require.Equal(t, 1, strings.Count(out, "created "+golden), "only the missing file is created:\n%s", out)
	for _, f := range files[1:] {
		st, err := os.Stat(f)
		require.NoError(t, err)
		require.Equal(t, before[f], st.ModTime(), "%s rewritten by -create", f)
	}
}

func goldenFiles(t *testing.T, dir string) []string {
	t.Helper()
	var files []string
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return err
	})
	require.NoError(t, err)
	return files
}
