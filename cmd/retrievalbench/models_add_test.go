package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

// writeFolder writes a small sentence-transformers export (a placeholder
// graph: a complete ModelProto of ir_version 8 and an empty graph, as
// deriving reads no weights) under root/exports/coder.
func writeFolder(t *testing.T, root string) string {
	t.Helper()
	dir := filepath.Join(root, "exports", "coder")
	for name, body := range map[string]string{
		"onnx/model.onnx":                   placeholderGraph,
		"tokenizer.json":                    "{}",
		"config.json":                       `{"model_type": "bert", "hidden_size": 16, "max_position_embeddings": 512}`,
		"modules.json":                      `[{"path": "", "type": "sentence_transformers.models.Transformer"}, {"path": "1_Pooling", "type": "sentence_transformers.models.Pooling"}, {"path": "2_Normalize", "type": "sentence_transformers.models.Normalize"}]`,
		"1_Pooling/config.json":             `{"word_embedding_dimension": 16, "pooling_mode_mean_tokens": true}`,
		"sentence_bert_config.json":         `{"max_seq_length": 128}`,
		"config_sentence_transformers.json": `{"prompts": {"query": "query: ", "passage": "passage: "}}`,
	} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	return dir
}

func TestModelsAdd(t *testing.T) {
	t.Setenv(models.EnvManifest, "") // restored after: the flag sets it for the process
	root := t.TempDir()
	dir := writeFolder(t, root)
	manifest := filepath.Join(root, "models.json")

	// Without a manifest: what was derived, from where, and the pins.
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"models", "add", dir}, &out, &errb), errb.String())
	for _, want := range []string{
		"model coder, read in place from " + dir,
		"pooling mean 1_Pooling/config.json: pooling_mode_mean_tokens",
		"max_tokens 128 sentence_bert_config.json: max_seq_length",
		`query_prefix "query: " config_sentence_transformers.json: prompts.query`,
		// sha256(placeholderGraph) and sha256("{}")
		"model.onnx onnx/model.onnx 4 52df48736cbdce52053acbe2ccb7d75b16d5b35c9828f3e9d2943223fdf0d2fd",
		"tokenizer.json tokenizer.json 2 44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a",
		"not written anywhere",
	} {
		if !strings.Contains(strings.Join(strings.Fields(out.String()), " "), want) {
			t.Errorf("models add output lacks %q:\n%s", want, out.String())
		}
	}
	require.NoFileExists(t, manifest)

	// With one: written, overrides marked as the flag's, dir relative to
	// the manifest.
	out.Reset()
	require.NoError(t, run([]string{"models", "add", "-model-manifest", manifest, "-id", "mine", "-pooling", "cls", dir}, &out, &errb), errb.String())
	require.Contains(t, strings.Join(strings.Fields(out.String()), " "), "pooling cls -pooling", "an override names its flag")
	var written struct{ Models []manifestEntry }
	data, err := os.ReadFile(manifest)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &written))
	require.Len(t, written.Models, 1)
	e := written.Models[0]
	if e.ID != "mine" || e.Dir != "exports/coder" || e.Pooling != "cls" || e.Dimension != 16 || e.PassagePrefix != "passage: " || len(e.Files) != 2 {
		t.Errorf("written entry %+v", e)
	}

	// A smaller dimension is a Matryoshka truncation of the graph's width.
	out.Reset()
	require.NoError(t, run([]string{"models", "add", "-json", "-id", "small", "-dimension", "8", "-padding-side", "left", dir}, &out, &errb), errb.String())
	var small manifestEntry
	require.NoError(t, json.Unmarshal(out.Bytes(), &small))
	if small.Dimension != 8 || small.HiddenSize != 16 || small.PaddingSide != "left" {
		t.Errorf("-dimension 8 -padding-side left: %+v", small)
	}

	// The same id twice is refused; the file is left as it was.
	err = run([]string{"models", "add", "-model-manifest", manifest, "-id", "mine", dir}, &out, &errb)
	require.ErrorContains(t, err, `id "mine" is already taken`)
	after, _ := os.ReadFile(manifest)
	require.Equal(t, string(data), string(after))
	// So is a built-in id.
	require.ErrorContains(t, run([]string{"models", "add", "-id", "bge-small-q", dir}, &out, &errb), "already taken by embed/models/manifest.json")

	// list and fetch see it; fetch checks the pins in place.
	out.Reset()
	require.NoError(t, run([]string{"models", "list", "-json", "-cache", t.TempDir(), "-model-manifest", manifest}, &out, &errb))
	var got []modelInfo
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	last := got[len(got)-1]
	if last.ID != "mine" || last.Status != "ok" || last.InPlace != dir || last.DescribedIn != manifest+":3" {
		t.Errorf("listed %+v", last)
	}
	out.Reset()
	require.NoError(t, run([]string{"models", "fetch", "-cache", t.TempDir(), "-model-manifest", manifest, "mine"}, &out, &errb))
	require.Equal(t, "mine: read in place from "+dir+" (nothing to fetch)\n", out.String())

	// A changed folder fails the pins, naming the fix.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tokenizer.json"), []byte(`{"v": 2}`), 0o644))
	err = run([]string{"models", "fetch", "-model-manifest", manifest, "mine"}, &out, &errb)
	require.ErrorContains(t, err, "models add -model-manifest "+manifest+" -repin -id mine "+dir)
}

func TestModelManifestErrors(t *testing.T) {
	t.Setenv(models.EnvManifest, "")
	bad := filepath.Join(t.TempDir(), "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\"models\": [\n  {\"id\": \"x\", \"pooling\": \"cls\",\n   \"dimenson\": 8}\n]}\n"), 0o644))
	for _, args := range [][]string{
		{"embed", "-model-manifest", bad, "-model", "x"},
		{"models", "list", "-model-manifest", bad},
		{"campaign", "-model-manifest", bad, "-repos", "r", "-cases", "c"},
		{"promote", "-model-manifest", bad, "-baseline", "bm25/code-weighted", "-candidate", "dense/minilm-l6-q"},
	} {
		t.Run(args[0], func(t *testing.T) {
			t.Setenv(models.EnvManifest, "")
			var out, errb bytes.Buffer
			err := run(args, &out, &errb)
			require.Error(t, err)
			require.Contains(t, err.Error(), `bad.json:3: unknown field "dimenson"`)
			filelinetest.At(t, err, "bad.json", 3)
			require.Equal(t, 1, exitCode(err), "a broken input file is an error, not bad usage")
		})
	}
}

// TestEmbedEndpoint: embed runs a served model of a user manifest, the key
// from the variable the manifest names.
func TestEmbedEndpoint(t *testing.T) {
	t.Setenv(models.EnvManifest, "")
	t.Setenv("RB_CMD_KEY", "sk-cmd-secret")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-cmd-secret" {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		var req struct{ Input []string }
		require.NoError(t, json.NewDecoder(r.Body).Decode(&req))
		type item struct {
			Index     int       `json:"index"`
			Embedding []float32 `json:"embedding"`
		}
		var out struct {
			Data []item `json:"data"`
		}
		for i, s := range req.Input {
			out.Data = append(out.Data, item{i, []float32{float32(len(s)), 0}})
		}
		json.NewEncoder(w).Encode(out)
	}))
	defer srv.Close()
	dir := t.TempDir()
	manifest := filepath.Join(dir, "m.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"models": [{"id": "served", "kind": "endpoint", "licence": "x", "dimension": 2,
  "query_prefix": "q: ", "endpoint": {"base_url": "`+srv.URL+`/v1", "model": "m", "revision": "1", "key_env": "RB_CMD_KEY"}}]}`), 0o644))
	in := filepath.Join(dir, "in.txt")
	require.NoError(t, os.WriteFile(in, []byte("ab\n"), 0o644))
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"embed", "-model-manifest", manifest, "-model", "served", "-as", "query", in}, &out, &errb), errb.String())
	require.Equal(t, `{"text_index":0,"vector":[1,0]}`+"\n", out.String(), "\"q: ab\" is 5 long: [5, 0] normalised")
}
