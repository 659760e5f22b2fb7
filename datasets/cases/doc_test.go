package cases

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// docSection returns the text of docs/cases.md under the heading that
// starts with title, up to the next heading of any level.
func docSection(t *testing.T, doc, title string) string {
	t.Helper()
	i := strings.Index(doc, "\n"+title)
	require.GreaterOrEqual(t, i, 0, "docs/cases.md has no heading %q", title)
	s := doc[i+1+len(title):]
	if j := strings.Index(s, "\n#"); j >= 0 {
		s = s[:j]
	}
	return s
}

// firstColumn returns the backquoted first cells of the table rows of s.
func firstColumn(s string) []string {
	var out []string
	for _, m := range regexp.MustCompile("(?m)^\\| `([^`]+)` \\|").FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}

// jsonFields returns the JSON names of v's struct fields, in order.
func jsonFields(v any) []string {
	var out []string
	ty := reflect.TypeOf(v)
	for i := range ty.NumField() {
		name, _, _ := strings.Cut(ty.Field(i).Tag.Get("json"), ",")
		out = append(out, name)
	}
	return out
}

// TestDocCases checks docs/cases.md against the loader, both ways: the
// fields of a case, of a judgment and of a manifest entry are the ones the
// loader decodes; the intents and kinds are Intents() and Kinds(); the
// grades it names are exactly those the loader accepts; and every judgment
// the doc shows as JSON is valid in the fixture repository it is written
// for.
func TestDocCases(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "docs", "cases.md"))
	require.NoError(t, err)
	doc := string(b)

	require.Equal(t, jsonFields(record{}), firstColumn(docSection(t, doc, "### Fields of a case")), "case fields")
	require.Equal(t, Intents(), firstColumn(docSection(t, doc, "### Intents")), "intents, in report order")
	judgments := docSection(t, doc, "### Judgments")
	tables := strings.SplitN(judgments, "\n\n| kind", 2)
	require.Len(t, tables, 2, "the judgment section has a field table, then a kind table")
	require.Equal(t, jsonFields(judgment{}), firstColumn(tables[0]), "judgment fields")
	require.ElementsMatch(t, Kinds(), firstColumn("| kind"+tables[1]), "kinds")
	require.Equal(t, jsonFields(RepoSpec{}), firstColumn(docSection(t, doc, "## The repository manifest")), "manifest fields")

	// Grades: the doc's "0, 1, 2 or 3" are the loader's, no more, no less.
	require.Contains(t, tables[0], "required: 0, 1, 2 or 3")
	var accepted []int
	for g := -2; g <= 5; g++ {
		cases, manifest := writeCase(t, withField(`"grade": 1`, `"grade": `+strconv.Itoa(g)))
		if _, err := Validate(cases, manifest); err == nil {
			accepted = append(accepted, g)
		}
	}
	require.Equal(t, []int{0, 1, 2, 3}, accepted)

	// Every intent and kind the doc names is accepted, and a value it does
	// not name is not: the loader's sets are the doc's.
	for _, in := range append(Intents(), "how_to") {
		cases, manifest := writeCase(t, withField(`symbol_lookup`, in))
		_, err := Validate(cases, manifest)
		require.Equal(t, in != "how_to", err == nil, "intent %s: %v", in, err)
	}

	// The JSON judgments the doc shows, each in the fixture it names.
	repos := map[string]string{ // a file the example names → the fixture repository that has it
		"docs/guide.md": "caseforms", "docs/api.rst": "caseforms", "docs/usage.md": "cases",
		"Store._replay": "cases", "minikv/log.py": "cases",
	}
	seen := 0
	for _, m := range regexp.MustCompile(`\{"kind": [^}]*\}`).FindAllString(doc, -1) {
		var j judgment
		require.NoError(t, json.Unmarshal([]byte(m), &j), m)
		fx := ""
		for f, r := range repos {
			if strings.Contains(m, f) {
				fx = r
			}
		}
		require.NotEmpty(t, fx, "%s: which fixture?", m)
		repo := map[string]string{"caseforms": "polyglot", "cases": "minikv"}[fx]
		line := `{"id": "doc", "repo": "` + repo + `", "intent": "docs_lookup", "query": "q", "relevant": [` + m + `]}`
		file := filepath.Join(t.TempDir(), "cases.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(line+"\n"), 0o644))
		manifest := filepath.Join("..", "..", "fixtures", fx, "manifest.json")
		_, err := Validate(file, manifest)
		require.NoError(t, err, "docs/cases.md: %s", m)
		seen++
	}
	require.GreaterOrEqual(t, seen, 4)

	// The symbol forms the doc shows for Go, Java and TypeScript are the
	// ones fixtures/caseforms' polyglot repository defines: each validates.
	symbols := docSection(t, doc, "#### Symbols")
	for _, name := range []string{"example.com/polyglot/kv/store.Store.Get", "store.Store.Get", "Store.Get", "Get",
		"org.acme.kv.Cache.evict", "Cache.evict", "evict", "web.src.util.slugify", "util.slugify", "slugify"} {
		require.Contains(t, symbols, "`"+name+"`")
		line := `{"id": "doc", "repo": "polyglot", "intent": "symbol_lookup", "query": "q", "relevant": [{"kind": "symbol", "id": "` + name + `", "grade": 3}]}`
		file := filepath.Join(t.TempDir(), "cases.jsonl")
		require.NoError(t, os.WriteFile(file, []byte(line+"\n"), 0o644))
		_, err := Validate(file, filepath.Join("..", "..", "fixtures", "caseforms", "manifest.json"))
		require.NoError(t, err, "docs/cases.md: symbol %s", name)
	}
}
