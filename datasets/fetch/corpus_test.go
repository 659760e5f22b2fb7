package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets/sweqa"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

type entry struct {
	name, body string
	flag       byte
}

func tarball(t *testing.T, entries []entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	require.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": "abc"}}))
	for _, e := range entries {
		h := &tar.Header{Typeflag: e.flag, Name: e.name, Mode: 0o644, Size: int64(len(e.body))}
		if e.flag == tar.TypeSymlink {
			h.Linkname, h.Size = e.body, 0
		}
		require.NoError(t, tw.WriteHeader(h))
		if e.flag == tar.TypeReg {
			_, err := tw.Write([]byte(e.body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	return buf.Bytes()
}

func TestBuildCorpora(t *testing.T) {
	archive := tarball(t, []entry{
		{"demo-abc/", "", tar.TypeDir},
		{"demo-abc/pkg/mod.py", "def f():\n    return '<&>'\n", tar.TypeReg},
		{"demo-abc/README.MD", "# Demo\n", tar.TypeReg},
		{"demo-abc/native.c", "int main(){}\n", tar.TypeReg},
		{"demo-abc/blob.json", "{\"a\": \"\x00\"}", tar.TypeReg},
		{"demo-abc/latin1.txt", "caf\xe9\n", tar.TypeReg},
		{"demo-abc/big.txt", strings.Repeat("x", maxCorpusFile), tar.TypeReg},
		{"demo-abc/link.py", "pkg/mod.py", tar.TypeSymlink},
	})
	want := []TextFile{{Path: "README.MD", Text: "# Demo\n"}, {Path: "pkg/mod.py", Text: "def f():\n    return '<&>'\n"}}
	got, err := ReadArchiveCorpus(bytes.NewReader(archive))
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("inclusion rule (-want +got):\n%s", diff)
	}

	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/acme/demo/archive/abc.tar.gz" {
			http.NotFound(w, r)
			return
		}
		w.Write(archive)
	}))
	defer srv.Close()
	saved := corpora
	t.Cleanup(func() { corpora = saved })
	cfg := Config{Client: srv.Client(), ArchiveBaseURL: srv.URL + "/"}

	corpora = []RepoCorpus{{Path: "demo/corpora/demo.jsonl", Repo: "acme/demo", Pinned: "ab", Commit: "abc", Files: 2, Digest: ContentDigest(want)}}
	dir := t.TempDir()
	rep, err := BuildCorpora(t.Context(), "demo", dir, cfg)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"demo/corpora/demo.jsonl"}, rep.Fetched); diff != "" {
		t.Errorf("fetched (-want +got):\n%s", diff)
	}
	c, err := sweqa.ReadCorpus(filepath.Join(dir, "demo", "corpora", "demo.jsonl"), "acme/demo", "abc")
	require.NoError(t, err)
	if len(c.Docs) != 2 || c.Docs[1].Text != want[1].Text {
		t.Errorf("corpus read back: %+v", c.Docs)
	}
	commit, err := os.ReadFile(filepath.Join(dir, "demo", "corpora", "demo.commit"))
	require.NoError(t, err)
	if string(commit) != "abc\n" {
		t.Errorf("commit file %q", commit)
	}
	entries, err := List(dir)
	require.NoError(t, err)
	if len(entries) != 2 || entries[1].Path != "demo/corpora/demo.jsonl" || entries[1].Status != "ok" {
		t.Errorf("List: %+v", entries)
	}
	rep, err = BuildCorpora(t.Context(), "demo", dir, cfg)
	require.NoError(t, err)
	if len(rep.Present) != 1 {
		t.Errorf("second build: %+v, want present", rep)
	}

	corpora = []RepoCorpus{{Path: "demo/corpora/other.jsonl", Repo: "acme/demo", Commit: "abc", Files: 2, Digest: strings.Repeat("0", 64)}}
	_, err = BuildCorpora(t.Context(), "demo", dir, cfg)
	if err == nil || !strings.Contains(err.Error(), "built 2 files with digest") {
		t.Errorf("digest mismatch: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "demo", "corpora", "other.jsonl")); err == nil {
		t.Error("a corpus with the wrong digest was written")
	}
}

// TestCorporaDigests checks the pinned digests against the pack's corpora.
func TestCorporaDigests(t *testing.T) {
	testenv.MustHaveData(t, "swe-qa/corpora/flask.jsonl.gz")
	pack, _ := testenv.DataDir()
	for _, c := range corpora {
		files, err := readCorpusFile(filepath.Join(pack, filepath.FromSlash(c.Path)+".gz"))
		require.NoError(t, err)
		if len(files) != c.Files || ContentDigest(files) != c.Digest {
			t.Errorf("%s: %d files, digest %s; pinned %d, %s", c.Path, len(files), ContentDigest(files), c.Files, c.Digest)
		}
		for _, f := range files {
			if !included(f.Path, []byte(f.Text)) {
				t.Errorf("%s: %s breaks the inclusion rule", c.Path, f.Path)
			}
		}
	}
}

// TestArchiveCorpusHostile checks entry names that escape the archive's
// top-level directory: each is refused, none becomes a corpus path.
func TestArchiveCorpusHostile(t *testing.T) {
	for _, name := range []string{"demo-abc/../evil.py", "demo-abc/..", "demo-abc//etc/passwd"} { // tar cannot hold a NUL in a name
		archive := tarball(t, []entry{{"demo-abc/ok.py", "x = 1\n", tar.TypeReg}, {name, "x = 2\n", tar.TypeReg}})
		got, err := ReadArchiveCorpus(bytes.NewReader(archive))
		if err == nil || !strings.Contains(err.Error(), "not a clean relative path") {
			t.Errorf("entry %q: got %v, %v; want it refused", name, got, err)
		}
	}
}
