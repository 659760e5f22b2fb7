package template

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestExpand(t *testing.T) {
	env := map[string]string{"HOME": "/home/u", "EMPTY": ""}
	v := Vars{
		Values: map[string]string{PhQuery: "a b", PhK: "7", PhCorpus: "/c", PhCapture + "id": "/lib/x"},
		Getenv: func(k string) (string, bool) { x, ok := env[k]; return x, ok },
	}
	for _, tc := range []struct {
		in, want, err, reason string
	}{
		{"{corpus}/src", "/c/src", "", "a placeholder"},
		{"q={query}&k={k}", "q=a b&k=7", "", "several placeholders"},
		{"${HOME}/.cfg", "/home/u/.cfg", "", "an environment variable"},
		{"${NOPE:-dflt}", "dflt", "", "a default for an unset variable"},
		{"${EMPTY:-dflt}", "dflt", "", "an empty variable takes the default"},
		{"{captured.id}", "/lib/x", "", "a captured value"},
		{"{{query}}", "{query}", "", "doubled braces are literal"},
		{"{a: 1, b: [x]}", "{a: 1, b: [x]}", "", "a brace that opens no placeholder name is literal (YAML)"},
		{"${NOPE}", "", "environment variable NOPE is not set", "unset without default"},
		{"{library}", "", "placeholder {library} has no value here", "a known placeholder without a value"},
		{"${HOME", "", "unterminated ${", "malformed"},
	} {
		got, err := v.Expand(tc.in)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: expand(%q) err = %v, want %q", tc.reason, tc.in, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%s: expand(%q) = %q, %v; want %q", tc.reason, tc.in, got, err, tc.want)
		}
	}
}

func TestExpandJSON(t *testing.T) {
	v := Vars{Values: map[string]string{PhQuery: "q", PhK: "5"}, Getenv: func(string) (string, bool) { return "", false }}
	in := map[string]any{"query": "{query}", "limit": "{k}", "note": "top {k}", "n": 1.5, "list": []any{"{k}", true}}
	got, err := v.ExpandJSON(in)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"query": "q", "limit": 5, "note": "top 5", "n": 1.5, "list": []any{5, true}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("ExpandJSON (-want +got):\n%s\n(exactly \"{k}\" becomes a number, \"top {k}\" stays a string)", diff)
	}
}

func TestCheckTemplatePhases(t *testing.T) {
	for _, tc := range []struct {
		s    string
		p    Phase
		port bool
		err  string
	}{
		{"{cache}/bin", PhaseCache, false, ""},
		{"{corpus}", PhaseCache, false, "not available here"},
		{"{work}/{corpus}", PhaseCorpus, false, ""},
		{"{port}", PhaseCorpus, false, "not available here"},
		{"{port}", PhaseCorpus, true, ""},
		{"{query} {k} {library} {repo}", PhaseQuery, false, ""},
		{"{query}", PhaseCorpus, false, "not available here"},
		{"{qurey}", PhaseQuery, false, "unknown placeholder {qurey}"},
		{"{captured.x}", PhaseQuery, false, `no earlier call captures "x"`},
	} {
		err := Check(tc.s, tc.p, tc.port, nil)
		if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("Check(%q, Phase %d, port %v) = %v, want %q", tc.s, tc.p, tc.port, err, tc.err)
		}
	}
}

// TestExpandURL: the data a query brings is escaped for where it stands in
// a URL, so it fills exactly its one value; configuration is not.
func TestExpandURL(t *testing.T) {
	env := map[string]string{"BASE": "http://127.0.0.1:9/api?key=a b"}
	v := Vars{
		Values: map[string]string{PhQuery: "100% a&b=c #d/e?", PhK: "5", PhLibrary: "scikit learn", PhPort: "8080", PhCapture + "id": "/org/lib"},
		Getenv: func(k string) (string, bool) { x, ok := env[k]; return x, ok },
	}
	for _, tc := range []struct{ in, want, reason string }{
		{"http://127.0.0.1:{port}/search?q={query}&k={k}", "http://127.0.0.1:8080/search?q=100%25+a%26b%3Dc+%23d%2Fe%3F&k=5",
			"query-escaped after '?': '%', '&', '=', '#' cannot end or add a parameter; {port} is configuration"},
		{"http://h/libs/{library}/docs{captured.id}", "http://h/libs/scikit%20learn/docs%2Forg%2Flib",
			"path-escaped before '?': one path segment each"},
		{"${BASE}&q={query}", "http://127.0.0.1:9/api?key=a b&q=100%25+a%26b%3Dc+%23d%2Fe%3F",
			"an environment value is inserted whole and its '?' starts the query"},
		{"http://h/p#{query}", "http://h/p#100%25%20a&b=c%20%23d%2Fe%3F", "path-escaped in a fragment"},
	} {
		got, err := v.ExpandURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("%s:\nexpandURL(%q)\n = %q, %v\nwant %q", tc.reason, tc.in, got, err, tc.want)
		}
	}
}
