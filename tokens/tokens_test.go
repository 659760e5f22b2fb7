package tokens

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

var update = flag.Bool("update", false, "rewrite testdata/reference-counts.tsv from the npm package's JS encoder (TestJSParity)")

const refFile = "testdata/reference-counts.tsv"

// load returns the default tokenizer from the cache, or skips loudly.
func load(t *testing.T) *Tokenizer {
	t.Helper()
	tk, err := Load(testenv.CacheDir(), Default)
	if err != nil {
		if testenv.Required(testenv.Tokenizer) {
			t.Fatalf("%v", err)
		}
		t.Skipf("SKIP: %v (RETRIEVALBENCH_REQUIRE=tokenizer makes this fail)", err)
	}
	return tk
}

type snippet struct {
	ID   string `json:"id"`
	Text string `json:"text"`
}

// fixtureSnippets cuts the repository's fixtures into real code and prose
// snippets: every text file under ../fixtures and every source file inside
// the RepoQA fixture, whole and as windows of 6 lines every 3 lines.
func fixtureSnippets(t *testing.T) []snippet {
	t.Helper()
	files := map[string]string{}
	root := filepath.Join("..", "fixtures")
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		switch filepath.Ext(p) {
		case ".py", ".ts", ".go", ".md", ".rst":
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			files[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	require.NoError(t, err)
	b, err := os.ReadFile(filepath.Join(root, "repoqa", "repoqa-fixture.json"))
	require.NoError(t, err)
	var rq map[string][]struct {
		Repo    string            `json:"repo"`
		Content map[string]string `json:"content"`
	}
	require.NoError(t, json.Unmarshal(b, &rq))
	for lang, repos := range rq {
		for _, r := range repos {
			for p, c := range r.Content {
				files["repoqa/"+lang+"/"+r.Repo+"/"+p] = c
			}
		}
	}
	var out []snippet
	for name, text := range files {
		if text == "" {
			continue
		}
		out = append(out, snippet{name, text})
		lines := strings.SplitAfter(text, "\n")
		for start := 0; start < len(lines); start += 3 {
			end := min(start+6, len(lines))
			if s := strings.Join(lines[start:end], ""); strings.TrimSpace(s) != "" {
				out = append(out, snippet{fmt.Sprintf("%s:%d-%d", name, start+1, end), s})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

func textHash(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:6])
}

// TestReferenceCounts checks the Go counts of the fixture snippets against
// the counts the npm package's JS encoder gave (testdata/reference-counts.tsv,
// written by TestJSParity -update), without node.
func TestReferenceCounts(t *testing.T) {
	tk := load(t)
	snips := fixtureSnippets(t)
	f, err := os.Open(refFile)
	require.NoError(t, err)
	defer f.Close()
	want := map[string][2]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		parts := strings.Split(sc.Text(), "\t")
		require.Len(t, parts, 3, "%s:%d: want id, text sha256 prefix, count", refFile, n)
		want[parts[0]] = [2]string{parts[1], parts[2]}
	}
	require.NoError(t, sc.Err())
	require.GreaterOrEqual(t, len(snips), 200, "a few hundred snippets")
	require.Len(t, want, len(snips), "%s lists another set of snippets than the fixtures give: run go test ./tokens -run TestJSParity -update", refFile)
	total := 0
	for _, s := range snips {
		w, ok := want[s.ID]
		require.True(t, ok, "snippet %s is not in %s", s.ID, refFile)
		require.Equal(t, w[0], textHash(s.Text), "snippet %s changed since %s was written", s.ID, refFile)
		n := tk.Count(s.Text)
		require.Equal(t, w[1], strconv.Itoa(n), "snippet %s: Go count vs the JS encoder's", s.ID)
		total += n
	}
	t.Logf("%d snippets, %d tokens, every count equal to the JS encoder's", len(snips), total)
}

// TestJSParity runs the npm package's own JS encoder (a port of Hugging Face
// transformers.js) over the fixture snippets and compares its counts with
// the Go ones; -update writes them to testdata/reference-counts.tsv. It
// needs node and an install of the package: NODE_PATH, or the pinned
// install of make tokenizer (FetchJS) under JSDir; without them it skips,
// and fails where the tokenizer is required (CI).
func TestJSParity(t *testing.T) {
	tk := load(t)
	node, err := exec.LookPath("node")
	if err != nil {
		testenv.Missing(t, testenv.Tokenizer, "no node on PATH: the JS cross-check of token counts did not run")
	}
	mods := os.Getenv("NODE_PATH")
	if mods == "" {
		if ok, why := JSInstalled(testenv.CacheDir(), Known()[Default]); !ok {
			testenv.Missing(t, testenv.Tokenizer, why+" (make tokenizer installs it): the JS cross-check did not run")
		}
		mods = filepath.Join(JSDir(testenv.CacheDir()), "node_modules")
	}
	snips := fixtureSnippets(t)
	var in bytes.Buffer
	enc := json.NewEncoder(&in)
	for _, s := range snips {
		require.NoError(t, enc.Encode(s))
	}
	cmd := exec.Command(node, "testdata/count.js")
	cmd.Env = append(os.Environ(), "NODE_PATH="+mods)
	cmd.Stdin = &in
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "node: %s", stderr.String())
	got := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		id, n, _ := strings.Cut(l, "\t")
		got[id] = n
	}
	require.Len(t, got, len(snips))
	var ref strings.Builder
	ref.WriteString("# snippet id, sha256 prefix of its text, tokens under " + Known()[Default].Package + "'s JS encoder (TestJSParity -update)\n")
	for _, s := range snips {
		require.Equal(t, got[s.ID], strconv.Itoa(tk.Count(s.Text)), "snippet %s: JS count vs Go", s.ID)
		fmt.Fprintf(&ref, "%s\t%s\t%s\n", s.ID, textHash(s.Text), got[s.ID])
	}
	if *update {
		tmp := refFile + ".tmp"
		require.NoError(t, os.WriteFile(tmp, []byte(ref.String()), 0o644))
		require.NoError(t, os.Rename(tmp, refFile))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	_, err := Load(dir, Default)
	require.ErrorIs(t, err, ErrMissing)
	p := Known()[Default].Path(dir)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte("{}"), 0o644))
	_, err = Load(dir, Default)
	require.ErrorContains(t, err, "make tokenizer fetches it again", "a corrupt cached file is named as such")
	_, err = Load(dir, "gpt-17")
	require.ErrorContains(t, err, "not a known name")
}

func TestCount(t *testing.T) {
	tk := load(t)
	require.Equal(t, 0, tk.Count(""))
	// Byte-level BPE: a rare word splits into more tokens than a common one.
	require.Less(t, tk.Count("function"), tk.Count("xqzvwkjhgf"))
	require.Contains(t, tk.ID(), "qwen3 sha256:aeb13307a71a")
}
