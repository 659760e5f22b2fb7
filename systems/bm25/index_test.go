package bm25

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// testOptions caches under a fresh temp dir and sends progress to the test log.
func testOptions(t testing.TB) systems.Options {
	return systems.Options{CacheDir: t.TempDir(), Logf: t.Logf}
}

// newIndex builds an index of c under cfg and closes it at cleanup.
func newIndex(t testing.TB, cfg Config, opt systems.Options, c *corpus.Corpus) *Index {
	t.Helper()
	x, err := New(cfg, opt)
	require.NoError(t, err)
	t.Cleanup(func() { x.Close() })
	require.NoError(t, x.Index(context.Background(), c))
	return x
}

func ids(hits []systems.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.DocID)
	}
	return out
}

// rank is the 1-based rank of id in hits, or 0.
func rank(hits []systems.Hit, id string) int {
	return slices.Index(ids(hits), id) + 1
}

// hostileCorpus holds the words the hostile queries should find.
var hostileCorpus = &corpus.Corpus{ID: "hostile", Docs: []corpus.Doc{
	{ID: "quote", Text: "an unclosed string literal"},
	{ID: "logic", Text: "the and operator and the not operator"},
	{ID: "near", Text: "near neighbours"},
	{ID: "glob", Text: "foo bar"},
	{ID: "foobar", Text: "foobar baz"},
	{ID: "column", Text: "col term"},
	{ID: "xdoc", Text: "x marks the spot"},
	{ID: "sql", Text: "never drop table statements"},
	{ID: "cafe", Text: "café au lait"},
	{ID: "cjk", Text: "日本語 テキスト"},
	{ID: "rocket", Text: "launch 🚀 now"},
	{ID: "binary", Path: "bin/\xff.dat", Text: "blob\x00data \xff\xfe tail"},
}}

func TestHostileQueries(t *testing.T) {
	long := strings.Repeat("foo ", 10000) + "unclosed"
	var many strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&many, "w%d ", i)
	}
	many.WriteString("spot")
	tests := []struct {
		name, query string
		want        []string // must all be among the hits; nil with none: no hits at all
		not         []string // must not be among the hits
		none        bool
		reason      string
	}{
		{name: "unclosed-quote", query: `"unclosed`, want: []string{"quote"}, reason: "a stray quote is punctuation"},
		{name: "lone-quote", query: `"`, none: true, reason: "nothing but a quote"},
		{name: "doubled-quotes", query: `""foo""`, want: []string{"glob"}, reason: "quotes around a word are punctuation"},
		{name: "and", query: "a AND b", want: []string{"logic"}, reason: "AND is the word and"},
		{name: "not", query: "NOT", want: []string{"logic"}, reason: "NOT alone is the word not, not a syntax error"},
		{name: "dangling-or", query: "spot OR", want: []string{"xdoc"}, reason: "a dangling operator is a word"},
		{name: "near", query: "NEAR(a b)", want: []string{"near"}, reason: "NEAR( is the word near"},
		{name: "prefix-star", query: "foo*", want: []string{"glob"}, not: []string{"foobar"}, reason: "* is not a prefix query"},
		{name: "star-only", query: "*", none: true, reason: "punctuation only"},
		{name: "column-filter", query: "col:term", want: []string{"column"}, reason: "col: is not a column filter"},
		{name: "column-set", query: "{symbol path}: foo", want: []string{"glob"}, reason: "{...}: is not a column filter"},
		{name: "open-paren", query: "(x", want: []string{"xdoc"}, reason: "an unbalanced parenthesis is punctuation"},
		{name: "minus", query: "-x", want: []string{"xdoc"}, reason: "- is not negation"},
		{name: "caret", query: "^x", want: []string{"xdoc"}, reason: "^ is not an initial-token marker"},
		{name: "plus", query: "+x", want: []string{"xdoc"}, reason: "+ is not phrase concatenation"},
		{name: "sql-injection", query: "'; DROP TABLE docs; --", want: []string{"sql"}, reason: "SQL in a query is words; the table survives (checked after)"},
		{name: "punctuation", query: `!"#$%&'()*+,-./:;<=>?@[\]^_{|}~`, none: true, reason: "no word characters, no hits"},
		{name: "empty", query: "", none: true, reason: "no terms"},
		{name: "whitespace", query: " \t\n ", none: true, reason: "no terms"},
		{name: "diacritics", query: "CAFE", want: []string{"cafe"}, reason: "case and diacritics fold"},
		{name: "cjk", query: "日本語", want: []string{"cjk"}, reason: "a CJK run is one unicode61 token"},
		{name: "emoji-word", query: "🚀launch", want: []string{"rocket"}, reason: "emoji separate tokens"},
		{name: "emoji-only", query: "🚀🔥", none: true, reason: "symbols are not tokens"},
		{name: "nul", query: "foo\x00bar", want: []string{"glob"}, reason: "a NUL byte separates words"},
		{name: "invalid-utf8", query: "\xff\xfefoo", want: []string{"glob"}, reason: "invalid bytes separate words"},
		{name: "very-long", query: long, want: []string{"quote"}, reason: "a 40 kB query runs; repeated words count once"},
		{name: "after-binary", query: "tail", want: []string{"binary"}, reason: "a doc with NUL and invalid UTF-8 is indexed"},
		{name: "many-terms", query: many.String(), none: true, reason: "more than maxQueryTerms distinct words keeps the first ones (spot is dropped)"},
	}
	for _, cfg := range Configs() {
		t.Run(cfg.Name, func(t *testing.T) {
			x := newIndex(t, cfg, testOptions(t), hostileCorpus)
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					hits, err := x.Search(t.Context(), tt.query, 10)
					require.NoError(t, err, tt.reason)
					got := ids(hits)
					if tt.none && len(got) > 0 {
						t.Errorf("Search(%.40q) = %v, want no hits (%s)", tt.query, got, tt.reason)
					}
					for _, w := range tt.want {
						if !slices.Contains(got, w) {
							t.Errorf("Search(%.40q) = %v, want %s among them (%s)", tt.query, got, w, tt.reason)
						}
					}
					for _, n := range tt.not {
						if slices.Contains(got, n) {
							t.Errorf("Search(%.40q) = %v, want no %s (%s)", tt.query, got, n, tt.reason)
						}
					}
				})
			}
			// The injection attempt left the index intact.
			hits, err := x.Search(t.Context(), "drop table", 10)
			require.NoError(t, err)
			if diff := cmp.Diff([]string{"sql"}, ids(hits)); diff != "" {
				t.Errorf("after hostile queries (-want +got):\n%s", diff)
			}
		})
	}
}

// codeCorpus is a tiny hand-made repository.
var codeCorpus = &corpus.Corpus{ID: "tiny", Commit: "c0ffee", Docs: []corpus.Doc{
	{ID: "net/http.py#parse_http_response", Path: "net/http.py", Symbol: "parse_http_response", Kind: "function",
		Text: "def parse_http_response(raw):\n    status, _, rest = raw.partition(b' ')\n    return int(status), rest\n"},
	{ID: "net/client.js#parseHTTPResponse", Path: "net/client.js", Symbol: "parseHTTPResponse", Kind: "function",
		Text: "function parseHTTPResponse(raw) {\n  const [status, rest] = raw.split(' ');\n  return {status, rest};\n}\n"},
	{ID: "web/render.py#render_template", Path: "web/render.py", Symbol: "render_template", Kind: "function",
		Text: "def render_template(name, **context):\n    return env.get_template(name).render(**context)\n"},
	{ID: "util/strings.py#slugify", Path: "util/strings.py", Symbol: "slugify", Kind: "function",
		Text: "def slugify(title):\n    return '-'.join(title.lower().split())\n"},
	// tokenize appears in the symbol of one doc and twice in the short body of another.
	{ID: "lex/lexer.py#Lexer.tokenize", Path: "lex/lexer.py", Symbol: "Lexer.tokenize", Kind: "method",
		Text: "def tokenize(self):\n    out = []\n    for ch in self.source:\n        if ch.isspace():\n            continue\n        out.append(ch)\n    return out\n"},
	{ID: "lex/notes.py#helper", Path: "lex/notes.py", Symbol: "helper", Kind: "function",
		Text: "# tokenize tokenize\ndef helper(): pass\n"},
}}

func TestRanking(t *testing.T) {
	results := map[string]map[string][]systems.Hit{} // config → query → hits
	queries := []string{"render_template", "http response parse", "tokenize", "slugify title"}
	for _, cfg := range Configs() {
		x := newIndex(t, cfg, testOptions(t), codeCorpus)
		results[cfg.Name] = map[string][]systems.Hit{}
		for _, q := range queries {
			hits, err := x.Search(t.Context(), q, 10)
			require.NoError(t, err)
			results[cfg.Name][q] = hits
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("%s: %q: scores not descending: %v", cfg.Name, q, hits)
				}
			}
		}
	}
	for _, cfg := range Configs() {
		r := results[cfg.Name]
		if got := ids(r["render_template"]); len(got) == 0 || got[0] != "web/render.py#render_template" {
			t.Errorf("%s: exact identifier query: got %v, want render_template first", cfg.Name, got)
		}
		if got := ids(r["slugify title"]); len(got) != 1 || got[0] != "util/strings.py#slugify" {
			t.Errorf("%s: unrelated docs matched: %v", cfg.Name, got)
		}
	}
	for _, name := range []string{"code", "code-weighted"} {
		hits := results[name]["http response parse"]
		for _, id := range []string{"net/http.py#parse_http_response", "net/client.js#parseHTTPResponse"} {
			if r := rank(hits, id); r == 0 || r > 2 {
				t.Errorf("%s: %q: %s at rank %d, want 1 or 2 (hits %v)", name, "http response parse", id, r, ids(hits))
			}
		}
	}
	// Without identifier splitting camelCase stays one token: the difference the code tokenizer makes.
	if r := rank(results["unicode61"]["http response parse"], "net/client.js#parseHTTPResponse"); r != 0 {
		t.Errorf("unicode61 found parseHTTPResponse from its parts at rank %d; the test corpus no longer shows the code tokenizer's effect", r)
	}
	plain := rank(results["code"]["tokenize"], "lex/lexer.py#Lexer.tokenize")
	weighted := rank(results["code-weighted"]["tokenize"], "lex/lexer.py#Lexer.tokenize")
	if !(weighted < plain) {
		t.Errorf("symbol weight: Lexer.tokenize at rank %d with code-weighted, %d with code; want it to move up", weighted, plain)
	}
}

func TestTieOrderByDocID(t *testing.T) {
	c := &corpus.Corpus{ID: "ties", Docs: []corpus.Doc{
		{ID: "c", Text: "same words"}, {ID: "a", Text: "same words"}, {ID: "b", Text: "same words"}, {ID: "d", Text: "other"},
	}}
	for _, cfg := range Configs() {
		x := newIndex(t, cfg, testOptions(t), c)
		hits, err := x.Search(t.Context(), "same", 10)
		require.NoError(t, err)
		if diff := cmp.Diff([]string{"a", "b", "c"}, ids(hits)); diff != "" {
			t.Errorf("%s: equal scores not ordered by doc id (-want +got):\n%s", cfg.Name, diff)
		}
		if len(hits) == 3 && (hits[0].Score != hits[2].Score || hits[0].Score <= 0) {
			t.Errorf("%s: scores %v: want equal and positive", cfg.Name, hits)
		}
		top, err := x.Search(t.Context(), "same", 2)
		require.NoError(t, err)
		if diff := cmp.Diff([]string{"a", "b"}, ids(top)); diff != "" {
			t.Errorf("%s: k=2 (-want +got):\n%s", cfg.Name, diff)
		}
	}
}

func TestTitleIsSearched(t *testing.T) {
	c := &corpus.Corpus{ID: "beir", Docs: []corpus.Doc{
		{ID: "d1", Title: "Quaternion rotation", Text: "body text"},
		{ID: "d2", Text: "body text"},
	}}
	x := newIndex(t, DefaultConfig(), testOptions(t), c)
	hits, err := x.Search(t.Context(), "quaternion", 10)
	require.NoError(t, err)
	if diff := cmp.Diff([]string{"d1"}, ids(hits)); diff != "" {
		t.Errorf("title not searched (-want +got):\n%s", diff)
	}
}

func TestSearchEdgeCases(t *testing.T) {
	x, err := New(DefaultConfig(), testOptions(t))
	require.NoError(t, err)
	defer x.Close()
	if _, err := x.Search(t.Context(), "x", 10); err == nil {
		t.Error("Search before Index: no error")
	}
	require.NoError(t, x.Index(t.Context(), &corpus.Corpus{ID: "empty"}))
	hits, err := x.Search(t.Context(), "anything", 10)
	if err != nil || len(hits) != 0 {
		t.Errorf("empty corpus: Search = %v, %v; want no hits, no error", hits, err)
	}
	require.NoError(t, x.Index(t.Context(), codeCorpus))
	if hits, err := x.Search(t.Context(), "tokenize", 0); err != nil || len(hits) != 0 {
		t.Errorf("k=0: Search = %v, %v; want no hits, no error", hits, err)
	}
	if err := x.Index(t.Context(), nil); err == nil {
		t.Error("Index(nil): no error")
	}
	dup := &corpus.Corpus{ID: "dup", Docs: []corpus.Doc{{ID: "a", Text: "x"}, {ID: "a", Text: "y"}}}
	if err := x.Index(t.Context(), dup); err == nil || !strings.Contains(err.Error(), `duplicate doc id "a"`) {
		t.Errorf("duplicate ids: Index = %v, want an error naming the id", err)
	}
}

func TestNoCacheDirUsesTempDir(t *testing.T) {
	x, err := New(DefaultConfig(), systems.Options{})
	require.NoError(t, err)
	require.NoError(t, x.Index(t.Context(), codeCorpus))
	path := x.Stats().Path
	require.FileExists(t, path)
	require.NoError(t, x.Close())
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("temporary index %s survives Close (stat: %v)", path, err)
	}
}

func TestCache(t *testing.T) {
	cfg := DefaultConfig()
	opt := testOptions(t)
	search := func(x *Index) []systems.Hit {
		hits, err := x.Search(t.Context(), "http response parse", 10)
		require.NoError(t, err)
		return hits
	}

	first := newIndex(t, cfg, opt, codeCorpus)
	st := first.Stats()
	require.False(t, st.Reused, "first build must not reuse")
	wantDir := filepath.Join(opt.CacheDir, "bm25", codeCorpus.Hash()[:16]+"-"+cfg.Hash()[:16])
	require.Equal(t, filepath.Join(wantDir, "index.db"), st.Path)
	want := search(first)
	require.NotEmpty(t, want)
	entries, err := os.ReadDir(wantDir)
	require.NoError(t, err)
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "build.json index.db" {
		t.Errorf("cache dir holds %v, want build.json and index.db (no temp files left)", names)
	}
	built := first.IndexReport()
	require.False(t, built.Reused)
	require.Positive(t, built.BuildTime)
	info, err := os.Stat(st.Path)
	require.NoError(t, err)
	require.NoError(t, first.Close())

	t.Run("reuse", func(t *testing.T) {
		x := newIndex(t, cfg, opt, codeCorpus)
		if !x.Stats().Reused {
			t.Error("second index of the same corpus and config was rebuilt")
		}
		// The reused index reports the first build's time, recorded with
		// the cache entry: its cold cost, not this call's.
		if got := x.IndexReport(); !got.Reused || got.BuildTime.Round(time.Microsecond) != built.BuildTime.Round(time.Microsecond) || got.CPUClass != built.CPUClass {
			t.Errorf("reused index reports %+v, want reused with the first build's %+v", got, built)
		}
		again, err := os.Stat(x.Stats().Path)
		require.NoError(t, err)
		if !again.ModTime().Equal(info.ModTime()) || !os.SameFile(info, again) {
			t.Error("index file was rewritten on reuse")
		}
		if diff := cmp.Diff(want, search(x)); diff != "" {
			t.Errorf("reused index answers differently (-want +got):\n%s", diff)
		}
	})

	t.Run("nocache", func(t *testing.T) {
		o := opt
		o.NoCache = true
		x := newIndex(t, cfg, o, codeCorpus)
		if x.Stats().Reused || x.Stats().BuildTime <= 0 {
			t.Errorf("NoCache: stats %+v, want a rebuild", x.Stats())
		}
		again, err := os.Stat(x.Stats().Path)
		require.NoError(t, err)
		if os.SameFile(info, again) {
			t.Error("NoCache did not replace the index file")
		}
		if diff := cmp.Diff(want, search(x)); diff != "" {
			t.Errorf("rebuilt index answers differently (-want +got):\n%s", diff)
		}
	})

	t.Run("other-config-and-corpus", func(t *testing.T) {
		other, err := ConfigByName("porter")
		require.NoError(t, err)
		x := newIndex(t, other, opt, codeCorpus)
		if x.Stats().Reused || x.Stats().Path == st.Path {
			t.Errorf("another config shares the index: %+v", x.Stats())
		}
		c2 := *codeCorpus
		c2.Commit = "deadbeef"
		y := newIndex(t, cfg, opt, &c2)
		if y.Stats().Reused || y.Stats().Path == st.Path {
			t.Errorf("another corpus shares the index: %+v", y.Stats())
		}
	})
}

func TestDamagedIndexIsRebuilt(t *testing.T) {
	cfg := DefaultConfig()
	tests := []struct {
		name   string
		damage func(t *testing.T, path string)
		reason string
	}{
		{"garbage", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, []byte(strings.Repeat("not a database ", 100)), 0o644))
		}, "not an SQLite file at all"},
		{"truncated", func(t *testing.T, path string) {
			info, err := os.Stat(path)
			require.NoError(t, err)
			require.NoError(t, os.Truncate(path, info.Size()/2))
		}, "a half-written file"},
		{"empty", func(t *testing.T, path string) {
			require.NoError(t, os.WriteFile(path, nil, 0o644))
		}, "an empty file opens as an empty database"},
		{"no-meta", func(t *testing.T, path string) {
			// A valid database whose completion record is gone.
			db, err := sql.Open("sqlite3", path)
			require.NoError(t, err)
			defer db.Close()
			_, err = db.Exec(`DELETE FROM meta`)
			require.NoError(t, err)
		}, "an index without its completion record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opt := testOptions(t)
			var logs []string
			var mu sync.Mutex
			opt.Logf = func(format string, args ...any) {
				mu.Lock()
				defer mu.Unlock()
				logs = append(logs, fmt.Sprintf(format, args...))
			}
			x := newIndex(t, cfg, opt, codeCorpus)
			want, err := x.Search(t.Context(), "tokenize", 10)
			require.NoError(t, err)
			path := x.Stats().Path
			require.NoError(t, x.Close())
			tt.damage(t, path)

			y := newIndex(t, cfg, opt, codeCorpus)
			if y.Stats().Reused {
				t.Fatalf("damaged index reused (%s)", tt.reason)
			}
			got, err := y.Search(t.Context(), "tokenize", 10)
			require.NoError(t, err)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("rebuilt index answers differently (-want +got):\n%s", diff)
			}
			if !slices.ContainsFunc(logs, func(s string) bool { return strings.Contains(s, "not usable, rebuilding") }) {
				t.Errorf("no log line says why the cache was not used: %q", logs)
			}
		})
	}
}

func TestCanceledBuildLeavesNothing(t *testing.T) {
	opt := testOptions(t)
	x, err := New(DefaultConfig(), opt)
	require.NoError(t, err)
	defer x.Close()
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	if err := x.Index(ctx, generatedCorpus(2000)); err == nil {
		t.Fatal("Index with a canceled context: no error")
	}
	var left []string
	filepath.WalkDir(opt.CacheDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			left = append(left, p)
		}
		return nil
	})
	if len(left) > 0 {
		t.Errorf("canceled build left files: %v", left)
	}
}

func TestProgressLog(t *testing.T) {
	var logs []string
	opt := systems.Options{CacheDir: t.TempDir(), Logf: func(f string, a ...any) { logs = append(logs, fmt.Sprintf(f, a...)) }}
	start := time.Now()
	newIndex(t, DefaultConfig(), opt, generatedCorpus(progressDocs+10))
	t.Logf("indexed %d generated docs in %s", progressDocs+10, time.Since(start))
	want := fmt.Sprintf("%d/%d docs (", progressDocs, progressDocs+10)
	if !slices.ContainsFunc(logs, func(s string) bool { return strings.Contains(s, want) }) {
		t.Errorf("no progress line containing %q in %q", want, logs)
	}
}

func TestStaleTempFilesRemoved(t *testing.T) {
	opt := testOptions(t)
	cfg := DefaultConfig()
	dir := filepath.Join(opt.CacheDir, "bm25", codeCorpus.Hash()[:16]+"-"+cfg.Hash()[:16])
	require.NoError(t, os.MkdirAll(dir, 0o755))
	stale, fresh := filepath.Join(dir, "index.db.tmp-1"), filepath.Join(dir, "index.db.tmp-2")
	for _, p := range []string{stale, fresh} {
		require.NoError(t, os.WriteFile(p, []byte("partial"), 0o644))
	}
	old := time.Now().Add(-2 * staleAfter)
	require.NoError(t, os.Chtimes(stale, old, old))
	newIndex(t, cfg, opt, codeCorpus)
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("stale temp file of a dead build survives (stat: %v)", err)
	}
	if _, err := os.Stat(fresh); err != nil {
		t.Errorf("fresh temp file, maybe a concurrent build, was removed: %v", err)
	}
}

// TestNoFTS5SpeaksToAnyModule checks the missing-tag hint names the flag and
// the variable a user's module sets, not this repository's Makefile (a
// build without the tag is checked by nofts5_test.go's TestMain).
func TestNoFTS5SpeaksToAnyModule(t *testing.T) {
	for _, want := range []string{"-tags=sqlite_fts5", "GOFLAGS=-tags=sqlite_fts5", "mattn/go-sqlite3"} {
		if !strings.Contains(noFTS5, want) {
			t.Errorf("hint %q lacks %q", noFTS5, want)
		}
	}
	if strings.Contains(noFTS5, "Makefile") {
		t.Errorf("hint %q names a Makefile a user's module does not have", noFTS5)
	}
}
