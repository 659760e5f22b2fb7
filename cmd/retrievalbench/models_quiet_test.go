package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// placeholderGraph is the smallest complete ONNX ModelProto: ir_version 8
// (field 1) and an empty graph (field 7).
const placeholderGraph = "\x08\x08\x3a\x00"

// realGraph is a real model.onnx of the cache (minilm-l3, 69 MB), or a
// loud skip.
func realGraph(t *testing.T) string {
	t.Helper()
	p := filepath.Join(testenv.CacheDir(), "models", "minilm-l3", "model.onnx")
	if _, err := os.Stat(p); err != nil {
		testenv.Missing(t, "models", "minilm-l3's model.onnx is not in the cache (make setup): "+err.Error())
	}
	return p
}

// TestCheckONNX: a real graph is a complete ModelProto; the same file cut
// anywhere after its header is not, and says so.
func TestCheckONNX(t *testing.T) {
	real := realGraph(t)
	require.NoError(t, checkONNX(real))
	data, err := os.ReadFile(real)
	require.NoError(t, err)
	for _, cut := range []int{len(data) / 2, len(data) - 1, 100} {
		p := filepath.Join(t.TempDir(), "model.onnx")
		require.NoError(t, os.WriteFile(p, data[:cut], 0o644))
		err := checkONNX(p)
		require.Error(t, err, "cut at %d of %d bytes", cut, len(data))
		require.ErrorContains(t, err, p+": not a complete ONNX model")
	}
	p := filepath.Join(t.TempDir(), "model.onnx")
	require.NoError(t, os.WriteFile(p, []byte("<html>404</html>"), 0o644))
	require.Error(t, checkONNX(p), "an HTML error page saved as model.onnx")
}

// TestModelsAddTruncatedGraph: `models add` refuses a folder whose
// model.onnx was cut short, naming the file, and writes no manifest
// (issue 39 item 10: it exited 0 and the error came at the first embed).
func TestModelsAddTruncatedGraph(t *testing.T) {
	t.Setenv(models.EnvManifest, "")
	data, err := os.ReadFile(realGraph(t))
	require.NoError(t, err)
	root := t.TempDir()
	dir := writeFolder(t, root)
	graph := filepath.Join(dir, "onnx", "model.onnx")
	require.NoError(t, os.WriteFile(graph, data[:len(data)*3/4], 0o644))
	manifest := filepath.Join(root, "models.json")
	var out, errb bytes.Buffer
	err = run([]string{"models", "add", "-model-manifest", manifest, dir}, &out, &errb)
	require.Error(t, err)
	require.NotEqual(t, 0, exitCode(err))
	require.ErrorContains(t, err, graph+": not a complete ONNX model")
	require.ErrorContains(t, err, "cut short")
	require.NoFileExists(t, manifest)
}

// TestModelsRepinFix: the fix printed for a folder whose files changed
// after pinning is the exact command, and running it pins the entry again
// in its manifest, keeping the fields the first add set (issue 39 item
// 10: it omitted -model-manifest, so running it re-pinned nothing).
func TestModelsRepinFix(t *testing.T) {
	t.Setenv(models.EnvManifest, "")
	root := t.TempDir()
	dir := writeFolder(t, root)
	manifest := filepath.Join(root, "models.json")
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"models", "add", "-model-manifest", manifest, "-id", "mine", "-pooling", "cls", dir}, &out, &errb), errb.String())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"v": 2}`), 0o644))
	cache := t.TempDir()
	err := run([]string{"models", "fetch", "-cache", cache, "-model-manifest", manifest, "mine"}, &out, &errb)
	require.Error(t, err)
	want := "retrievalbench models add -model-manifest " + manifest + " -repin -id mine " + dir
	require.ErrorContains(t, err, "`"+want+"`")

	// Run the printed command as printed.
	out.Reset()
	require.NoError(t, run(strings.Fields(strings.TrimPrefix(want, "retrievalbench ")), &out, &errb), errb.String())
	require.Contains(t, out.String(), "files of mine pinned again in "+manifest)
	// The pins match the folder again (read afresh: this process's
	// catalog of the same $RETRIEVALBENCH_MODEL_MANIFEST is cached).
	cat, err := models.LoadCatalog(manifest)
	require.NoError(t, err)
	m, err := cat.Lookup("mine")
	require.NoError(t, err)
	require.NoError(t, models.Verify(cache, m), "the pins match the folder again")
	var written struct{ Models []manifestEntry }
	data, err := os.ReadFile(manifest)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &written))
	require.Len(t, written.Models, 1, "re-pinned in place, not added")
	require.Equal(t, "cls", written.Models[0].Pooling, "the first add's -pooling is kept")

	// -repin of an id the manifest lacks, or without a manifest, says so.
	err = run([]string{"models", "add", "-model-manifest", manifest, "-repin", "-id", "other", dir}, &out, &errb)
	require.ErrorContains(t, err, `has no entry "other" to pin again`)
	err = run([]string{"models", "add", "-repin", dir}, &out, &errb)
	require.ErrorContains(t, err, "-repin rewrites an entry of -model-manifest")
}

// TestModelManifestErrorNamesTheFlag: a broken manifest given with
// -model-manifest is named as the flag's, not as the variable's (issue 39
// item 10: "(from $RETRIEVALBENCH_MODEL_MANIFEST)" was printed when the
// flag was used); given with the variable, the variable is named.
func TestModelManifestErrorNamesTheFlag(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"models\": [\n  {\"id\": \"x\", \"pooling\": \"cls\",\n   \"dimenson\": 8}\n]}\n"), 0o644))
	t.Setenv(models.EnvManifest, "")
	var out, errb bytes.Buffer
	err := run([]string{"models", "list", "-model-manifest", bad}, &out, &errb)
	require.ErrorContains(t, err, "(from -model-manifest "+bad+")")
	require.NotContains(t, err.Error(), "$"+models.EnvManifest)
	t.Setenv(models.EnvManifest, bad)
	err = run([]string{"models", "list"}, &out, &errb)
	require.ErrorContains(t, err, "(from $"+models.EnvManifest+")")
}

// TestModelsAddDimensionSource: a folder whose 1_Pooling/config.json says
// 768 around a graph 384 wide (minilm-l3's) is refused at add time, naming
// the graph's width and the real source of 768 (issue 39 item 10: the
// first embed said "manifest says 768"); with -dimension 384 it is added.
func TestModelsAddDimensionSource(t *testing.T) {
	t.Setenv(models.EnvManifest, "")
	real := realGraph(t)
	outs, err := readONNX(real)
	require.NoError(t, err)
	name, w := graphWidth(outs, "")
	require.Equal(t, int64(384), w, "minilm-l3's %s width (outputs %v)", name, outs)

	dir := writeFolder(t, t.TempDir())
	require.NoError(t, os.Remove(filepath.Join(dir, "onnx", "model.onnx")))
	require.NoError(t, os.Symlink(real, filepath.Join(dir, "onnx", "model.onnx")))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "1_Pooling", "config.json"), []byte(`{"word_embedding_dimension": 768, "pooling_mode_mean_tokens": true}`), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.json"), []byte(`{"model_type": "bert", "hidden_size": 768, "max_position_embeddings": 512}`), 0o644))
	var out, errb bytes.Buffer
	err = run([]string{"models", "add", dir}, &out, &errb)
	require.Error(t, err)
	require.ErrorContains(t, err, "has width 384, but dimension is 768 (from 1_Pooling/config.json: word_embedding_dimension); give -dimension 384")
	require.NotContains(t, err.Error(), "manifest says")
	require.NoError(t, run([]string{"models", "add", "-dimension", "384", dir}, &out, &errb), errb.String())
}
