package bench

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// TestCacheRestore shows a cache restored elsewhere (as a CI cache is,
// docs/sharding.md) reused without rebuilding: a child run of the RepoQA
// fixture cells of BM25 porter and dense minilm-l6-q builds the index and
// embeds every chunk into a fresh cache; the cache is copied to another
// path and the first removed; a second child run on the copy reuses the
// BM25 index and embeds nothing (the vectors come from the store). The
// entries are named by content hashes, not paths, so the copy is as good.
func TestCacheRestore(t *testing.T) {
	if testing.Short() {
		t.Skip("runs this test binary twice (-short)")
	}
	real := testenv.CacheDir()
	for _, s := range specs() {
		if s.System == "dense" && s.Config == "minilm-l6-q" {
			if r := s.Missing(real); r != nil {
				testenv.Missing(t, r.Kind, r.Reason)
			}
		}
	}
	first := filepath.Join(t.TempDir(), "cache")
	require.NoError(t, os.MkdirAll(first, 0o755))
	// ONNX Runtime, the models and the tokenizer come from the real cache: what a CI
	// setup cache restores.
	for _, d := range []string{"onnxruntime", "models", "tokenizers"} {
		require.NoError(t, os.Symlink(filepath.Join(real, d), filepath.Join(first, d)))
	}
	child := func(dir string) string {
		cmd := exec.CommandContext(t.Context(), os.Args[0],
			"-test.run=^TestRepoQA$/^(bm25|dense)$/^(porter|minilm-l6-q)$/^fixture$", "-size=fixture", "-test.v")
		cmd.Env = append(os.Environ(), cache.EnvDir+"="+dir, "RETRIEVALBENCH_RESULTS=")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	out := child(first)
	require.Regexp(t, `bm25\[porter\]: \S+: building `, out, "a fresh cache builds the BM25 index")
	require.Regexp(t, `dense\[minilm-l6-q\]: \S+: (\d+) docs \((\d+) embedded`, out)
	require.NotRegexp(t, `dense\[minilm-l6-q\]: \S+: \d+ docs \(0 embedded`, out, "a fresh cache embeds")

	restored := filepath.Join(t.TempDir(), "restored")
	cp := exec.CommandContext(t.Context(), "cp", "-a", first, restored)
	b, err := cp.CombinedOutput()
	require.NoError(t, err, "%s", b)
	require.NoError(t, os.RemoveAll(first))

	out = child(restored)
	require.Regexp(t, `bm25\[porter\]: \S+: reusing `+regexp.QuoteMeta(restored), out, "the restored BM25 index is reused")
	require.NotContains(t, out, "building ")
	m := regexp.MustCompile(`dense\[minilm-l6-q\]: \S+: (\d+) docs \((\d+) embedded at [\d.]+ docs/s, \d+ truncated, (\d+) from the store\)`).FindAllStringSubmatch(out, -1)
	require.NotEmpty(t, m, "%s", out)
	for _, g := range m {
		require.Equal(t, "0", g[2], "embedded after the restore: %s", g[0])
		require.Equal(t, g[1], g[3], "every doc from the restored store: %s", g[0])
		t.Log(g[0])
	}
}
