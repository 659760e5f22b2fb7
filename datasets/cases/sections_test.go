package cases

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

type sec struct {
	ID, Symbol string
	Start, End int
}

func sectionsOf(p, text string) []sec {
	var got []sec
	for _, d := range sectionDocs(p, text) {
		got = append(got, sec{d.ID, d.Symbol, d.StartLine, d.EndLine})
	}
	return got
}

// TestRSTAdornments checks every adornment character as an underline and
// as an over- and underline: each gives a section, and the sections after
// it are still found (a "~~~" underline is no Markdown fence in rST).
func TestRSTAdornments(t *testing.T) {
	for _, c := range "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~" {
		line := strings.Repeat(string(c), 6)
		for _, over := range []bool{false, true} {
			name := "under " + string(c)
			text := "Head\n" + line + "\n\ntext\n\nNext\n====\n\nmore\n"
			want := []sec{{"a.rst#head", "Head", 1, 5}, {"a.rst#next", "Next", 6, 10}}
			if over {
				name = "over " + string(c)
				text = line + "\n  Head\n" + line + "\n\ntext\n\nNext\n====\n\nmore\n"
				want = []sec{{"a.rst#head", "Head", 1, 6}, {"a.rst#next", "Next", 7, 11}}
			}
			t.Run(name, func(t *testing.T) {
				if diff := cmp.Diff(want, sectionsOf("a.rst", text)); diff != "" {
					t.Errorf("sections (-want +got):\n%s", diff)
				}
			})
		}
	}
}

func TestSectionSyntax(t *testing.T) {
	tests := []struct {
		name, path, text string
		want             []sec
		reason           string
	}{
		{"rst tilde then later headings", "b.rst",
			"Security\n========\n\nHeaders\n-------\n\nHSTS\n~~~~\n\nx\n\nSet-Cookie options\n~~~~~~~~~~~~~~~~~~\n\ny\n\nCopy/Paste\n----------\nz\n",
			[]sec{{"b.rst#security", "Security", 1, 3}, {"b.rst#headers", "Headers", 4, 6}, {"b.rst#hsts", "HSTS", 7, 11},
				{"b.rst#set-cookie-options", "Set-Cookie options", 12, 16}, {"b.rst#copypaste", "Copy/Paste", 17, 20}},
			"a ~~~~ underline opened a 'fence' that hid every later heading"},
		{"rst label before title", "c.rst",
			"Intro.\n\n.. _dotenv:\n\n.. _env-files:\n\nDisable dotenv\n~~~~~~~~~~~~~~\n\ntext\n",
			[]sec{{"c.rst", "", 1, 2}, {"c.rst#disable-dotenv", "Disable dotenv", 3, 11}},
			"hyperlink targets directly above a title belong to its section"},
		{"rst literal block", "d.rst",
			"Title\n=====\n\nExample::\n\n    Output\n    ------\n    >>>\n\nEnd\n---\n",
			[]sec{{"d.rst#title", "Title", 1, 9}, {"d.rst#end", "End", 10, 12}},
			"indented lines are a literal block, never a title"},
		{"rst transition", "e.rst",
			"Title\n=====\n\npara\n\n----\n\npara\n",
			[]sec{{"e.rst#title", "Title", 1, 9}},
			"an adornment line between blank lines is a transition"},
		{"rst mid-paragraph", "f.rst",
			"Title\n=====\n\nline one\nline two\n--------\n",
			[]sec{{"f.rst#title", "Title", 1, 7}},
			"a title starts after a blank line, not inside a paragraph"},
		{"rst hash is no heading", "g.rst",
			"Title\n=====\n\n# not a heading\n",
			[]sec{{"g.rst#title", "Title", 1, 5}},
			"ATX headings are Markdown only"},
		{"md fences", "a.md",
			"# A\n\n~~~~\n# no\n~~~\n## still no\n~~~~\n\n```python\n# no\n```\n\n## B ##\n\nSetext\n------\n",
			[]sec{{"a.md#a", "A", 1, 12}, {"a.md#b", "B", 13, 14}, {"a.md#setext", "Setext", 15, 17}},
			"a fence closes only with the same character at least as long; setext headings count"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, sectionsOf(tc.path, tc.text)); diff != "" {
				t.Errorf("sections (-want +got):\n%s\n%s", diff, tc.reason)
			}
		})
	}
}

// TestDocSectionWithPath checks the heading-plus-path spelling of a
// doc_section judgment, and labels as anchors.
func TestDocSectionWithPath(t *testing.T) {
	files := map[string]string{
		"docs/usage.md": "# Usage\n\n## Durability\n\nfsync.\n",
		"docs/cli.rst":  "CLI\n===\n\n.. _dotenv:\n\nDisable dotenv\n~~~~~~~~~~~~~~\n\ntext\n",
	}
	tests := []struct {
		name, judgment, wantID, wantErr, reason string
	}{
		{"heading and path", `{"kind": "doc_section", "id": "Disable dotenv", "path": "docs/cli.rst", "grade": 3}`, "docs/cli.rst#disable-dotenv", "", "heading text plus path, the way symbols take a path"},
		{"slug and path", `{"kind": "doc_section", "id": "durability", "path": "docs/usage.md", "grade": 3}`, "docs/usage.md#durability", "", "the slug works as well as the text"},
		{"label and path", `{"kind": "doc_section", "id": "dotenv", "path": "docs/cli.rst", "grade": 3}`, "docs/cli.rst#disable-dotenv", "", "an rST label names its section"},
		{"label in id", `{"kind": "doc_section", "id": "docs/cli.rst#dotenv", "grade": 3}`, "docs/cli.rst#disable-dotenv", "", "labels work in the path#anchor spelling too"},
		{"anchor id and same path", `{"kind": "doc_section", "id": "docs/usage.md#Durability", "path": "docs/usage.md", "grade": 3}`, "docs/usage.md#durability", "", "both spellings at once agree"},
		{"anchor id and other path", `{"kind": "doc_section", "id": "docs/usage.md#Durability", "path": "docs/cli.rst", "grade": 3}`, "", `doc_section "docs/usage.md#Durability" is in docs/usage.md, not in path "docs/cli.rst"`, "contradicting spellings"},
		{"heading in wrong file", `{"kind": "doc_section", "id": "Durability", "path": "docs/cli.rst", "grade": 3}`, "", `no heading "Durability" in docs/cli.rst`, "the heading is in another file"},
		{"missing file", `{"kind": "doc_section", "id": "Durability", "path": "docs/none.md", "grade": 3}`, "", `path "docs/none.md" not in the repository`, "the file does not exist"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cases, manifest := writeRepo(t, files)
			require.NoError(t, os.WriteFile(cases, []byte(`{"id": "c1", "repo": "r", "intent": "docs_lookup", "query": "q", "relevant": [`+tc.judgment+`]}`+"\n"), 0o644))
			ds, err := Load(cases, manifest, DefaultConfig())
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("Load error = %v, want %q (%s)", err, tc.wantErr, tc.reason)
				}
				return
			}
			require.NoError(t, err, tc.reason)
			want := []datasets.Relevant{{Kind: "doc_section", ID: tc.wantID, Grade: 3}}
			if diff := cmp.Diff(want, ds.Tasks[0].Gold); diff != "" {
				t.Errorf("gold (-want +got):\n%s\n%s", diff, tc.reason)
			}
			ids := ds.Corpora["r"].Lookup()
			if _, ok := ids[tc.wantID]; !ok {
				t.Errorf("gold %s is no doc of the corpus", tc.wantID)
			}
		})
	}
}

// TestCampaignRepos loads the campaign's real repositories from the data
// pack and checks the headings and qualified symbols users wrote against
// them (each was rejected before: a ~~~~ underline hid later headings; the
// module path was unknown).
func TestCampaignRepos(t *testing.T) {
	testenv.MustHaveData(t, "swe-qa/corpora/flask.jsonl.gz")
	testenv.MustHaveData(t, "swe-qa/corpora/requests.jsonl.gz")
	manifest, err := filepath.Abs("../../fixtures/campaign/repos.json")
	require.NoError(t, err)
	lines := []string{
		`{"id": "f1", "repo": "flask", "intent": "docs_lookup", "query": "q", "relevant": [{"kind": "doc_section", "id": "Set-Cookie options", "path": "docs/web-security.rst", "grade": 3}]}`,
		`{"id": "f2", "repo": "flask", "intent": "docs_lookup", "query": "q", "relevant": [{"kind": "doc_section", "id": "docs/cli.rst#Disable dotenv", "grade": 3}]}`,
		`{"id": "r1", "repo": "requests", "intent": "docs_lookup", "query": "q", "relevant": [{"kind": "doc_section", "id": "docs/user/authentication.rst#New Forms of Authentication", "grade": 3}]}`,
		`{"id": "r2", "repo": "requests", "intent": "symbol_lookup", "query": "q", "relevant": [{"kind": "symbol", "id": "requests.adapters.HTTPAdapter.send", "path": "src/requests/adapters.py", "grade": 3}]}`,
		`{"id": "f3", "repo": "flask", "intent": "symbol_lookup", "query": "q", "relevant": [{"kind": "symbol", "id": "flask.app.Flask.run", "grade": 3}]}`,
	}
	cases := filepath.Join(t.TempDir(), "cases.jsonl")
	require.NoError(t, os.WriteFile(cases, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	ds, err := Load(cases, manifest, DefaultConfig())
	require.NoError(t, err)
	var got []string
	for _, task := range ds.Tasks {
		got = append(got, task.Gold[0].ID)
	}
	want := []string{"docs/web-security.rst#set-cookie-options", "docs/cli.rst#disable-dotenv",
		"docs/user/authentication.rst#new-forms-of-authentication", "requests.adapters.HTTPAdapter.send", "flask.app.Flask.run"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("gold (-want +got):\n%s", diff)
	}
}
