package corpusdir

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// readTree returns every regular file under dir (outside .git) by its
// slash path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	got := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == ".git" {
			return filepath.SkipDir
		}
		if d.Type().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(dir, p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	require.NoError(t, err)
	return got
}

func TestCorpusDir(t *testing.T) {
	c := testCorpus()
	cache := t.TempDir()
	dir, err := Tree(t.Context(), cache, c, c.Hash(), false)
	require.NoError(t, err)
	if want := filepath.Join(cache, "external", "corpora", c.Hash()); dir != want {
		t.Errorf("dir = %s, want %s (content-addressed)", dir, want)
	}
	want := map[string]string{}
	for _, d := range c.Docs {
		want[d.Path] = d.Text
	}
	if diff := cmp.Diff(want, readTree(t, dir)); diff != "" {
		t.Errorf("tree (-want +got):\n%s", diff)
	}
	entries, err := os.ReadDir(filepath.Dir(dir))
	require.NoError(t, err)
	if len(entries) != 1 {
		t.Errorf("corpora holds %d entries, want only the finished tree (no temp dirs left)", len(entries))
	}
	// A second handover reuses the tree instead of rewriting it.
	marker := filepath.Join(dir, "pkg", "a.py")
	require.NoError(t, os.WriteFile(marker, []byte("changed"), 0o644))
	again, err := Tree(t.Context(), cache, c, c.Hash(), false)
	require.NoError(t, err)
	if b, _ := os.ReadFile(marker); again != dir || string(b) != "changed" {
		t.Errorf("second handover: dir %s (want %s), a.py %q (want it untouched)", again, dir, b)
	}
}

func TestCorpusDirGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("SKIP (git missing): the git handover needs git on PATH")
	}
	head := func(cache string) string {
		dir, err := Tree(t.Context(), cache, testCorpus(), testCorpus().Hash(), true)
		require.NoError(t, err)
		if !strings.HasSuffix(dir, "-git") {
			t.Errorf("git tree %s does not end in -git (it differs from the plain one)", dir)
		}
		out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
		require.NoError(t, err)
		st, err := exec.Command("git", "-C", dir, "status", "--porcelain").Output()
		require.NoError(t, err)
		if len(st) != 0 {
			t.Errorf("the commit does not hold every file: git status:\n%s", st)
		}
		return strings.TrimSpace(string(out))
	}
	// Pinned: fixed author, committer, dates and message make the commit
	// hash a function of the files alone, on any machine.
	const want = "22b90f1c636f0ce1df1ec398244a9de777cfaef1"
	if got := head(t.TempDir()); got != want {
		t.Errorf("HEAD = %s, want %s", got, want)
	}
	if got := head(t.TempDir()); got != want {
		t.Errorf("HEAD in a second cache = %s, want %s", got, want)
	}
}

func TestCorpusDirRejects(t *testing.T) {
	for _, tc := range []struct {
		name, path string
		git        bool
		want       string
	}{
		{"climbs", "../evil.py", false, "climbs out"},
		{"absolute", "/etc/passwd", false, "absolute path"},
		{"unclean", "a/../../b.py", false, "not clean"},
		{"dot", "./a.py", false, "not clean"},
		{"nul", "a\x00b.py", false, "NUL"},
		{"empty", "", false, "no path"},
		{"git dir", ".git/config", true, "inside .git"},
		{"nested git dir", "sub/.git/HEAD", true, "inside .git"},
		{"duplicate", "pkg/a.py", false, "one doc per file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := testCorpus()
			c.Docs = append(c.Docs, corpus.Doc{ID: "bad", Path: tc.path, Text: "x"})
			cache := t.TempDir()
			_, err := Tree(t.Context(), cache, c, c.Hash(), tc.git)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want %q", err, tc.want)
			}
			if _, err := os.Stat(filepath.Join(cache, "external")); err == nil {
				t.Errorf("a rejected corpus left files in the cache")
			}
		})
	}
}

// testCorpus is the three files of package external's tests; the pinned
// commit of TestCorpusDirGit is a function of them.
func testCorpus() *corpus.Corpus {
	c := &corpus.Corpus{ID: "test/repo", Commit: "abc"}
	for _, f := range [][2]string{
		{"pkg/a.py", "import os\n\ndef frobnicate(x):\n    return x\n"},
		{"pkg/b.py", "class Widget:\n    def render(self):\n        return 'widget frobnicate widget'\n"},
		{"README.md", "Widget docs\n"},
	} {
		c.Docs = append(c.Docs, corpus.Doc{ID: f[0], Path: f[0], Kind: "file", Text: f[1]})
	}
	return c
}
