package report

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestSumFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("abc"), 0o644))
	got, err := SumFile("cases", p)
	require.NoError(t, err)
	// sha256("abc"), FIPS 180-2 appendix B.1.
	want := FileSum{Role: "cases", Path: filepath.ToSlash(p), SHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SumFile (-want +got):\n%s", diff)
	}
	if _, err := SumFile("cases", filepath.Join(dir, "absent")); err == nil {
		t.Error("SumFile of a missing file: no error")
	}
}
