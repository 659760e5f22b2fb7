package models

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// sha64 is a syntactically valid SHA-256 for pins no file is checked against.
var sha64 = strings.Repeat("ab", 32)

// writeExport writes a small sentence-transformers export into a new folder
// and returns it: the graph at onnx/model.onnx with external data, CLS
// pooling, Normalize, a Dense module and query/document prompts. The
// "graph" is placeholder bytes: deriving reads no weights.
func writeExport(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "My.Export v1")
	files := map[string]string{
		"onnx/model.onnx":                   "graph",
		"onnx/model.onnx_data":              "weights",
		"tokenizer.json":                    "{}",
		"config.json":                       `{"_name_or_path": "acme/coder", "model_type": "xlm-roberta", "hidden_size": 1024, "max_position_embeddings": 8194}`,
		"modules.json":                      `[{"idx":0,"name":"0","path":"","type":"sentence_transformers.models.Transformer"},{"idx":1,"name":"1","path":"1_Pooling","type":"sentence_transformers.models.Pooling"},{"idx":2,"name":"2","path":"2_Dense","type":"sentence_transformers.models.Dense"},{"idx":3,"name":"3","path":"3_Normalize","type":"sentence_transformers.models.Normalize"}]`,
		"1_Pooling/config.json":             `{"word_embedding_dimension": 1024, "pooling_mode_cls_token": true, "pooling_mode_mean_tokens": false}`,
		"config_sentence_transformers.json": `{"prompts": {"query": "Represent this query: ", "document": ""}, "default_prompt_name": null, "similarity_fn_name": "cosine"}`,
		"README.md":                         "---\nlicense: apache-2.0\ntags: [x]\n---\n# card\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func TestFromDir(t *testing.T) {
	dir := writeExport(t)
	m, derived, warns, err := FromDir(dir)
	require.NoError(t, err)
	got := map[string]string{}
	for _, d := range derived {
		got[d.Field] = d.Value + " ← " + d.From
	}
	want := map[string]string{
		"id":                    "my-export-v1 ← the folder's name",
		"files.model.onnx":      "onnx/model.onnx ← found in the folder",
		"files.model.onnx_data": "onnx/model.onnx_data ← external data next to the graph",
		"files.tokenizer.json":  "tokenizer.json ← found in the folder",
		"pooling":               "cls ← 1_Pooling/config.json: pooling_mode_cls_token",
		"dimension":             "1024 ← 1_Pooling/config.json: word_embedding_dimension",
		// No sentence_bert_config.json: config.json's positions, less the two
		// an XLM-R model never gives a token.
		"max_tokens":     "8192 ← config.json: max_position_embeddings − 2 (xlm-roberta positions start after the padding id)",
		"query_prefix":   `"Represent this query: " ← config_sentence_transformers.json: prompts.query`,
		"passage_prefix": `"" ← config_sentence_transformers.json: prompts.document`,
		"licence":        "apache-2.0 ← README.md: license",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("derived fields (-want +got):\n%s", diff)
	}
	if len(warns) != 1 || !strings.Contains(warns[0], "Dense") {
		t.Errorf("warnings %q, want one about the Dense module the ONNX graph lacks", warns)
	}
	require.True(t, m.InPlace())
	require.Equal(t, filepath.Join(dir, "onnx", "model.onnx"), m.Path("/cache", ModelFile), "the graph is read in place")
	require.Equal(t, filepath.Join(dir, "onnx", "model.onnx_data"), m.Path("/cache", DataFile))
	f, _ := m.File(DataFile)
	sum := sha256.Sum256([]byte("weights"))
	require.Equal(t, hex.EncodeToString(sum[:]), f.SHA256, "the external data is pinned too")
	require.Equal(t, int64(len("weights")), f.Size)
	require.NoError(t, m.check(true), "a derived model is a valid user model")
	require.NoError(t, Verify("/cache", m), "pins computed from the folder verify against it")

	// Changing a file after pinning is caught, naming the folder and the fix.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"x":1}`), 0o644))
	err = Verify("/cache", m)
	require.ErrorIs(t, err, ErrCorrupt)
	require.ErrorContains(t, err, "models add '"+dir+"'", "the fix quotes the folder's space for the shell")
}

// TestFromDirDecoder: a decoder embedder's export (last-token pooling,
// left padding in tokenizer_config.json) is derived as such.
func TestFromDirDecoder(t *testing.T) {
	dir := writeExport(t)
	writeFile(t, dir, "1_Pooling/config.json", `{"word_embedding_dimension": 1024, "pooling_mode_lasttoken": true}`)
	writeFile(t, dir, "tokenizer_config.json", `{"padding_side": "left", "model_max_length": 32768}`)
	m, _, _, err := FromDir(dir)
	require.NoError(t, err)
	require.Equal(t, PoolLastToken, m.Pooling)
	require.Equal(t, PadLeft, m.PaddingSide)
	require.Equal(t, []string{"padding_side=left"}, m.Settings(), "settings beyond the common fields key hashes and stores")
	require.True(t, m.Normalized())
}

func TestFromDirErrors(t *testing.T) {
	for _, tc := range []struct {
		name, reason, remove, write, body, want string
	}{
		{name: "no-graph", reason: "a folder without a graph names the .onnx files it has",
			remove: "onnx/model.onnx", write: "onnx/model_quantized.onnx", body: "q", want: "found: onnx/model_quantized.onnx"},
		{name: "no-tokenizer", reason: "only tokenizer.json is read",
			remove: "tokenizer.json", want: "no tokenizer.json"},
		{name: "max-pooling", reason: "a pooling the suite does not run is an error, not a silent mean",
			write: "1_Pooling/config.json", body: `{"word_embedding_dimension": 8, "pooling_mode_max_tokens": true}`, want: "max true"},
		{name: "bad-json", reason: "a broken config file is a file:line error",
			write: "modules.json", body: "[\n{\"path\": 1}\n]", want: "modules.json:2:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := writeExport(t)
			if tc.remove != "" {
				require.NoError(t, os.Remove(filepath.Join(dir, filepath.FromSlash(tc.remove))))
			}
			if tc.write != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dir, filepath.FromSlash(tc.write)), []byte(tc.body), 0o644))
			}
			_, _, _, err := FromDir(dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("FromDir: %v, want an error containing %q (%s)", err, tc.want, tc.reason)
			}
		})
	}
}

// TestFromDirDataPack reads the models data pack's all-mpnet-base-v2-q, a
// real sentence-transformers export, and finds what the embedded manifest
// says of mpnet-base-q by hand: the same pins, dimension, pooling and max
// tokens. With the same id its dense config hashes equally, so a folder
// and the manifest entry share golden files and vector stores.
func TestFromDirDataPack(t *testing.T) {
	dir := filepath.Join(ModelsPackDir(), "all-mpnet-base-v2-q")
	if _, err := os.Stat(filepath.Join(dir, "model.onnx")); err != nil {
		testenv.Missing(t, testenv.Models, "models data pack folder "+dir+" not found (set $RETRIEVALBENCH_MODELS)")
	}
	m, _, _, err := FromDir(dir)
	require.NoError(t, err)
	want, err := Lookup("mpnet-base-q")
	require.NoError(t, err)
	if m.Dimension != want.Dimension || m.Pooling != want.Pooling || m.MaxTokens != want.MaxTokens ||
		m.QueryPrefix != want.QueryPrefix || m.PassagePrefix != want.PassagePrefix {
		t.Errorf("derived dim %d pooling %s max %d prefixes %q/%q; the manifest says %d %s %d %q/%q",
			m.Dimension, m.Pooling, m.MaxTokens, m.QueryPrefix, m.PassagePrefix,
			want.Dimension, want.Pooling, want.MaxTokens, want.QueryPrefix, want.PassagePrefix)
	}
	strip := func(fs []File) []File {
		out := append([]File(nil), fs...)
		for i := range out {
			out[i].Path = ""
		}
		return out
	}
	if diff := cmp.Diff(want.Files, strip(m.Files)); diff != "" {
		t.Errorf("files (-manifest +folder):\n%s", diff)
	}
	require.Equal(t, want.Fingerprint(), m.Fingerprint())
}

func writeFile(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

const hubModel = `{
  "models": [
    {
      "id": "my-hub-model",
      "name": "a model fetched like the built-in ones",
      "model_card": "card",
      "licence": "MIT",
      "dimension": 8,
      "pooling": "cls",
      "max_tokens": 16,
      "query_prefix": "q: ",
      "passage_prefix": "",
      "files": [
        {"name": "model.onnx", "sha256": "` + "SHA" + `", "size": 5},
        {"name": "tokenizer.json", "sha256": "` + "SHA" + `", "size": 2}
      ],
      "sources": [{"kind": "huggingface", "repo": "acme/m", "revision": "abc", "paths": {"model.onnx": "onnx/model.onnx", "tokenizer.json": "tokenizer.json"}}]
    },
    {
      "dir": "exports/My.Export v1",
      "id": "my-export",
      "pooling": "mean",
      "max_tokens": 512
    }
  ]
}
`

func TestLoadCatalog(t *testing.T) {
	root := t.TempDir()
	export := writeExport(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "exports"), 0o755))
	require.NoError(t, os.Rename(export, filepath.Join(root, "exports", "My.Export v1")))
	user := writeFile(t, root, "models.json", strings.ReplaceAll(hubModel, "SHA", sha64))

	c, err := LoadCatalog(user)
	require.NoError(t, err)
	ids := c.IDs()
	if diff := cmp.Diff([]string{"my-hub-model", "my-export"}, ids[len(ids)-2:]); diff != "" {
		t.Errorf("user ids come after the built-in ones (-want +got):\n%s", diff)
	}
	require.Equal(t, IDs(), ids[:len(IDs())], "built-in models first, in manifest order")
	require.Equal(t, user+":3", c.Where("my-hub-model"))
	require.Equal(t, user+":19", c.Where("my-export"))
	require.Equal(t, ManifestName, c.Where("minilm-l6-q"))

	m, err := c.Lookup("my-export")
	require.NoError(t, err)
	// The entry's keys win over the folder's: mean over cls, 512 over 8192;
	// what it does not say is derived (the query prompt, the dimension).
	if m.Pooling != PoolMean || m.MaxTokens != 512 || m.Dimension != 1024 || m.QueryPrefix != "Represent this query: " || m.Licence != "apache-2.0" {
		t.Errorf("my-export: pooling %s max %d dim %d query %q licence %q", m.Pooling, m.MaxTokens, m.Dimension, m.QueryPrefix, m.Licence)
	}
	require.Equal(t, filepath.Join(root, "exports", "My.Export v1"), m.Dir, "a relative dir is relative to the manifest")
	require.Equal(t, user, m.Origin)

	_, err = c.Lookup("nope")
	require.ErrorIs(t, err, ErrUnknownModel)

	// The environment variable makes Lookup see the user's models.
	t.Setenv(EnvManifest, user)
	hub, err := Lookup("my-hub-model")
	require.NoError(t, err)
	require.Equal(t, "q: ", hub.QueryPrefix)
	require.Equal(t, "/c/models/my-hub-model/model.onnx", hub.Path("/c", ModelFile), "a fetched user model lives in the cache")
	t.Setenv(EnvManifest, "")
	_, err = Lookup("my-hub-model")
	require.ErrorIs(t, err, ErrUnknownModel, "Default follows the variable")
}

func TestLoadCatalogErrors(t *testing.T) {
	entry := func(id string) string {
		return `{"id": "` + id + `", "name": "n", "model_card": "c", "licence": "MIT", "dimension": 8, "pooling": "cls", "max_tokens": 16,
  "query_prefix": "", "passage_prefix": "",
  "files": [{"name": "model.onnx", "sha256": "` + sha64 + `", "size": 5}, {"name": "tokenizer.json", "sha256": "` + sha64 + `", "size": 2}],
  "sources": [{"kind": "huggingface", "repo": "a/b", "revision": "r", "paths": {"model.onnx": "m.onnx", "tokenizer.json": "t.json"}}]}`
	}
	for _, tc := range []struct {
		name, reason, body, other, want string
	}{
		{name: "clash-builtin", reason: "a user id may not shadow a built-in model",
			body: "{\"models\": [\n" + entry("minilm-l6-q") + "\n]}", want: "models.json:2: model 1: id \"minilm-l6-q\" is already taken by embed/models/manifest.json"},
		{name: "clash-user", reason: "two user manifests may not define one id",
			other: "{\"models\": [\n\n" + entry("mine") + "]}",
			body:  "{\"models\": [\n" + entry("mine") + "\n]}", want: "models.json:2: model 1: id \"mine\" is already taken by "},
		{name: "syntax", reason: "a JSON syntax error names its line",
			body: "{\"models\": [\n{\"id\": \"x\",\n\"dimension\": 8,,\n}]}", want: "models.json:3:"},
		{name: "unknown-field", reason: "a misspelt key is an error at its line",
			body: "{\"models\": [\n{\"id\": \"x\",\n\"dimensions\": 8}\n]}", want: "models.json:3: unknown field \"dimensions\""},
		{name: "type", reason: "a wrong type names its line",
			body: "{\"models\": [\n{\"id\": \"x\",\n\"dimension\": \"8\"}\n]}", want: "models.json:3:"},
		{name: "invalid", reason: "a model that fails validation names its entry",
			body: "{\"models\": [\n\n" + strings.Replace(entry("x"), `"cls"`, `"max"`, 1) + "]}", want: "models.json:3: model 1 (\"x\"): pooling \"max\""},
		{name: "runtime", reason: "the ONNX Runtime pin is the suite's",
			body: "{\n\"onnxruntime\": {},\n\"models\": []}", want: "models.json:2: onnxruntime"},
		{name: "hidden-size", reason: "Matryoshka truncation needs a wider graph output than the vector",
			body: "{\"models\": [\n" + strings.Replace(entry("x"), `"dimension": 8`, `"dimension": 8, "hidden_size": 8`, 1) + "]}", want: "hidden_size 8 must be larger than dimension 8"},
		{name: "padding-side", reason: "padding is left or right",
			body: "{\"models\": [\n" + strings.Replace(entry("x"), `"dimension": 8`, `"dimension": 8, "padding_side": "middle"`, 1) + "]}", want: `padding_side "middle"`},
		{name: "dir-missing", reason: "a dir that is not there says so",
			body: "{\"models\": [{\"dir\": \"nowhere\"}]}", want: "nowhere: not a directory"},
		{name: "static", reason: "user manifests hold ONNX models",
			body: "{\"models\": [\n" + strings.Replace(entry("x"), `"id"`, `"kind": "static", "id"`, 1) + "]}", want: "a user manifest holds ONNX models"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			if tc.other != "" {
				paths = append(paths, writeFile(t, dir, "other.json", tc.other))
			}
			paths = append(paths, writeFile(t, dir, "models.json", tc.body))
			_, err := LoadCatalog(paths...)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("LoadCatalog: %v\nwant an error containing %q (%s)", err, tc.want, tc.reason)
			}
			filelinetest.Want(t, err, tc.want)
			if tc.name == "clash-user" {
				require.ErrorContains(t, err, "other.json:3")
			}
		})
	}
	// Default wraps the error with the variable's name.
	t.Setenv(EnvManifest, writeFile(t, t.TempDir(), "broken.json", "{"))
	_, err := Lookup("minilm-l6-q")
	require.Error(t, err)
	require.ErrorContains(t, err, EnvManifest)
	require.False(t, errors.Is(err, ErrUnknownModel))
}
