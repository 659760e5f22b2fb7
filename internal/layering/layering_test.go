package layering

import (
	"os/exec"
	"slices"
	"strings"
	"testing"
)

const mod = "github.com/retrievalbench/retrievalbench/"

// dep is one package of a go list -deps answer.
type dep struct {
	path     string
	standard bool
	cgo      bool
}

// deps lists the dependencies of pkg (pkg included), as the build sees
// them (GOFLAGS of the environment: the sqlite_fts5 tag).
func deps(t *testing.T, pkg string) []dep {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", "-f", "{{.ImportPath}} {{.Standard}} {{len .CgoFiles}}", mod+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	var ds []dep
	for line := range strings.Lines(string(out)) {
		f := strings.Fields(line)
		if len(f) != 3 {
			t.Fatalf("go list -deps %s: line %q", pkg, line)
		}
		ds = append(ds, dep{f[0], f[1] == "true", f[2] != "0"})
	}
	if len(ds) == 0 || ds[len(ds)-1].path != mod+pkg {
		t.Fatalf("go list -deps %s: %v, want the package last", pkg, ds)
	}
	return ds
}

// TestLeaves: each declared leaf imports, directly or not, only the
// module packages listed for it (docs/ARCHITECTURE.md's package map).
func TestLeaves(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the dependencies")
	}
	io := []string{"fileline", "internal/atomicfile", "internal/datafile"}
	leaves := []struct {
		pkg     string
		allowed []string
		reason  string
	}{
		{"corpus", nil, "the leaf every package shares"},
		{"fileline", nil, "the one position error, standard library only"},
		{"mlflow", nil, "the MLflow client, standard library only"},
		{"metrics", []string{"internal/strhash"}, "measures and statistics, standard library only"},
		{"codetext", []string{"corpus"}, "pure Go code text: judge's way around tree-sitter"},
		{"systems", []string{"corpus"}, "the System interface and Spec, below every system"},
		{"resultfmt", io, "a file format: the type, its reader and writer"},
		{"goldenfmt", append([]string{"resultfmt"}, io...), "a file format"},
		{"campaignfmt", append([]string{"corpus"}, io...), "a file format"},
		{"ledgerfmt", io, "a file format"},
		{"trecfmt", append([]string{"internal/strhash"}, io...), "a file format, nothing of metrics"},
		{"gate", []string{"fileline"}, "the regression gate of cmd/rbench"},
	}
	for _, l := range leaves {
		for _, d := range deps(t, l.pkg) {
			p, ok := strings.CutPrefix(d.path, mod)
			if !ok || p == l.pkg {
				continue
			}
			if !slices.Contains(l.allowed, p) {
				t.Errorf("%s imports %s; it may import only %v (%s)", l.pkg, p, l.allowed, l.reason)
			}
		}
	}
}

// TestNoCgo: what judges, reports, decides and builds leaderboards links
// no tree-sitter grammar, no chunker and no cgo outside the standard
// library (no SQLite, no ONNX Runtime), so cmd/rbench builds in a user's
// module without a C toolchain's surprises and judge needs no parser.
func TestNoCgo(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to list the dependencies")
	}
	for _, pkg := range []string{"judge", "metrics", "codetext", "report", "leaderboard", "promote", "gate", "cmd/rbench"} {
		for _, d := range deps(t, pkg) {
			switch {
			case d.cgo && !d.standard:
				t.Errorf("%s links %s, which has cgo files", pkg, d.path)
			case strings.Contains(d.path, "tree-sitter"), d.path == mod+"chunk", d.path == mod+"internal/tsgrammar":
				t.Errorf("%s links %s (tree-sitter)", pkg, d.path)
			case d.path == mod+"harness", d.path == mod+"systems":
				t.Errorf("%s links %s: a report of results needs no runner", pkg, d.path)
			}
		}
	}
}
