package cases

import (
	"archive/tar"
	"compress/gzip"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

const fixture = "../../fixtures/cases"

func TestLoadFixture(t *testing.T) {
	ds, err := Load(filepath.Join(fixture, "cases.jsonl"), filepath.Join(fixture, "manifest.json"), DefaultConfig())
	require.NoError(t, err)
	require.Len(t, ds.Tasks, 10)
	intents, kinds := map[string]int{}, map[string]int{}
	for _, task := range ds.Tasks {
		intents[task.Meta.Intent]++
		for _, g := range task.Gold {
			kinds[g.Kind]++
		}
	}
	for _, in := range Intents() {
		if intents[in] == 0 {
			t.Errorf("fixture has no %s case", in)
		}
	}
	for _, k := range Kinds() {
		if kinds[k] == 0 {
			t.Errorf("fixture has no %s judgment", k)
		}
	}
	want := datasets.Task{
		ID: "minikv-002", Query: "how does the store rebuild its in-memory index on startup", CorpusID: "minikv",
		Gold: []datasets.Relevant{{Kind: "symbol", ID: "Store._replay", Grade: 3}, {Kind: "symbol", ID: "read_records", Grade: 2, Path: "minikv/log.py"}},
		Meta: datasets.Meta{Repo: "minikv", Intent: "architecture_lookup", Difficulty: "medium", Language: "python"},
	}
	if diff := cmp.Diff(want, ds.Tasks[1]); diff != "" {
		t.Errorf("task 2 (-want +got):\n%s", diff)
	}
	var paths []string
	for _, d := range ds.Corpora["shorturl"].Docs {
		paths = append(paths, d.Path+":"+d.Language)
	}
	if diff := cmp.Diff([]string{"README.md:", "package.json:", "src/shorten.ts:typescript", "test/shorten.test.ts:typescript"}, paths); diff != "" {
		t.Errorf("shorturl corpus (-want +got):\n%s", diff)
	}
	// doc_section gold must name a doc the judge can hit.
	for _, task := range ds.Tasks {
		ids := ds.Corpora[task.CorpusID].Lookup()
		for _, g := range task.Gold {
			if _, ok := ids[g.ID]; g.Kind == "doc_section" && !ok {
				t.Errorf("%s: doc_section %s is no doc of the corpus", task.ID, g.ID)
			}
		}
	}
	sort.Strings(ds.Notes)
	if diff := cmp.Diff([]string{
		`minikv: commit not verifiable (no git metadata); manifest says "fixture-v1"`,
		`shorturl: commit not verifiable (no git metadata); manifest says "fixture-v1"`,
	}, ds.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
}

// writeCase writes a one-repository manifest and the given case lines.
func writeCase(t *testing.T, lines ...string) (cases, manifest string) {
	t.Helper()
	dir := t.TempDir()
	repo, err := filepath.Abs(filepath.Join(fixture, "repos", "minikv"))
	require.NoError(t, err)
	manifest = filepath.Join(dir, "manifest.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"minikv": {"path": "`+repo+`", "commit": "x"}}`), 0o644))
	cases = filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(cases, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	return cases, manifest
}

const good = `{"id": "c1", "repo": "minikv", "intent": "symbol_lookup", "language": "python", "channel": "chat", "difficulty": "easy", "query": "q", "relevant": [{"kind": "file", "path": "minikv/store.py", "grade": 1}]}`

func withField(old, repl string) string { return strings.Replace(good, old, repl, 1) }

func TestValidation(t *testing.T) {
	tests := []struct {
		name    string
		lines   []string
		wantErr string
		reason  string
	}{
		{"duplicate id", []string{good, good}, `cases.jsonl:2: duplicate id "c1" (first on line 1)`, "ids are unique"},
		{"unknown repo", []string{withField(`"repo": "minikv"`, `"repo": "nokv"`)}, `cases.jsonl:1: c1: unknown repo "nokv"`, "repo not in the manifest"},
		{"unknown intent", []string{withField(`symbol_lookup`, `vibes_lookup`)}, `cases.jsonl:1: c1: unknown intent "vibes_lookup"`, "not one of the five intents"},
		{"empty query", []string{withField(`"query": "q"`, `"query": "  "`)}, "cases.jsonl:1: c1: empty query", "blank query"},
		{"grade high", []string{withField(`"grade": 1`, `"grade": 4`)}, "cases.jsonl:1: c1: relevant[0]: grade 4 outside 0..3", "grades are 0..3"},
		{"grade negative", []string{withField(`"grade": 1`, `"grade": -1`)}, "relevant[0]: grade -1 outside 0..3", "grades are 0..3"},
		{"unknown kind", []string{withField(`"kind": "file"`, `"kind": "line"`)}, `cases.jsonl:1: c1: relevant[0]: unknown kind "line"`, "not one of the five kinds"},
		{"missing path", []string{withField(`minikv/store.py`, `minikv/shop.py`)}, `cases.jsonl:1: c1: relevant[0]: path "minikv/shop.py" not in the repository`, "file absent from the corpus"},
		{"missing symbol", []string{withField(`{"kind": "file", "path": "minikv/store.py", "grade": 1}`, `{"kind": "symbol", "id": "Store.upsert", "grade": 1}`)}, `c1: relevant[0]: symbol "Store.upsert": no definition in the repository`, "symbol absent from the corpus"},
		{"symbol wrong file", []string{withField(`{"kind": "file", "path": "minikv/store.py", "grade": 1}`, `{"kind": "symbol", "id": "read_records", "path": "minikv/store.py", "grade": 1}`)}, `symbol "read_records": no definition in minikv/store.py`, "symbol defined elsewhere"},
		{"missing section", []string{withField(`{"kind": "file", "path": "minikv/store.py", "grade": 1}`, `{"kind": "doc_section", "id": "docs/usage.md#backups", "grade": 1}`)}, `doc_section "docs/usage.md#backups": no heading "backups" in docs/usage.md`, "heading absent"},
		{"wrong class", []string{withField(`{"kind": "file", "path": "minikv/store.py", "grade": 1}`, `{"kind": "symbol", "id": "LogWriter.get", "grade": 1}`)}, `symbol "LogWriter.get": no definition in the repository`, "get exists, but on Store: chunk symbols are qualified"},
		{"bad json", []string{good, "{nope"}, "cases.jsonl:2:", "malformed line"},
		{"unknown field", []string{withField(`"channel"`, `"chanel"`)}, `cases.jsonl:1: json: unknown field "chanel"`, "typo in a field name"},
		{"no relevant", []string{withField(`[{"kind": "file", "path": "minikv/store.py", "grade": 1}]`, `[]`)}, "cases.jsonl:1: c1: no relevant judgments", "nothing to judge"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cases, manifest := writeCase(t, tc.lines...)
			_, err := Load(cases, manifest, DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load error = %v, want it to contain %q (%s)", err, tc.wantErr, tc.reason)
			}
			filelinetest.Want(t, err, tc.wantErr)
		})
	}
}

func TestDocSectionWholeFile(t *testing.T) {
	cases, manifest := writeCase(t, withField(`{"kind": "file", "path": "minikv/store.py", "grade": 1}`, `{"kind": "doc_section", "id": "docs/usage.md", "grade": 2}, {"kind": "doc_section", "id": "docs/usage.md#Durability", "grade": 3}`))
	ds, err := Load(cases, manifest, DefaultConfig())
	require.NoError(t, err)
	want := []datasets.Relevant{{Kind: "file", ID: "docs/usage.md", Grade: 2}, {Kind: "doc_section", ID: "docs/usage.md#durability", Grade: 3}}
	if diff := cmp.Diff(want, ds.Tasks[0].Gold); diff != "" {
		t.Errorf("gold (-want +got):\n%s\nreason: a bare path is any section; a heading text is stored as its slug", diff)
	}
}

func TestValidationReportsAll(t *testing.T) {
	cases, manifest := writeCase(t, withField(`"query": "q"`, `"query": ""`), good, withField(`symbol_lookup`, `x`))
	_, err := Load(cases, manifest, DefaultConfig())
	require.Error(t, err)
	for _, want := range []string{"cases.jsonl:1: c1: empty query", `cases.jsonl:2: duplicate id "c1"`, "cases.jsonl:3: duplicate id"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestManifestValidation(t *testing.T) {
	for _, tc := range []struct{ name, manifest, want string }{
		{"both", `{"a": {"path": "x", "archive": "y.zip", "commit": "c"}}`, `manifest.json:1: repo "a": needs exactly one of "path", "archive" and "datapack"`},
		{"path and datapack", `{"a": {"path": "x", "datapack": "y.jsonl", "commit": "c"}}`, `repo "a": needs exactly one`},
		{"entry without datapack", `{"a": {"path": "x", "entry": "o/r", "commit": "c"}}`, `"entry" only goes with "datapack"`},
		{"datapack escapes", `{"a": {"datapack": "../x.jsonl.gz", "commit": "c"}}`, `must be a slash-separated path inside the data pack`},
		{"datapack absolute", `{"a": {"datapack": "/x.jsonl.gz", "commit": "c"}}`, `must be a slash-separated path inside`},
		{"datapack format", `{"a": {"datapack": "x.tar.gz", "commit": "c"}}`, `unknown format`},
		{"repoqa needs entry", `{"a": {"datapack": "repoqa/c.json.gz", "commit": "c"}}`, `name one with "entry"`},
		{"jsonl takes no entry", `{"a": {"datapack": "swe-qa/corpora/a.jsonl.gz", "entry": "o/r", "commit": "c"}}`, `drop "entry"`},
		{"neither", "{\n\"a\": {\"commit\": \"c\"}}", `manifest.json:2: repo "a": needs exactly one`},
		{"syntax", "{\n\"a\": ", "manifest.json:2:"},
		{"unknown field", `{"a": {"dir": "x"}}`, `unknown field "dir"`},
		{"empty", `{}`, "no repositories"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(t.TempDir(), "manifest.json")
			require.NoError(t, os.WriteFile(f, []byte(tc.manifest), 0o644))
			_, err := ReadManifest(f)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("ReadManifest error = %v, want %q", err, tc.want)
			}
			filelinetest.Want(t, err, tc.want)
		})
	}
}

// TestCommitDrift builds a git-archive-style tarball (pax comment = commit,
// one top-level directory) and a checkout with .git/HEAD, and checks that
// a manifest commit differing from theirs is flagged.
func TestCommitDrift(t *testing.T) {
	dir := t.TempDir()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	tgz := filepath.Join(dir, "kv.tar.gz")
	f, err := os.Create(tgz)
	require.NoError(t, err)
	gz := gzip.NewWriter(f)
	tw := tar.NewWriter(gz)
	require.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeXGlobalHeader, Name: "pax_global_header", PAXRecords: map[string]string{"comment": commit}}))
	body := "def get(key):\n    return key\n"
	require.NoError(t, tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: "kv-0123456/kv.py", Mode: 0o644, Size: int64(len(body))}))
	_, err = tw.Write([]byte(body))
	require.NoError(t, err)
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	require.NoError(t, f.Close())

	checkout := filepath.Join(dir, "co")
	require.NoError(t, os.MkdirAll(filepath.Join(checkout, ".git", "refs", "heads"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(checkout, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(checkout, ".git", "refs", "heads", "main"), []byte(commit+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(checkout, "kv.py"), []byte(body), 0o644))

	for _, tc := range []struct {
		name       string
		spec       RepoSpec
		wantStatus CommitStatus
		wantNote   string
	}{
		{"archive same", RepoSpec{Archive: "kv.tar.gz", Commit: "0123456"}, CommitMatches, ""},
		{"archive drift", RepoSpec{Archive: "kv.tar.gz", Commit: "fedcba9"}, CommitDrift, `commit drift: kv corpus is at ` + commit + `, manifest pins "fedcba9"`},
		{"checkout same", RepoSpec{Path: "co", Commit: commit}, CommitMatches, ""},
		{"checkout drift", RepoSpec{Path: "co", Commit: "abc"}, CommitDrift, "commit drift: kv corpus is at " + commit},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, note, err := LoadRepo("kv", tc.spec, dir)
			require.NoError(t, err)
			if note.Status != tc.wantStatus {
				t.Errorf("note status = %v, want %v (%q)", note.Status, tc.wantStatus, note.Text)
			}
			if !strings.HasPrefix(note.Text, tc.wantNote) || (tc.wantNote == "") != (note.Text == "") {
				t.Errorf("note = %q, want prefix %q", note.Text, tc.wantNote)
			}
			if len(c.Docs) != 1 || c.Docs[0].Path != "kv.py" || c.Commit != commit {
				t.Errorf("corpus = %d docs, first %q, commit %q; want kv.py at %s", len(c.Docs), c.Docs[0].Path, c.Commit, commit)
			}
		})
	}
}

func TestSectionDocs(t *testing.T) {
	md := "intro line\n\n# Title\ntext\n```\n# not a heading\n```\n## Usage\nuse it\n## Usage\nagain\n"
	rst := "=====\nTitle\n=====\n\nIntro.\n\nInstall\n-------\npip install\n"
	type sec struct {
		ID, Symbol string
		Start, End int
	}
	for _, tc := range []struct {
		name, path, text string
		want             []sec
	}{
		{"markdown", "a.md", md, []sec{
			{"a.md", "", 1, 2},
			{"a.md#title", "Title", 3, 7},
			{"a.md#usage", "Usage", 8, 9},
			{"a.md#usage-1", "Usage", 10, 12},
		}},
		{"rst with overline", "b.rst", rst, []sec{
			{"b.rst#title", "Title", 1, 6},
			{"b.rst#install", "Install", 7, 10},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []sec
			for _, d := range sectionDocs(tc.path, tc.text) {
				got = append(got, sec{d.ID, d.Symbol, d.StartLine, d.EndLine})
				if d.Path != tc.path || d.Kind != "doc_section" {
					t.Errorf("%s: path %q kind %q", d.ID, d.Path, d.Kind)
				}
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("sections (-want +got):\n%s", diff)
			}
		})
	}
}

// TestValidateKeepsGoing: where Load stops at a repository that fails to
// load, Validate says so at the first case that names it and goes on to
// the other cases; without a manifest it checks the file alone.
func TestValidateKeepsGoing(t *testing.T) {
	cases, manifest := writeCase(t, good)
	lines := []string{
		strings.Replace(good, `"repo": "minikv"`, `"repo": "gone"`, 1),
		strings.Replace(good, `"id": "c1"`, `"id": "c2"`, 1),
		strings.Replace(strings.Replace(good, `"id": "c1"`, `"id": "c3"`, 1), `"repo": "minikv"`, `"repo": "gone"`, 1),
		strings.Replace(strings.Replace(good, `"id": "c1"`, `"id": "c4"`, 1), "minikv/store.py", "minikv/shop.py", 1),
	}
	require.NoError(t, os.WriteFile(cases, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	m, err := os.ReadFile(manifest)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(manifest, []byte(strings.Replace(string(m), "{\"minikv\"", "{\"gone\": {\"path\": \"no/such\", \"commit\": \"x\"}, \"minikv\"", 1)), 0o644))

	_, err = Load(cases, manifest, DefaultConfig())
	require.ErrorContains(t, err, "repo gone", "Load stops at the repository")

	sum, err := Validate(cases, manifest)
	require.Error(t, err)
	msgs := strings.Split(err.Error(), "\n")
	require.Len(t, msgs, 2, "the repository once, then c4's path: %v", msgs)
	require.Contains(t, msgs[0], "cases.jsonl:1: c1: repo gone")
	require.Contains(t, msgs[1], `cases.jsonl:4: c4: relevant[0]: path "minikv/shop.py" not in the repository`)
	require.Equal(t, Summary{Cases: 4, Judgments: 4, Repos: []string{"gone", "minikv"}, Checked: true,
		Notes: []string{`minikv: commit not verifiable (no git metadata); manifest says "x"`}}, sum)

	sum, err = Validate(cases, "")
	require.NoError(t, err, "the file alone is well formed")
	require.False(t, sum.Checked)
}

// TestManifestExclude: a repository's exclude patterns come after the
// run's, so "!testdata/" keeps what the default leaves out; a malformed
// pattern is an error naming the file, the line and the repository.
func TestManifestExclude(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "repos.json")
	require.NoError(t, os.WriteFile(f, []byte("{\n  \"a\": {\"path\": \"a\", \"commit\": \"x\", \"exclude\": [\"!testdata/\", \"docs/\"]},\n  \"b\": {\"path\": \"b\", \"commit\": \"y\"}\n}\n"), 0o644))
	m, err := ReadManifest(f)
	require.NoError(t, err)
	base := chunk.RepoOptions()
	a := m.ChunkOptions("a", base)
	require.Equal(t, append(chunk.DefaultExcludePaths(), "!testdata/", "docs/"), a.Exclude.Paths)
	require.Equal(t, chunk.DefaultExcludePaths(), base.Exclude.Paths, "base is not modified")
	doc := func(p string) *corpus.Doc { return &corpus.Doc{ID: p, Path: p, Kind: "file", Text: "x"} }
	require.Empty(t, a.Exclude.Match(doc("pkg/testdata/in.json")), "a's testdata is indexed")
	require.Equal(t, "docs/", a.Exclude.Match(doc("docs/x.go")))
	require.Equal(t, "testdata/", m.ChunkOptions("b", base).Exclude.Match(doc("pkg/testdata/in.json")), "b keeps the default")

	require.NoError(t, os.WriteFile(f, []byte("{\n  \"a\": {\"path\": \"a\", \"commit\": \"x\", \"exclude\": [\"[\"]}\n}\n"), 0o644))
	_, err = ReadManifest(f)
	require.ErrorContains(t, err, "repos.json:2: repo \"a\": exclude pattern \"[\"")
}
