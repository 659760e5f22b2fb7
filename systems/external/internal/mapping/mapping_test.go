package mapping

import (
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/redact"
)

func TestMappingShapes(t *testing.T) {
	m := &Mapping{
		spec:  Spec{From: FromJSON, Path: "p", StartLine: "l.0", EndLine: "l.1", Symbol: "s", Score: "score", Text: "t"},
		strip: "/srv/repo/",
		dirs:  []string{"/cache/c"},
		red:   redact.New([]string{"sekrit"}),
	}
	got, outside, err := m.Hits(Payload{Text: `[
		{"p": "/srv/repo/a.py", "l": [3, 9], "s": "A.f", "score": "2.5", "t": "uses sekrit"},
		{"p": "/cache/c/b.py", "l": ["4", null], "score": 1},
		{"p": "/elsewhere/c.py", "l": [1, 2], "s": "C", "score": 0.5, "t": "x"},
		{"s": "only.symbol"}
	]`}, 10)
	if err != nil {
		t.Fatal(err)
	}
	want := []systems.Hit{
		{Path: "a.py", StartLine: 3, EndLine: 9, Symbol: "A.f", Score: 2.5, Text: "uses ***"}, // strip_prefix; secret redacted
		{Path: "b.py", StartLine: 4}, // absolute under the corpus; a string line; null end
		{Score: 0.5, Text: "x"},      // outside: kept at its rank, matching nothing
		{Symbol: "only.symbol"},      // no path
	}
	want[1].Score = 1
	diffHits(t, "shapes", want, got)
	if outside != 1 {
		t.Errorf("outside = %d, want 1", outside)
	}
	got, _, err = m.Hits(Payload{Text: `[{"p": "a"}, {"p": "b"}, {"p": "c"}]`}, 2)
	if err != nil || len(got) != 2 {
		t.Errorf("k=2 kept %d hits (err %v), want 2", len(got), err)
	}
}

func TestMappingErrors(t *testing.T) {
	for _, tc := range []struct {
		name  string
		spec  Spec
		p     Payload
		want  string
		empty bool
	}{
		{"not json", Spec{From: FromJSON, Path: "p"}, Payload{Text: "Traceback (most recent call last)"}, "result is not JSON", false},
		{"two values", Spec{From: FromJSON, Path: "p"}, Payload{Text: "[] []"}, "not one JSON value", false},
		{"items missing", Spec{From: FromJSON, Items: "results", Path: "p"}, Payload{Text: `{"other": []}`}, `result.items "results" is not in the result`, false},
		{"items not a list", Spec{From: FromJSON, Items: "results", Path: "p"}, Payload{Text: `{"results": {"a": 1}}`}, "is an object, want a list", false},
		{"path not a string", Spec{From: FromJSON, Path: "p"}, Payload{Text: `[{"p": {"x": 1}}]`}, `item 0: result.path "p" is an object`, false},
		{"line not a number", Spec{From: FromJSON, Path: "p", StartLine: "l"}, Payload{Text: `[{"p": "a", "l": "ten"}]`}, `result.start_line "l" is "ten", want a finite number`, false},
		{"score NaN", Spec{From: FromJSON, Path: "p", Score: "s"}, Payload{Text: `[{"p": "a", "s": "NaN"}]`}, "want a finite number", false},
		{"no structured", Spec{From: FromStructured, Path: "p"}, Payload{Text: "[]"}, "no structuredContent", false},
		{"null items", Spec{From: FromJSON, Items: "results", Path: "p"}, Payload{Text: `{"results": null}`}, "", true},
		{"empty blob", Spec{From: FromBlob}, Payload{Text: "  \n"}, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Mapping{spec: tc.spec}
			got, _, err := m.Hits(tc.p, 10)
			if tc.empty {
				if err != nil || len(got) != 0 {
					t.Errorf("got %v, %v; want no hits and no error", got, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

func TestCapture(t *testing.T) {
	p := Payload{Text: "- Library ID: /org/proj\n- Other: 1", Structured: map[string]any{"results": []any{map[string]any{"id": "/x/y", "n": 3.0}}}}
	for _, tc := range []struct{ expr, want, err string }{
		{"re:Library ID: (\\S+)", "/org/proj", ""},
		{"re:Other: \\d", "Other: 1", ""},
		{"results.0.id", "/x/y", ""},
		{"results.0.n", "3", ""},
		{"re:Missing (\\S+)", "", "matches nothing"},
		{"results.1.id", "", "is not in the result"},
		{"results", "", "is a list, want a string or number"},
	} {
		got, err := Capture(p, tc.expr)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("capture(%q) err = %v, want %q", tc.expr, err, tc.err)
			}
		} else if err != nil || got != tc.want {
			t.Errorf("capture(%q) = %q, %v; want %q", tc.expr, got, err, tc.want)
		}
	}
}

func TestTextItems(t *testing.T) {
	const text = "header line\n## a.f — a.py:3-9\nbody of f\n\n## b.g — b.py:12-12\nbody of g\n"
	re := `(?m)^## (?P<symbol>\S+) — (?P<path>[^:\n]+):(?P<start_line>\d+)-(?P<end_line>\d+)$`
	require.NoError(t, CheckItemRegex(re))
	m := &Mapping{spec: Spec{From: FromText}, re: regexp.MustCompile(re)}
	got, _, err := m.Hits(Payload{Text: text}, 10)
	require.NoError(t, err)
	diffHits(t, "sections", []systems.Hit{
		{Path: "a.py", StartLine: 3, EndLine: 9, Symbol: "a.f", Text: "## a.f — a.py:3-9\nbody of f"},
		{Path: "b.py", StartLine: 12, EndLine: 12, Symbol: "b.g", Text: "## b.g — b.py:12-12\nbody of g"},
	}, got)
	for _, tc := range []struct{ re, want string }{
		{"", "missing"},
		{"(?P<path>x", "missing closing )"},
		{"(?P<file>\\S+)", `named group "file"`},
		{"(?P<score>\\d+)", "no (?P<path>…), (?P<symbol>…) or (?P<doc_id>…) group"},
	} {
		if err := CheckItemRegex(tc.re); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckItemRegex(%q) = %v, want %q", tc.re, err, tc.want)
		}
	}
}

// TestMappingLines: lines are made 1-based with result.line_base; a line
// below the base, a fraction or a reversed range is an error (the harness
// names the task), never silently dropped.
func TestMappingLines(t *testing.T) {
	zero, one := 0, 1
	for _, tc := range []struct {
		name   string
		base   *int
		item   string
		want   systems.Hit
		errMsg string
	}{
		{"default 1-based", nil, `{"p": "a.py", "s": 3, "e": 9}`, systems.Hit{Path: "a.py", StartLine: 3, EndLine: 9}, ""},
		{"declared 1-based", &one, `{"p": "a.py", "s": 1}`, systems.Hit{Path: "a.py", StartLine: 1}, ""},
		{"0-based shifts", &zero, `{"p": "a.py", "s": 0, "e": 4}`, systems.Hit{Path: "a.py", StartLine: 1, EndLine: 5}, ""},
		{"start 0 in a 1-based tool", nil, `{"p": "a.py", "s": 0, "e": 4}`, systems.Hit{}, "result.start_line is 0: not a line number counted from 1 (result.line_base: 1)"},
		{"negative", &zero, `{"p": "a.py", "s": -1}`, systems.Hit{}, "result.start_line is -1"},
		{"fraction", nil, `{"p": "a.py", "s": 2.5}`, systems.Hit{}, "result.start_line is 2.5"},
		{"reversed", nil, `{"p": "a.py", "s": 5, "e": 2}`, systems.Hit{}, "item 0: reversed line range 5-2 (result.start_line, result.end_line)"},
		{"reversed 0-based", &zero, `{"p": "a.py", "s": 5, "e": 2}`, systems.Hit{}, "reversed line range 5-2"},
		{"end only", nil, `{"p": "a.py", "e": 7}`, systems.Hit{Path: "a.py", EndLine: 7}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &Mapping{spec: Spec{From: FromJSON, Path: "p", StartLine: "s", EndLine: "e", LineBase: tc.base}, dirs: []string{"/c"}}
			got, _, err := m.Hits(Payload{Text: "[" + tc.item + "]"}, 10)
			if tc.errMsg != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errMsg) {
					t.Fatalf("err = %v, want %q", err, tc.errMsg)
				}
				return
			}
			require.NoError(t, err)
			diffHits(t, tc.name, []systems.Hit{tc.want}, got)
		})
	}
}

func TestRelPath(t *testing.T) {
	dirs := []string{"/cache/corpora/h", "/real/h"}
	for _, tc := range []struct {
		in, want string
		ok       bool
	}{
		{"/cache/corpora/h/pkg/a.py", "pkg/a.py", true},
		{"file:///cache/corpora/h/pkg/a.py", "pkg/a.py", true},
		{"/real/h/pkg/a.py", "pkg/a.py", true},
		{"pkg/./a.py", "pkg/a.py", true},
		{"/cache/corpora/h", "", false},
		{"/cache/corpora/hx/a.py", "", false},
		{"/etc/passwd", "", false},
		{"../a.py", "", false},
		{"/cache/corpora/h/../a.py", "", false},
	} {
		got, ok := RelPath(dirs, tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("RelPath(%q) = %q, %v; want %q, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func diffHits(t *testing.T, what string, want, got []systems.Hit) {
	t.Helper()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("%s: hits (-want +got):\n%s", what, diff)
	}
}
