package chunk

import (
	"compress/gzip"
	"encoding/json"

	"os"
	"runtime"
	"slices"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	sitter "github.com/tree-sitter/go-tree-sitter"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// loadRepoQAPython reads the data pack's RepoQA Python corpora (release
// schema, content only) as one corpus of file docs per repository, files
// in path order.
func loadRepoQAPython(t testing.TB) []*corpus.Corpus {
	t.Helper()
	p := testenv.MustHaveData(t, "repoqa/repoqa-python-corpora.json.gz")
	f, err := os.Open(p)
	require.NoError(t, err)
	defer f.Close()
	zr, err := gzip.NewReader(f)
	require.NoError(t, err)
	var release struct {
		Python []struct {
			Repo      string            `json:"repo"`
			CommitSHA string            `json:"commit_sha"`
			Content   map[string]string `json:"content"`
		} `json:"python"`
	}
	require.NoError(t, json.NewDecoder(zr).Decode(&release))
	var out []*corpus.Corpus
	for _, r := range release.Python {
		c := &corpus.Corpus{ID: r.Repo, Commit: r.CommitSHA}
		paths := make([]string, 0, len(r.Content))
		for p := range r.Content {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		for _, p := range paths {
			c.Docs = append(c.Docs, corpus.Doc{ID: p, Path: p, Kind: KindFile, Language: codetext.LanguageOf(p), Text: r.Content[p]})
		}
		out = append(out, c)
	}
	return out
}

// TestCorpusRepoQAPython chunks the ten RepoQA Python repositories and
// checks the invariants the benchmarks rely on.
func TestCorpusRepoQAPython(t *testing.T) {
	corpora := loadRepoQAPython(t)
	require.Len(t, corpora, 10, "the data pack holds the ten repositories of the official Python set")

	var total Counts
	var files, bytes int
	start, cpu0 := time.Now(), cpuTime()
	chunked := make([]*corpus.Corpus, len(corpora))
	for i, c := range corpora {
		out, st, err := Corpus(c, DefaultOptions())
		require.NoError(t, err, c.ID)
		chunked[i] = out
		total.Files += st.Files
		total.Chunks += st.Chunks
		total.Fallback += st.Fallback
		total.ParseErrors += st.ParseErrors
		files += len(c.Docs)
		for _, d := range c.Docs {
			bytes += len(d.Text)
		}
	}
	elapsed, cpu := time.Since(start), cpuTime()-cpu0
	t.Logf("chunked %d repos, %d files, %d bytes in %v (CPU %v, GOMAXPROCS %d): %+v", len(corpora), files, bytes,
		elapsed.Round(time.Millisecond), cpu.Round(time.Millisecond), runtime.GOMAXPROCS(0), total)
	if total.Files != 1394 {
		t.Errorf("Stats.Files = %d, want 1394 (PROVENANCE.md)", total.Files)
	}

	parser := sitter.NewParser()
	defer parser.Close()
	require.NoError(t, parser.SetLanguage(sitter.NewLanguage(tspython.Language())))

	var functions, kinds = 0, map[string]int{}
	for i, c := range corpora {
		out := chunked[i]
		if total.Chunks == 0 || len(out.Docs) < len(c.Docs) {
			t.Errorf("%s: %d chunks for %d files", c.ID, len(out.Docs), len(c.Docs))
		}
		byPath := map[string][]corpus.Doc{}
		ids := map[string]bool{}
		for _, d := range out.Docs {
			if ids[d.ID] {
				t.Errorf("%s: duplicate chunk ID %q", c.ID, d.ID)
			}
			ids[d.ID] = true
			kinds[d.Kind]++
			byPath[d.Path] = append(byPath[d.Path], d)
		}
		for _, file := range c.Docs {
			chunks := byPath[file.Path]
			if len(chunks) == 0 {
				t.Errorf("%s: %s produced no chunk", c.ID, file.Path)
				continue
			}
			checkPartition(t, c.ID, file, chunks)
			functions += checkWhole(t, parser, codetext.Python, file, chunks, []string{"function_definition"})
		}
	}
	t.Logf("chunk kinds: %v; %d tree-sitter function bodies all found whole", kinds, functions)
}

// checkPartition asserts that the chunks of file cover its non-blank lines
// exactly once (as a multiset of line texts) and that every line range
// lies inside the file.
func checkPartition(t *testing.T, repo string, file corpus.Doc, chunks []corpus.Doc) {
	t.Helper()
	nlines := strings.Count(strings.TrimSuffix(file.Text, "\n"), "\n") + 1
	want := map[string]int{}
	// Chunk texts drop trailing whitespace (a CR of a CRLF file included).
	for _, l := range strings.Split(file.Text, "\n") {
		if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
			want[l]++
		}
	}
	got := map[string]int{}
	for _, d := range chunks {
		if d.StartLine < 1 || d.EndLine < d.StartLine || d.EndLine > nlines {
			t.Errorf("%s: %s: lines %d-%d outside 1-%d", repo, d.ID, d.StartLine, d.EndLine, nlines)
		}
		for _, l := range strings.Split(d.Text, "\n") {
			if l = strings.TrimRight(l, " \t\r"); strings.TrimSpace(l) != "" {
				got[l]++
			}
		}
	}
	for l, n := range want {
		if got[l] != n {
			t.Errorf("%s: %s: line %q appears %d times in chunks, %d in the file", repo, file.Path, l, got[l], n)
			return
		}
	}
	if len(got) != len(want) {
		t.Errorf("%s: %s: chunks hold %d distinct lines, the file %d", repo, file.Path, len(got), len(want))
	}
}

// checkWhole asserts that the text of every node of the given kinds that
// tree-sitter finds in file (nested ones too) is token-contained in one
// chunk of the file, and returns how many it checked.
func checkWhole(t *testing.T, parser *sitter.Parser, lang string, file corpus.Doc, chunks []corpus.Doc, kinds []string) int {
	t.Helper()
	src := []byte(file.Text)
	tree := parser.Parse(src, nil)
	defer tree.Close()
	toks := make([][]string, len(chunks))
	for i, d := range chunks {
		toks[i] = codetext.Tokens(lang, d.Text)
	}
	n := 0
	var walk func(c *sitter.TreeCursor)
	walk = func(c *sitter.TreeCursor) {
		node := c.Node()
		if slices.Contains(kinds, node.Kind()) {
			n++
			body := string(src[node.StartByte():node.EndByte()])
			m := codetext.NewMatcher(lang, body)
			found := false
			for _, tk := range toks {
				if m.MatchTokens(tk) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s:%d: %s %q is in no chunk whole", file.Path,
					node.StartPosition().Row+1, node.Kind(), firstLine(body))
			}
		}
		if c.GotoFirstChild() {
			for {
				walk(c)
				if !c.GotoNextSibling() {
					break
				}
			}
			c.GotoParent()
		}
	}
	cur := tree.Walk()
	defer cur.Close()
	walk(cur)
	return n
}

// cpuTime returns the user+system CPU time of the process so far, a
// measure that a loaded machine disturbs less than wall time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// BenchmarkCorpusRepoQAPython chunks the ten RepoQA Python repositories
// (1,394 files, 10 MB) per iteration.
func BenchmarkCorpusRepoQAPython(b *testing.B) {
	corpora := loadRepoQAPython(b)
	var bytes, files, chunks int
	for _, c := range corpora {
		files += len(c.Docs)
		for _, d := range c.Docs {
			bytes += len(d.Text)
		}
	}
	b.SetBytes(int64(bytes))
	for b.Loop() {
		chunks = 0
		for _, c := range corpora {
			out, _, err := Corpus(c, DefaultOptions())
			if err != nil {
				b.Fatal(err)
			}
			chunks += len(out.Docs)
		}
	}
	b.ReportMetric(float64(files)*float64(b.N)/b.Elapsed().Seconds(), "files/s")
	b.ReportMetric(float64(chunks), "chunks")
}

// BenchmarkTokensRepoQAPython lexes every file of the ten RepoQA Python
// repositories per iteration (the cost side of the token judge).
func BenchmarkTokensRepoQAPython(b *testing.B) {
	var texts []string
	var bytes int
	for _, c := range loadRepoQAPython(b) {
		for _, d := range c.Docs {
			texts = append(texts, d.Text)
			bytes += len(d.Text)
		}
	}
	b.SetBytes(int64(bytes))
	for b.Loop() {
		for _, s := range texts {
			codetext.Tokens(codetext.Python, s)
		}
	}
}
