package benchtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// names are the cells of a constructed family, and patterns the -run/-skip
// pairs checked on them: levels, alternation, slashes inside parentheses
// and brackets, anchors, and -skip of whole subtrees and of single cells.
var (
	selNames = []string{
		"TestSWEQA/dense/bge-small-q/sweqa", "TestSWEQA/dense/minilm-l6-q/sweqa", "TestSWEQA/dense/minilm-l6-q/seed-mini",
		"TestSWEQA/hybrid/rrf-bm25code-bge/sweqa", "TestSWEQA/graph/bge-1hop/sweqa", "TestSWEQA/codira/lexical/sweqa",
	}
	selPatterns = [][2]string{
		{"", ""},
		{"TestSWEQA/dense", ""},
		{"TestSWEQA/(dense|hybrid|graph)/(bge-small-q|rrf-bm25code-bge|bge-1hop)/sweqa$", ""},
		{"TestSWEQA/dense/.*/sweqa$", ""},
		{"Nope|TestSWEQA/codira", ""},
		{"TestSWEQA/dense/[a-z/]*l6", ""},
		{"", "TestSWEQA/dense"},
		{"TestSWEQA", "TestSWEQA/dense/minilm-l6-q/seed-mini"},
		{"TestSWEQA", "TestSWEQA/.*/.*/sweqa|TestSWEQA/codira"},
		{"^TestSWEQA$/^dense$/^minilm-l6-q$/^sweqa$", ""},
		{"TestSWEQA/dense", "TestSWEQA/dense/bge-small-q/sweqa/deeper"}, // deeper than any cell: skips none
		{"/(codira|hybrid)/", ""},                                       // issue 39's go test ./bench -run '/(pydocs-mcp|codira)/': every Test, a level-2 alternation
		{"TestSWEQA/(dense/bge|codira)", ""},                            // a "/" inside parentheses does not split levels
		{"", "/graph/|TestSWEQA/dense/minilm-l6-q/seed"},                // -skip with an empty first level
	}
)

// TestSelectionMatchesGoTest checks selection against the testing package
// itself: a test binary with exactly these nested subtests runs under each
// pattern pair, and the leaves it reports running are the names selection
// says run.
func TestSelectionMatchesGoTest(t *testing.T) {
	if testing.Short() {
		t.Skip("builds a test binary (-short)")
	}
	dir := t.TempDir()
	var src strings.Builder
	// One t.Run per distinct name at each level, as Test nests them.
	src.WriteString("package sel\n\nimport \"testing\"\n\nfunc TestSWEQA(t *testing.T) {\n")
	var open []string
	for _, n := range selNames {
		lv := strings.Split(n, "/")[1:]
		same := 0
		for same < len(open) && open[same] == lv[same] {
			same++
		}
		for range open[same:] {
			src.WriteString("})\n")
		}
		open = open[:same]
		for _, l := range lv[same:] {
			src.WriteString("t.Run(\"" + l + "\", func(t *testing.T) {\n")
			open = append(open, l)
		}
	}
	for range open {
		src.WriteString("})\n")
	}
	src.WriteString("}\n")
	for name, text := range map[string]string{"go.mod": "module sel\n\ngo 1.22\n", "sel_test.go": src.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "sel.test")
	build := exec.Command("go", "test", "-c", "-o", bin, ".")
	build.Dir, build.Env = dir, append(os.Environ(), "GOFLAGS=", "GOWORK=off")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building the probe: %v\n%s", err, out)
	}
	leaf := regexp.MustCompile(`(?m)^\s*--- PASS: (TestSWEQA/[^/ ]+/[^/ ]+/[^/ ]+) `)
	for _, p := range selPatterns {
		out, err := exec.Command(bin, "-test.v", "-test.run", p[0], "-test.skip", p[1]).CombinedOutput()
		if err != nil && !strings.Contains(string(out), "no tests to run") {
			t.Fatalf("-run %q -skip %q: %v\n%s", p[0], p[1], err, out)
		}
		var ran []string
		for _, m := range leaf.FindAllStringSubmatch(string(out), -1) {
			ran = append(ran, m[1])
		}
		run, err1 := compilePattern(p[0])
		skip, err2 := compilePattern(p[1])
		if err1 != nil || err2 != nil {
			t.Fatalf("patterns %q: %v %v", p, err1, err2)
		}
		s := selection{run: run, skip: skip}
		var want []string
		for _, n := range selNames {
			if s.runs(n) {
				want = append(want, n)
			}
		}
		slices.Sort(ran)
		slices.Sort(want)
		if !slices.Equal(ran, want) {
			t.Errorf("-run %q -skip %q: go test ran %q, selection says %q", p[0], p[1], ran, want)
		}
	}
}

func TestSplitTopLevel(t *testing.T) {
	for in, want := range map[string][]string{
		"a/b":          {"a", "b"},
		"(a/b)/c":      {"(a/b)", "c"},
		"[/]/c":        {"[/]", "c"},
		`a\/b/c`:       {`a\/b`, "c"},
		"a/(b|c)/[)]d": {"a", "(b|c)", "[)]d"},
	} {
		if got := splitTopLevel(in, '/'); !slices.Equal(got, want) {
			t.Errorf("splitTopLevel(%q) = %q, want %q", in, got, want)
		}
	}
}
