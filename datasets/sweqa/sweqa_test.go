package sweqa

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func TestResolve(t *testing.T) {
	paths := []string{
		"src/flask/app.py", "src/flask/json/provider.py", "src/flask/blueprints.py",
		"src/flask/sansio/blueprints.py", "src/flask/__init__.py", "src/flask/debughelpers.py",
		"tests/test_json.py", "docs/errorhandling.rst", "src/flask/typing.pyi", "src/flask/typing.py",
	}
	r := NewResolver(paths)
	tests := []struct {
		name, answer string
		want         []string
		reason       string
	}{
		{"path with line range", "In `src/flask/app.py` (lines 10-20) the app", []string{"src/flask/app.py"}, "exact path, the range is ignored"},
		{"path colon lines", "see src/flask/app.py: lines 5-7.", []string{"src/flask/app.py"}, "colon ends the token"},
		{"cursor citation", "```28:31:src/flask/app.py\ncode\n```", []string{"src/flask/app.py"}, "start:end:path code fence"},
		{"suffix path", "`flask/json/provider.py`", []string{"src/flask/json/provider.py"}, "unique corpus path ending in /cited"},
		{"prefixed path", "/workspace/flask/src/flask/app.py", []string{"src/flask/app.py"}, "citation with an absolute checkout prefix"},
		{"dotted module", "the `flask.json.provider` module", []string{"src/flask/json/provider.py"}, "module name resolved under src/"},
		{"module attribute", "`flask.json.provider.DefaultJSONProvider.dumps`", []string{"src/flask/json/provider.py"}, "module followed by Class.method"},
		{"package exact", "the `flask` package and `flask.app`", []string{"src/flask/app.py"}, "one-part names are never resolved"},
		{"package prefix only", "`flask.gone.Thing`", nil, "a package __init__ is not a fallback for a missing module"},
		{"pyi stub", "`flask.typing`", []string{"src/flask/typing.py"}, "a .py source wins over its .pyi stub"},
		{"unique basename", "in `debughelpers.py`", []string{"src/flask/debughelpers.py"}, "bare name with a unique basename"},
		{"ambiguous basename", "in `blueprints.py` only", nil, "two blueprints.py: ambiguous, dropped"},
		{"missing file", "see `src/flask/missing.c`", nil, "not in the corpus"},
		{"order and dedup", "tests/test_json.py then src/flask/app.py then tests/test_json.py", []string{"tests/test_json.py", "src/flask/app.py"}, "first-citation order, no duplicates"},
		{"prose", "It is a rendering backend, e.g. described in prose.", nil, "nothing cited"},
		{"rst doc", "docs/errorhandling.rst.", []string{"docs/errorhandling.rst"}, "trailing period trimmed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, r.Resolve(tc.answer)); diff != "" {
				t.Errorf("Resolve(%q) (-want +got):\n%s\nreason: %s", tc.answer, diff, tc.reason)
			}
		})
	}
}

// TestResolveRealAnswers checks the extractor on answers of the data pack,
// identified by repository and line (the expected files were read off the
// answer text by hand).
func TestResolveRealAnswers(t *testing.T) {
	dir := filepath.Dir(testenv.MustHaveData(t, "swe-qa/repo_commit.txt"))
	tests := []struct {
		repo   string
		line   int
		want   []string
		reason string
	}{
		{"flask", 1, []string{"src/flask/json/provider.py", "tests/test_json.py"}, "paths with (lines a-b)"},
		{"flask", 2, []string{"src/flask/sansio/blueprints.py", "src/flask/sansio/scaffold.py"}, "bare blueprints.py is ambiguous (two files) and ignored"},
		{"requests", 2, []string{"tests/test_utils.py", "src/requests/utils.py"}, "paths in parentheses"},
		{"sqlfluff", 2, []string{"src/sqlfluff/core/config/fluffconfig.py", "test/core/config/fluffconfig_test.py"}, "src/ and test/ paths"},
		{"conan", 2, []string{"conans/server/rest/bottle_plugins/authorization_header.py", "conans/server/rest/bottle_plugins/http_basic_authentication.py", "conans/server/rest/api_v2.py", "conans/server/rest/controller/v2/users.py"}, "bare basenames and start:end:path fences"},
		{"conan", 7, []string{"conan/internal/api/local/editable.py", "conan/api/model.py", "conan/internal/conan_app.py", "conan/api/subapi/local.py"}, "/workspace/ prefixes; conan.api.model from an import line in a quoted snippet; proxy.py and conan.internal.util.files are absent at the used commit (drift)"},
	}
	for _, tc := range tests {
		t.Run(tc.repo+"/"+itoa(tc.line), func(t *testing.T) {
			c, err := ReadCorpus(filepath.Join(dir, "corpora", tc.repo+".jsonl.gz"), tc.repo, "")
			require.NoError(t, err)
			rows, err := readRows(filepath.Join(dir, "questions", tc.repo+".jsonl"))
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(rows), tc.line)
			var paths []string
			for _, d := range c.Docs {
				paths = append(paths, d.Path)
			}
			got := NewResolver(paths).Resolve(rows[tc.line-1].answer)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s\nreason: %s", diff, tc.reason)
			}
		})
	}
}

func itoa(i int) string { return strconv.Itoa(i) }

func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(content), 0o644))
	return p
}

// packDir writes a one-repository swe-qa folder and returns the data dir.
func packDir(t *testing.T, questions, corpusText, commits string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "swe-qa/repo_commit.txt", commits)
	writeFile(t, dir, "swe-qa/questions/demo.jsonl", questions)
	if corpusText != "" {
		writeFile(t, dir, "swe-qa/corpora/demo.jsonl", corpusText)
	}
	return dir
}

const goodCorpus = `{"path": "pkg/mod.py", "text": "def f():\n    pass\n"}
{"path": "README.md", "text": "# demo"}
`

func TestLoadValidation(t *testing.T) {
	const commits = "https://example.org/acme/demo abc1234\n"
	tests := []struct {
		name, questions, corpus, commits, wantErr, reason string
	}{
		{"bad json", "{\"question\": \"q\", \"answer\": \"pkg/mod.py\"}\n{oops\n", goodCorpus, commits, "demo.jsonl:2:", "malformed line"},
		{"missing question", `{"answer": "pkg/mod.py"}`, goodCorpus, commits, `demo.jsonl:1: missing "question"`, "required field"},
		{"empty question", `{"question": "  ", "answer": "pkg/mod.py"}`, goodCorpus, commits, "demo.jsonl:1: empty question", "blank query"},
		{"missing answer", `{"question": "q"}`, goodCorpus, commits, `demo.jsonl:1: missing "answer"`, "no answer to extract gold from"},
		{"duplicate path", `{"question": "q", "answer": "pkg/mod.py"}`, goodCorpus + `{"path": "pkg/mod.py", "text": ""}` + "\n", commits, `demo.jsonl:3: duplicate path "pkg/mod.py" (first on line 1)`, "corpus paths are ids"},
		{"escaping path", `{"question": "q", "answer": "x"}`, `{"path": "../etc/passwd", "text": ""}`, commits, "demo.jsonl:1: path \"../etc/passwd\" escapes the corpus root", "path outside the repository"},
		{"missing text", `{"question": "q", "answer": "x"}`, `{"path": "a.py"}`, commits, `demo.jsonl:1: missing "text"`, "corpus row without text"},
		{"bad repo_commit", `{"question": "q", "answer": "x"}`, goodCorpus, "https://example.org/acme/demo\n", "repo_commit.txt:1: want \"URL COMMIT\"", "commit missing"},
		{"unlisted repo", `{"question": "q", "answer": "x"}`, goodCorpus, "https://example.org/acme/other abc\n", `repository "demo" not listed`, "questions for an unknown repository"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := packDir(t, tc.questions, tc.corpus, tc.commits)
			_, err := Load(dir, DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load error = %v, want it to contain %q (%s)", err, tc.wantErr, tc.reason)
			}
			filelinetest.Want(t, err, tc.wantErr)
		})
	}
}

func TestLoadDropsAndKeeps(t *testing.T) {
	q := `{"question": "Where is f?", "answer": "In pkg/mod.py (lines 1-2)."}
{"question": "What is it?", "answer": "Prose only."}
{"question": "Docs?", "answer": "See README.md and pkg.mod.f."}
`
	dir := packDir(t, q, goodCorpus, "https://example.org/acme/demo abc1234\n")
	ds, err := Load(dir, DefaultConfig())
	require.NoError(t, err)
	want := []datasets.Task{
		{ID: "demo/1", Query: "Where is f?", CorpusID: "acme/demo", Gold: []datasets.Relevant{{Kind: "file", ID: "pkg/mod.py", Grade: 1}}, Meta: datasets.Meta{Repo: "acme/demo"}},
		{ID: "demo/3", Query: "Docs?", CorpusID: "acme/demo", Gold: []datasets.Relevant{{Kind: "file", ID: "README.md", Grade: 1}, {Kind: "file", ID: "pkg/mod.py", Grade: 1}}, Meta: datasets.Meta{Repo: "acme/demo"}},
	}
	if diff := cmp.Diff(want, ds.Tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]datasets.Dropped{{ID: "demo/2", Reason: "answer cites no file resolvable in the corpus"}}, ds.Dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	c := ds.Corpora["acme/demo"]
	require.NotNil(t, c)
	if diff := cmp.Diff([]string{"python", ""}, []string{c.Docs[0].Language, c.Docs[1].Language}); diff != "" {
		t.Errorf("languages (-want +got):\n%s", diff)
	}
}

func TestLoadCommitFile(t *testing.T) {
	dir := packDir(t, `{"question": "q", "answer": "pkg/mod.py"}`+"\n", goodCorpus, "https://example.org/acme/demo abc1234\n")
	writeFile(t, dir, "swe-qa/corpora/demo.commit", "fff0000000000000000000000000000000000000\n")
	ds, err := Load(dir, DefaultConfig())
	require.NoError(t, err)
	if c := ds.Corpora["acme/demo"]; c.Commit != "fff0000000000000000000000000000000000000" {
		t.Errorf("commit %q, want the one in demo.commit", c.Commit)
	}
	found := false
	for _, n := range ds.Notes {
		found = found || strings.HasPrefix(n, "commit drift: acme/demo corpus built from fff00")
	}
	if !found {
		t.Errorf("notes lack the drift: %q", ds.Notes)
	}
}

func TestLoadNoCorpus(t *testing.T) {
	dir := packDir(t, `{"question": "q", "answer": "pkg/mod.py"}`+"\n", "", "https://example.org/acme/demo abc\n")
	ds, err := Load(dir, DefaultConfig())
	require.NoError(t, err)
	if len(ds.Tasks) != 0 || len(ds.Dropped) != 1 || !strings.Contains(ds.Dropped[0].Reason, "no corpus") {
		t.Errorf("got %d tasks, dropped %+v; want 0 tasks and one 'no corpus' drop", len(ds.Tasks), ds.Dropped)
	}
}

func TestLoadSeed(t *testing.T) {
	corpusFile := testenv.MustHaveData(t, "pydocs-eval/swe_qa_corpus.jsonl")
	dir := filepath.Dir(corpusFile)

	ds, err := LoadSeed(filepath.Join(dir, "swe_qa_mini.jsonl"), corpusFile)
	require.NoError(t, err)
	if len(ds.Tasks) != 4 || len(ds.Dropped) != 1 {
		t.Errorf("swe_qa_mini: %d tasks, %d dropped; want 4 and 1 (the prose-only answer)", len(ds.Tasks), len(ds.Dropped))
	}
	for _, task := range ds.Tasks {
		if diff := cmp.Diff([]datasets.Relevant{{Kind: "file", ID: "lib/matplotlib/backends/backend_pgf.py", Grade: 1}}, task.Gold); diff != "" {
			t.Errorf("%s gold (-want +got):\n%s", task.ID, diff)
		}
	}

	pro, err := LoadSeed(filepath.Join(dir, "swe_qa_pro_mini.jsonl"), corpusFile)
	require.NoError(t, err)
	require.Len(t, pro.Tasks, 4)
	var got []string
	for _, task := range pro.Tasks {
		got = append(got, task.Meta.Repo+"|"+task.Meta.QAType+"|"+task.Gold[0].ID)
	}
	want := []string{
		"qiboteam/qibo|How does it work|src/qibo/models/variational.py",
		"qiboteam/qibo|Where is it defined|src/qibo/models/variational.py",
		"some/pkg|What is the purpose|src/pkg/mod.py",
		"some/pkg|Why is it needed|src/pkg/mod.py",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SWE-QA-Pro tasks (-want +got):\n%s", diff)
	}
	if pro.Name != "swe-qa-pro-seed-swe_qa_pro_mini" || len(pro.Dropped) != 1 {
		t.Errorf("name %q, %d dropped; want swe-qa-pro-seed-swe_qa_pro_mini and 1", pro.Name, len(pro.Dropped))
	}
}

// TestLoadRealData loads the whole data pack and checks the counts the
// PROVENANCE.md documents: 15 × 48 rows, 12 corpora, 13,986 files, three
// repositories without a corpus, conan's commit drift in the notes.
func TestLoadRealData(t *testing.T) {
	testenv.MustHaveData(t, "swe-qa/repo_commit.txt")
	dir, _ := testenv.DataDir()
	ds, err := Load(dir, DefaultConfig())
	require.NoError(t, err)
	if got := len(ds.Tasks) + len(ds.Dropped); got != 720 {
		t.Errorf("tasks+dropped = %d, want 720", got)
	}
	if len(ds.Corpora) != 12 {
		t.Errorf("%d corpora, want 12", len(ds.Corpora))
	}
	files, noCorpus := 0, 0
	for _, c := range ds.Corpora {
		files += len(c.Docs)
	}
	for _, d := range ds.Dropped {
		if strings.HasPrefix(d.Reason, "no corpus") {
			noCorpus++
		}
	}
	if files != 13986 || noCorpus != 144 {
		t.Errorf("%d corpus files and %d no-corpus drops, want 13986 and 144", files, noCorpus)
	}
	if c := ds.Corpora["conan-io/conan"]; c == nil || c.Commit != "814cbf12cc56cbc4a87405b5945a4f16968f9555" {
		t.Errorf("conan corpus commit wrong: %+v", c)
	}
	drift := false
	for _, n := range ds.Notes {
		drift = drift || strings.Contains(n, "commit drift: conan-io/conan")
	}
	if !drift {
		t.Errorf("notes lack conan's commit drift: %q", ds.Notes)
	}
	kept := map[string]int{}
	for _, task := range ds.Tasks {
		kept[task.Meta.Repo]++
		c := ds.Corpora[task.CorpusID]
		ids := c.Lookup()
		for _, g := range task.Gold {
			if _, ok := ids[g.ID]; !ok {
				t.Errorf("%s: gold %s not in corpus %s", task.ID, g.ID, c.ID)
			}
		}
	}
	t.Logf("kept %d, dropped %d; per repo: %v", len(ds.Tasks), len(ds.Dropped), kept)

	// The split step of Load, without reading the corpora again.
	small, err := split(&datasets.Dataset{Name: ds.Name, Tasks: ds.Tasks}, datasets.SplitSmallTest, datasets.SplitConfig{})
	require.NoError(t, err)
	repos := map[string]int{}
	for _, task := range small.Tasks {
		repos[task.Meta.Repo]++
	}
	if len(small.Tasks) != 30 || len(repos) < 10 {
		t.Errorf("small_test: %d tasks over %d repos (%v); want 30 over at least 10 of the 12", len(small.Tasks), len(repos), repos)
	}
}
