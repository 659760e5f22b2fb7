package promote

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/ledgerfmt"
)

func TestCellPatterns(t *testing.T) {
	a, b := ledgerfmt.Arm{System: "bm25", Config: "unicode61"}, ledgerfmt.Arm{System: "bm25", Config: "code-weighted"}
	h := ledgerfmt.Arm{System: "hybrid", Config: "weighted-bm25code-minilm"}
	got := cellPatterns("TestRepoQA/{system}/{config}/docstring", a, b)
	if want := `^TestRepoQA$/^bm25$/^(unicode61|code-weighted)$/^docstring$`; len(got) != 1 || got[0] != want {
		t.Errorf("same system: %q, want [%q]", got, want)
	}
	got = cellPatterns("TestRepoQA/{system}/{config}/docstring", b, h)
	want := []string{`^TestRepoQA$/^bm25$/^code-weighted$/^docstring$`, `^TestRepoQA$/^hybrid$/^weighted-bm25code-minilm$/^docstring$`}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("two systems: %q, want %q", got, want)
	}
}

func TestFreshCacheLinksInputsOnly(t *testing.T) {
	real := t.TempDir()
	for _, d := range []string{"onnxruntime/1.0", "models/m", "bm25/x", "dense/m"} {
		require.NoError(t, os.MkdirAll(filepath.Join(real, d), 0o755))
	}
	t.Setenv("RETRIEVALBENCH_CACHE", real)
	fresh, err := freshCache(t.TempDir())
	require.NoError(t, err)
	ents, err := os.ReadDir(fresh)
	require.NoError(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
		if target, err := os.Readlink(filepath.Join(fresh, e.Name())); err != nil || target != filepath.Join(real, e.Name()) {
			t.Errorf("%s: link to %q (%v), want %q", e.Name(), target, err, filepath.Join(real, e.Name()))
		}
	}
	if strings.Join(names, ",") != "models,onnxruntime" {
		t.Errorf("fresh cache holds %q, want only the inputs models,onnxruntime (no bm25, no dense)", names)
	}
}
