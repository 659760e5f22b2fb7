package cases

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func writeGz(t *testing.T, file string, b []byte) {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	_, err := gz.Write(b)
	require.NoError(t, err)
	require.NoError(t, gz.Close())
	require.NoError(t, os.MkdirAll(filepath.Dir(file), 0o755))
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
}

// TestDatapackSWEQA builds a data pack in the SWE-QA layout (corpora/
// REPO.jsonl.gz + repo_commit.txt one level up) and loads cases over it.
func TestDatapackSWEQA(t *testing.T) {
	data := t.TempDir()
	t.Setenv(EnvData, data)
	lines := []string{
		`{"path": "src/kv/store.py", "text": "class Store:\n    def delete(self, key):\n        pass\n"}`,
		`{"path": "README.md", "text": "# kv\n\n## Usage\n\nPut and get.\n"}`,
		`{"path": ".github/ci.yml", "text": "on: push\n"}`,
	}
	writeGz(t, filepath.Join(data, "swe-qa", "corpora", "kv.jsonl.gz"), []byte(strings.Join(lines, "\n")+"\n"))
	require.NoError(t, os.WriteFile(filepath.Join(data, "swe-qa", "repo_commit.txt"),
		[]byte("https://example.invalid/o/other 1111111\nhttps://example.invalid/o/kv 85c5d93\n"), 0o644))

	dir := t.TempDir()
	manifest := filepath.Join(dir, "manifest.json")
	casesFile := filepath.Join(dir, "cases.jsonl")
	for _, tc := range []struct {
		name, commit, wantNote, wantCommit string
		reason                             string
	}{
		{"full sha", "85c5d93cbd049c4bd0679c36fd1ddcae8c37b642", "", "85c5d93cbd049c4bd0679c36fd1ddcae8c37b642", "the abbreviation the pack records matches; the longer spelling is kept"},
		{"short sha", "85c5d93", "", "85c5d93", "equal spellings match"},
		{"drift", "deadbeef", "commit drift: kv corpus is at 85c5d93", "85c5d93", "a different commit is reported, never hidden"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(manifest, []byte(`{"kv": {"datapack": "swe-qa/corpora/kv.jsonl.gz", "commit": "`+tc.commit+`"}}`), 0o644))
			require.NoError(t, os.WriteFile(casesFile, []byte(`{"id": "kv-1", "repo": "kv", "intent": "symbol_lookup", "query": "delete a key", "relevant": [{"kind": "symbol", "id": "Store.delete", "grade": 3}, {"kind": "doc_section", "id": "README.md#usage", "grade": 1}]}`+"\n"), 0o644))
			ds, err := Load(casesFile, manifest, DefaultConfig())
			require.NoError(t, err)
			c := ds.Corpora["kv"]
			var ids []string
			for _, d := range c.Docs {
				ids = append(ids, d.ID)
			}
			if diff := cmp.Diff([]string{"README.md#kv", "README.md#usage", "src/kv/store.py"}, ids); diff != "" {
				t.Errorf("docs (-want +got):\n%s\nreason: hidden directories are skipped, Markdown is cut into sections", diff)
			}
			if c.Commit != tc.wantCommit {
				t.Errorf("corpus commit = %q, want %q (%s)", c.Commit, tc.wantCommit, tc.reason)
			}
			note := strings.Join(ds.Notes, "\n")
			if (tc.wantNote == "") != (note == "") || !strings.Contains(note, tc.wantNote) {
				t.Errorf("notes = %q, want %q (%s)", note, tc.wantNote, tc.reason)
			}
		})
	}
}

func TestDatapackRepoQA(t *testing.T) {
	data := t.TempDir()
	t.Setenv(EnvData, data)
	pack := map[string]any{"python": []map[string]any{
		{"repo": "o/a", "commit_sha": "aaaaaaaa", "content": map[string]string{"a.py": "def f():\n    pass\n"}},
		{"repo": "o/b", "commit_sha": "bbbbbbbbbb", "content": map[string]string{"pkg/b.py": "def g():\n    pass\n", "pkg/__init__.py": ""}},
	}}
	b, err := json.Marshal(pack)
	require.NoError(t, err)
	writeGz(t, filepath.Join(data, "repoqa", "corpora.json.gz"), b)

	c, note, err := LoadRepo("b", RepoSpec{Datapack: "repoqa/corpora.json.gz", Entry: "o/b", Commit: "bbbbbbbbbb"}, "")
	require.NoError(t, err)
	require.Equal(t, CommitNote{}, note)
	var paths []string
	for _, d := range c.Docs {
		paths = append(paths, d.Path)
	}
	if diff := cmp.Diff([]string{"pkg/__init__.py", "pkg/b.py"}, paths); diff != "" {
		t.Errorf("paths (-want +got):\n%s", diff)
	}
	_, _, err = LoadRepo("c", RepoSpec{Datapack: "repoqa/corpora.json.gz", Entry: "o/c"}, "")
	if err == nil || !strings.Contains(err.Error(), `no repository "o/c" (has o/a, o/b)`) {
		t.Errorf("unknown entry: error = %v", err)
	}
}

func TestDatapackErrors(t *testing.T) {
	data := t.TempDir()
	writeGz(t, filepath.Join(data, "bad.jsonl.gz"), []byte("{\"path\": \"a.py\", \"text\": \"x\"}\n{\"path\": \"../b.py\", \"text\": \"y\"}\n"))
	writeGz(t, filepath.Join(data, "dup.jsonl.gz"), []byte("{\"path\": \"a.py\", \"text\": \"x\"}\n{\"path\": \"a.py\", \"text\": \"y\"}\n"))
	writeGz(t, filepath.Join(data, "shape.jsonl.gz"), []byte("{\"file\": \"a.py\"}\n"))
	for _, tc := range []struct {
		name, env, file, want string
	}{
		{"no data dir", "", "bad.jsonl.gz", "$RETRIEVALBENCH_DATA is not set"},
		{"escaping path", data, "bad.jsonl.gz", `bad.jsonl.gz:2: path "../b.py" escapes the repository root`},
		{"repeated path", data, "dup.jsonl.gz", `dup.jsonl.gz:2: path "a.py" repeated (first on line 1)`},
		{"wrong shape", data, "shape.jsonl.gz", `shape.jsonl.gz:1: want {"path", "text"}`},
		{"missing file", data, "none.jsonl.gz", "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(EnvData, tc.env)
			_, _, err := LoadRepo("r", RepoSpec{Datapack: tc.file}, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v, want %q", err, tc.want)
			}
			filelinetest.Want(t, err, tc.want)
		})
	}
}

// TestDatapackReal loads flask from the real data pack and checks the
// commit SWE-QA records for it.
func TestDatapackReal(t *testing.T) {
	testenv.MustHaveData(t, "swe-qa/corpora/flask.jsonl.gz")
	c, note, err := LoadRepo("flask", RepoSpec{Datapack: "swe-qa/corpora/flask.jsonl.gz", Commit: "85c5d93cbd049c4bd0679c36fd1ddcae8c37b642"}, "")
	require.NoError(t, err)
	require.Equal(t, CommitNote{}, note, "SWE-QA records flask at 85c5d93")
	if _, ok := c.Lookup()["src/flask/app.py"]; !ok {
		t.Errorf("flask corpus lacks src/flask/app.py (%d docs)", len(c.Docs))
	}
}
