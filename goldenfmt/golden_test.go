package goldenfmt

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// TestCommittedFilesRoundTrip reads every golden file the repository
// commits (written by -update over the years) and writes it again: the
// bytes must be the file's, so that a format change cannot rewrite
// baselines silently; and every one records the CPU class that made it.
func TestCommittedFilesRoundTrip(t *testing.T) {
	root := filepath.Join("..", "golden")
	n := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".json" {
			return err
		}
		n++
		want, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		g, err := Read(path)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		if g.CPUClass == "" {
			// Issue 32: a baseline says which CPU class made it, so that a
			// check on another class can say the classes differ.
			t.Errorf("%s: no cpu_class: make it again with -update", rel)
		}
		if p := Path(root, g.Dataset, g.Split, g.System, g.Config); p != path {
			t.Errorf("%s: Path of its own fields = %s", rel, p)
		}
		out := filepath.Join(t.TempDir(), rel)
		if err := Write(out, g); err != nil {
			return err
		}
		got, err := os.ReadFile(out)
		if err != nil {
			return err
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s: read and written again (-committed +written):\n%s", rel, diff)
		}
		return nil
	})
	require.NoError(t, err)
	if n < 100 {
		t.Fatalf("read %d committed golden files under %s, want the repository's hundreds", n, root)
	}
}

func TestReadErrors(t *testing.T) {
	dir := t.TempDir()
	if _, err := Read(filepath.Join(dir, "none.json")); !errors.Is(err, ErrMissing) {
		t.Errorf("Read(missing) = %v, want ErrMissing", err)
	}
	bad := filepath.Join(dir, "bad.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\n  \"dataset\": \"d\",\n  \"tasks_ran\": \"two\"\n}\n"), 0o644))
	_, err := Read(bad)
	var fe *fileline.Error
	if !errors.As(err, &fe) || fe.File != bad || fe.Line != 3 {
		t.Fatalf("Read(bad) = %v, want a fileline.Error at %s:3", err, bad)
	}
	if errors.Is(err, ErrMissing) {
		t.Errorf("a malformed file reads as missing: %v", err)
	}
}

// TestFor: a run is checked against its own class's baseline when the file
// has one, else against the main one, and says which.
func TestFor(t *testing.T) {
	g := &Golden{CPUClass: "vnni", TasksRan: 2, Metrics: map[string]resultfmt.Stat{"mrr": {Mean: 0.5}},
		ByCPUClass: map[string]*ClassBaseline{"avx2": {TasksRan: 2, Metrics: map[string]resultfmt.Stat{"mrr": {Mean: 0.4}}}}}
	for _, tc := range []struct {
		class   string
		mean    resultfmt.Fixed
		ofClass bool
	}{
		{"", 0.5, true},     // unknown run class: the main baseline stands for all
		{"vnni", 0.5, true}, // the main baseline's class
		{"avx2", 0.4, true}, // its own entry
		{"amx", 0.5, false}, // no entry: the main one, not of its class
	} {
		b, ok := g.For(tc.class)
		if b.Metrics["mrr"].Mean != tc.mean || ok != tc.ofClass {
			t.Errorf("For(%q) = mean %v, of class %v; want %v, %v", tc.class, b.Metrics["mrr"].Mean, ok, tc.mean, tc.ofClass)
		}
		if tc.class == "avx2" && (b.CPUClass != "avx2" || b.ByCPUClass != nil) {
			t.Errorf("For(avx2) = class %q with %d other classes, want avx2 alone", b.CPUClass, len(b.ByCPUClass))
		}
	}
}
