package testenv

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestBuildTrecEval builds trec_eval 10.0 from its source into a fresh
// cache: the binary prints the 10.0 version line, the source folder is
// left as it was (the build is in a copy), a second call reuses the
// binary, and a source whose version is not 10.0 is refused without
// replacing the binary.
func TestBuildTrecEval(t *testing.T) {
	src, ok := TrecEvalSource()
	if !ok {
		Missing(t, TrecEval, "no trec_eval source at "+src)
	}
	for _, tool := range []string{"make", "gcc"} {
		if _, err := exec.LookPath(tool); err != nil {
			Missing(t, TrecEval, "building trec_eval needs "+tool)
		}
	}
	t.Setenv(EnvCache, t.TempDir())
	before := listing(t, src)
	bin, err := BuildTrecEval(src, TrecEvalDefault, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if want := TrecEvalPath(TrecEvalDefault); bin != want {
		t.Fatalf("built %s, want %s", bin, want)
	}
	if err := CheckTrecEvalVersion(bin); err != nil {
		t.Fatal(err)
	}
	if after := listing(t, src); !slices.Equal(before, after) {
		t.Fatalf("the source folder changed: %v, then %v", before, after)
	}
	st, err := os.Stat(bin)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := BuildTrecEval(src, TrecEvalDefault, io.Discard); err != nil {
		t.Fatal(err)
	}
	if st2, err := os.Stat(bin); err != nil || !st2.ModTime().Equal(st.ModTime()) {
		t.Fatalf("the second call rebuilt the binary (%v)", err)
	}

	// A copy whose Makefile names another version: built (the sources
	// differ from the stamp's), refused at the version check.
	other := t.TempDir()
	if err := copyFlat(src, other); err != nil {
		t.Fatal(err)
	}
	mk, err := os.ReadFile(filepath.Join(other, "Makefile"))
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(mk), "VERSIONID = 10.0", "VERSIONID = 9.0", 1)
	if changed == string(mk) {
		t.Fatal("the Makefile has no VERSIONID = 10.0 line to change")
	}
	if err := os.WriteFile(filepath.Join(other, "Makefile"), []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := BuildTrecEval(other, TrecEvalDefault, io.Discard); err == nil || !strings.Contains(err.Error(), "want trec_eval version 10.0") {
		t.Fatalf("a 9.0 source: err = %v, want the version check's", err)
	}
	if err := CheckTrecEvalVersion(bin); err != nil {
		t.Fatalf("the refused build replaced the binary: %v", err)
	}
}

// listing names the files of dir with their sizes.
func listing(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range ents {
		info, err := e.Info()
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%s %d %s", e.Name(), info.Size(), info.ModTime()))
	}
	return out
}
