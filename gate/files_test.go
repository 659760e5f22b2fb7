package gate

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompareFilesByPath checks that CompareFiles is Compare of the two
// files named by their paths, and that a file it cannot open is an error
// naming it (the commands' exit 2), not a report.
func TestCompareFilesByPath(t *testing.T) {
	oldPath, newPath := filepath.Join("testdata", "base.txt"), filepath.Join("testdata", "search-30pct-slower.txt")
	got, err := CompareFiles(oldPath, newPath, DefaultConfig())
	if err != nil {
		t.Fatalf("CompareFiles: %v", err)
	}
	o, err := os.Open(oldPath)
	if err != nil {
		t.Fatal(err)
	}
	defer o.Close()
	n, err := os.Open(newPath)
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	want, err := Compare(o, n, oldPath, newPath, DefaultConfig())
	if err != nil {
		t.Fatalf("Compare: %v", err)
	}
	// The rows hold NaN (exact units have no ratio), so compare the report
	// as written.
	var gotText, wantText strings.Builder
	if err := got.Write(&gotText, "text"); err != nil {
		t.Fatal(err)
	}
	if err := want.Write(&wantText, "text"); err != nil {
		t.Fatal(err)
	}
	if gotText.String() != wantText.String() || !strings.Contains(gotText.String(), oldPath) {
		t.Errorf("CompareFiles differs from Compare of the same files, or does not name %s:\n got %s\nwant %s", oldPath, gotText.String(), wantText.String())
	}
	if !got.Failed() {
		t.Errorf("a 30%% slower search did not fail: %s", got.Summary())
	}

	for _, tt := range []struct{ old, new, missing string }{
		{filepath.Join("testdata", "nope.txt"), newPath, "nope.txt"},
		{oldPath, filepath.Join("testdata", "nope-new.txt"), "nope-new.txt"},
	} {
		rep, err := CompareFiles(tt.old, tt.new, DefaultConfig())
		if !errors.Is(err, fs.ErrNotExist) || rep != nil {
			t.Errorf("CompareFiles(%s, %s) = %v, %v; want no report and a not-exist error", tt.old, tt.new, rep, err)
			continue
		}
		var pe *fs.PathError
		if !errors.As(err, &pe) || filepath.Base(pe.Path) != tt.missing {
			t.Errorf("CompareFiles(%s, %s): error %v does not name %s", tt.old, tt.new, err, tt.missing)
		}
	}
}
