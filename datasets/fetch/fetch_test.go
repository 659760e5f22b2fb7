package fetch

import (
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets/cosqa"
	"github.com/retrievalbench/retrievalbench/datasets/trec"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/internal/download"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// server serves body by URL path and counts requests.
func server(t *testing.T, bodies map[string]string) (*httptest.Server, *int) {
	t.Helper()
	hits := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, b)
	}))
	t.Cleanup(srv.Close)
	return srv, &hits
}

func TestDownload(t *testing.T) {
	srv, hits := server(t, map[string]string{
		"/o/r/c/a.txt":   "alpha\n",
		"/o/r/c/bad.txt": "tampered\n",
		"/o/r/c/long":    "longer than pinned",
	})
	cfg := Config{Client: srv.Client(), BaseURL: srv.URL + "/"}
	good := File{Path: "ds/a.txt", URL: "o/r/c/a.txt", SHA256: sum("alpha\n"), Size: 6}

	dir := t.TempDir()
	rep, err := downloadFiles(t.Context(), []File{good, {Path: "ds/PROVENANCE.md"}}, dir, cfg)
	require.NoError(t, err)
	if diff := cmp.Diff(Report{Fetched: []string{"ds/a.txt"}, MirrorOnly: []string{"ds/PROVENANCE.md"}}, rep); diff != "" {
		t.Errorf("report (-want +got):\n%s", diff)
	}
	b, err := os.ReadFile(filepath.Join(dir, "ds", "a.txt"))
	require.NoError(t, err)
	if string(b) != "alpha\n" {
		t.Errorf("content %q", b)
	}
	rep, err = downloadFiles(t.Context(), []File{good}, dir, cfg)
	require.NoError(t, err)
	if len(rep.Present) != 1 || *hits != 1 {
		t.Errorf("second fetch: report %+v after %d requests; want present, no new request", rep, *hits)
	}

	for _, tc := range []struct {
		name    string
		f       File
		wantErr string
	}{
		{"sha mismatch", File{Path: "ds/bad.txt", URL: "o/r/c/bad.txt", SHA256: sum("good\n")}, "sha256 " + sum("tampered\n") + ", want " + sum("good\n")},
		{"not found", File{Path: "ds/x", URL: "o/r/c/missing", SHA256: sum("")}, "404 Not Found"},
		{"too long", File{Path: "ds/long", URL: "o/r/c/long", SHA256: sum("longer"), Size: 6}, "corrupt: 7 bytes, want 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := downloadFiles(t.Context(), []File{tc.f}, dir, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			left, _ := filepath.Glob(filepath.Join(dir, "ds", "*"))
			if diff := cmp.Diff([]string{filepath.Join(dir, "ds", "a.txt")}, left); diff != "" {
				t.Errorf("a failed fetch left files behind (-want +got):\n%s", diff)
			}
		})
	}

	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := downloadFiles(ctx, []File{{Path: "ds/c", URL: "o/r/c/a.txt", SHA256: sum("alpha\n")}}, dir, cfg); err == nil {
		t.Error("a cancelled context did not stop the download")
	}
	if _, err := Download(t.Context(), "nope", dir, cfg); err == nil || !strings.Contains(err.Error(), `unknown dataset "nope"`) {
		t.Errorf("unknown dataset: %v", err)
	}
}

func writeMirror(t *testing.T, files map[string]string, sums string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, p), []byte(s), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "SHA256SUMS"), []byte(sums), 0o644))
	return dir
}

func TestCopyMirror(t *testing.T) {
	files := map[string]string{"demo/a.txt": "alpha\n", "demo/sub/b.txt": "beta\n", "other/c.txt": "c\n"}
	sums := sum("alpha\n") + "  demo/a.txt\n" + sum("beta\n") + "  demo/sub/b.txt\n" + sum("c\n") + "  other/c.txt\n"
	mirror := writeMirror(t, files, sums)
	dst := t.TempDir()
	rep, err := CopyMirror("demo", mirror, dst)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"demo/a.txt", "demo/sub/b.txt"}, rep.Fetched); diff != "" {
		t.Errorf("copied (-want +got):\n%s", diff)
	}
	entries, err := List(dst)
	require.NoError(t, err)
	want := []Entry{
		{Path: "demo/a.txt", Size: 6, SHA256: sum("alpha\n"), Status: "unpinned"},
		{Path: "demo/sub/b.txt", Size: 5, SHA256: sum("beta\n"), Status: "unpinned"},
	}
	if diff := cmp.Diff(want, entries); diff != "" {
		t.Errorf("List (-want +got):\n%s", diff)
	}

	for _, tc := range []struct {
		name, folder string
		files        map[string]string
		sums         string
		wantErr      string
	}{
		{"corrupt file", "demo", map[string]string{"demo/a.txt": "alpha!\n"}, sum("alpha\n") + "  demo/a.txt\n", "sha256 " + sum("alpha!\n")},
		{"pinned differs", "cosqa", map[string]string{"cosqa/LICENSE": "x"}, sum("x") + "  cosqa/LICENSE\n", "SHA256SUMS lists cosqa/LICENSE as " + sum("x") + ", but it is pinned as 5f1ce9c0"},
		{"bad sums line", "demo", nil, "nothex  demo/a.txt\n", `SHA256SUMS:1: want "SHA256  path"`},
		{"escaping path", "demo", nil, sum("x") + "  ../x\n", `SHA256SUMS:1: path "../x" is not a clean relative path`},
		{"folder absent", "nope", nil, sum("x") + "  demo/a.txt\n", `no files of "nope" in SHA256SUMS`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := CopyMirror(tc.folder, writeMirror(t, tc.files, tc.sums), t.TempDir())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("error = %v, want %q", err, tc.wantErr)
			}
			filelinetest.Want(t, err, tc.wantErr)
		})
	}
}

// TestRegistryMatchesPack checks every pin against the data pack: the
// mirror sums against its SHA256SUMS and the file bytes, and the source
// sums of gzipped files against their uncompressed bytes.
func TestRegistryMatchesPack(t *testing.T) {
	testenv.MustHaveData(t, "SHA256SUMS")
	pack, _ := testenv.DataDir()
	sums, err := ReadSums(filepath.Join(pack, "SHA256SUMS"))
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, f := range files {
		mp := f.mirrorPath()
		listed[mp] = true
		if sums[mp] != f.MirrorSHA256 {
			t.Errorf("%s: pinned mirror sum %s, SHA256SUMS %s", mp, f.MirrorSHA256, sums[mp])
		}
		got, n, err := download.FileSum(filepath.Join(pack, mp))
		require.NoError(t, err)
		if got != f.MirrorSHA256 || n != f.MirrorSize {
			t.Errorf("%s: pack file %s (%d bytes), pinned %s (%d)", mp, got, n, f.MirrorSHA256, f.MirrorSize)
		}
		if f.URL == "" || mp == f.Path {
			continue
		}
		r, err := os.Open(filepath.Join(pack, mp))
		require.NoError(t, err)
		gz, err := gzip.NewReader(r)
		require.NoError(t, err)
		h := sha256.New()
		n, err = io.Copy(h, gz)
		r.Close()
		require.NoError(t, err)
		if got := hex.EncodeToString(h.Sum(nil)); got != f.SHA256 || n != f.Size {
			t.Errorf("%s: uncompressed %s (%d bytes), pinned source %s (%d)", mp, got, n, f.SHA256, f.Size)
		}
	}
	for p := range sums {
		if !listed[p] {
			t.Errorf("SHA256SUMS lists %s, the registry does not", p)
		}
	}
}

// TestDownloadFromPackServer serves the pack's CoSQA and Vaswani files
// (uncompressed where the source is) at their source URLs and downloads
// them with the real registry.
func TestDownloadFromPackServer(t *testing.T) {
	testenv.MustHaveData(t, "cosqa/LICENSE")
	pack, _ := testenv.DataDir()
	bodies := map[string]string{}
	for _, name := range []string{"cosqa", "vaswani"} {
		for _, f := range Files(name) {
			if f.URL == "" {
				continue
			}
			b, err := os.ReadFile(filepath.Join(pack, f.mirrorPath()))
			require.NoError(t, err)
			if f.mirrorPath() != f.Path {
				gz, err := gzip.NewReader(strings.NewReader(string(b)))
				require.NoError(t, err)
				b, err = io.ReadAll(gz)
				require.NoError(t, err)
			}
			bodies["/"+f.URL] = string(b)
		}
	}
	srv, _ := server(t, bodies)
	dir := t.TempDir()
	for _, name := range []string{"cosqa", "vaswani"} {
		rep, err := Download(t.Context(), name, dir, Config{Client: srv.Client(), BaseURL: srv.URL + "/"})
		require.NoError(t, err)
		if len(rep.Fetched) == 0 || len(rep.MirrorOnly) != 1 {
			t.Errorf("%s: report %+v; want files fetched and PROVENANCE.md mirror-only", name, rep)
		}
	}
	entries, err := List(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if e.Status != "ok" {
			t.Errorf("%s: status %s", e.Path, e.Status)
		}
	}
	if len(entries) != 7 {
		t.Errorf("%d files listed, want 7 (4 cosqa + 3 vaswani)", len(entries))
	}

	// The loaders read the downloaded (uncompressed) layout.
	cq, err := cosqa.Load(dir, cosqa.DefaultConfig())
	require.NoError(t, err)
	vw, err := trec.Load(dir, "vaswani", trec.DefaultConfig())
	require.NoError(t, err)
	if len(cq.Tasks) != 500 || len(cq.Corpora[cosqa.CorpusID].Docs) != 6267 || len(vw.Tasks) != 93 || len(vw.Corpora["vaswani"].Docs) != 11429 {
		t.Errorf("loaders on the downloaded data: cosqa %d tasks, vaswani %d tasks", len(cq.Tasks), len(vw.Tasks))
	}
}
