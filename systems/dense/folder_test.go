package dense

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
)

// ExampleForModel benchmarks a model exported to a folder, which no
// manifest lists: derive it, override what the folder gets wrong, and
// hand the Spec to benchtest.Suite or harness.Run like any built-in one.
func ExampleForModel() {
	m, derived, warnings, err := models.FromDir("exports/my-code-embedder")
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range derived {
		fmt.Printf("%s = %s (%s)\n", d.Field, d.Value, d.From)
	}
	for _, w := range warnings {
		fmt.Println("warning:", w)
	}
	m.QueryPrefix = "query: " // every derived field can be overridden
	spec := ForModel(m).Spec()
	fmt.Println(spec.Name(), spec.Hash)
}

// TestForModelFolder runs the models data pack's all-mpnet-base-v2-q
// folder in place. Its bytes are the built-in mpnet-base-q's, so under
// that id its config hashes like the built-in one (shared golden files),
// and its embedder's fingerprint is the same (shared stored vectors).
func TestForModelFolder(t *testing.T) {
	dir := filepath.Join(models.ModelsPackDir(), "all-mpnet-base-v2-q")
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		testenv.Missing(t, testenv.Models, "models data pack folder "+dir+" not found (set $RETRIEVALBENCH_MODELS)")
	}
	m, _, _, err := models.FromDir(dir)
	require.NoError(t, err)
	require.Equal(t, "all-mpnet-base-v2-q", m.ID)

	same := m
	same.ID = "mpnet-base-q"
	builtin, err := ConfigByName("mpnet-base-q")
	require.NoError(t, err)
	require.Equal(t, Spec(builtin).Hash, ForModel(same).Spec().Hash, "same bytes and settings under the same id share golden files")
	require.NotEqual(t, Spec(builtin).Hash, ForModel(m).Spec().Hash, "another id is another config")

	cfg := ForModel(m)
	require.NoError(t, cfg.Validate())
	bad := cfg
	bad.Model = "other"
	require.ErrorContains(t, bad.Validate(), "Definition")

	cache := mustHave(t, builtin) // the ONNX Runtime; the model itself is read in place
	root := t.TempDir()
	linkModels(t, cache, root)
	s := cfg.Spec()
	require.Nil(t, s.Missing(root), "a folder model needs nothing fetched")
	sys, err := s.New(systems.Options{CacheDir: root})
	require.NoError(t, err)
	x := sys.(*Index)
	defer x.Close()
	ref, err := New(builtin, systems.Options{CacheDir: root, NoCache: true})
	require.NoError(t, err)
	defer ref.Close()
	require.Equal(t, ref.Embedder().Fingerprint(), x.Embedder().Fingerprint(), "the folder's bytes are the manifest's")

	c := testCorpus()
	require.NoError(t, x.Index(t.Context(), c))
	for i, hits := range searchAll(t, x) {
		if hits[0].DocID != testQueries[i].gold {
			t.Errorf("%q: top hit %s, want %s", testQueries[i].query, hits[0].DocID, testQueries[i].gold)
		}
	}
	require.Equal(t, filepath.Join(root, "dense", m.ID, "vectors.db"), x.Stats().StorePath)

	// The leaderboard's description of each: the same graph, counted
	// (MPNet-base: 108,895,872 weights without the pooler; embed/models'
	// TestParametersBuiltin derives it from the architecture), from a
	// folder and from the built-in manifest.
	want := systems.ModelInfo{ID: m.ID, Source: models.SourceFolder, Dimension: 768, Parameters: 108_895_872, Engine: systems.EngineInProcess,
		Fingerprint: m.Fingerprint(), Pooling: models.PoolMean, MaxTokens: m.MaxTokens}
	require.Equal(t, 384, m.MaxTokens, "the folder's config")
	require.Equal(t, []systems.ModelInfo{want}, x.Models())
	want.ID, want.Source = "mpnet-base-q", models.SourceBuiltin
	require.Equal(t, []systems.ModelInfo{want}, ref.Models())
}

// TestConfigsUserManifest: a model of $RETRIEVALBENCH_MODEL_MANIFEST is a
// dense config like the built-in ones, so `go test ./bench` cells, campaign
// -models and promote find it by id; its hash covers its pins.
func TestConfigsUserManifest(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"model.onnx": "graph", "tokenizer.json": "{}",
		"1_Pooling/config.json": `{"word_embedding_dimension": 16, "pooling_mode_cls_token": true}`,
	} {
		p := filepath.Join(dir, "m", filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	manifest := filepath.Join(dir, "models.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"models": [{"dir": "m", "id": "my-model"}]}`), 0o644))
	t.Setenv(models.EnvManifest, manifest)

	c, err := ConfigByName("my-model")
	require.NoError(t, err)
	require.NoError(t, c.Validate())
	cs := Configs()
	require.Equal(t, "my-model", cs[len(cs)-1].Name, "user models come after the built-in ones")
	um, err := c.model()
	require.NoError(t, err)
	require.Equal(t, models.SourceManifest, um.Source())
	h := c.Hash()

	// Another graph under the same id is another config.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m", "model.onnx"), []byte("graph 2"), 0o644))
	require.NoError(t, os.WriteFile(manifest, []byte(`{"models": [{"dir": "m", "id": "my-model"}] }`), 0o644))
	t.Setenv(models.EnvManifest, manifest+string(filepath.ListSeparator)) // a new value re-reads the manifest
	require.NotEqual(t, h, c.Hash(), "the hash keys on the files' sha256")
}
