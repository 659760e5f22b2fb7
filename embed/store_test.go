package embed

import (
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestStoreRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "dense", "m", "vectors.db")
	s, err := OpenStore(path)
	require.NoError(t, err)

	a, b, c := HashText("alpha"), HashText("beta"), HashText("gamma")
	va, vb := []float32{1, -0.5, 3.25}, []float32{0, 1e-30, -2}
	require.NoError(t, s.Put("fp1", []TextHash{a, b}, [][]float32{va, vb}))
	require.NoError(t, s.Put("fp1", []TextHash{a}, [][]float32{{9, 9, 9}}), "replacing a vector")
	require.NoError(t, s.Put("fp2", []TextHash{c}, [][]float32{{7, 7, 7}}))
	require.NoError(t, s.Close())

	// Reopen: vectors must survive the process, keyed by model and text.
	s, err = OpenStore(path)
	require.NoError(t, err)
	defer s.Close()
	got, err := s.Get("fp1", 3, []TextHash{a, c, b, a})
	require.NoError(t, err)
	want := [][]float32{{9, 9, 9}, nil, vb, {9, 9, 9}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Get (-want +got):\n%s", diff)
	}
	got, err = s.Get("fp1", 4, []TextHash{a})
	require.NoError(t, err)
	if got[0] != nil {
		t.Errorf("vector of another dimension returned: %v", got[0])
	}
	n, err := s.Count("fp1")
	require.NoError(t, err)
	if n != 2 {
		t.Errorf("Count(fp1) = %d, want 2", n)
	}
	if err := s.Put("fp1", []TextHash{a}, nil); err == nil {
		t.Error("Put with mismatched lengths accepted")
	}
}

func TestStoreManyKeys(t *testing.T) {
	// More keys than one SQL batch, to cross the chunk boundary.
	s, err := OpenStore(filepath.Join(t.TempDir(), "v.db"))
	require.NoError(t, err)
	defer s.Close()
	const n = 2*storeBatch + 17
	keys := make([]TextHash, n)
	vecs := make([][]float32, n)
	for i := range n {
		keys[i] = HashText(string(rune('a'+i%26)) + string(rune(i)))
		vecs[i] = []float32{float32(i), float32(-i)}
	}
	require.NoError(t, s.Put("m", keys, vecs))
	got, err := s.Get("m", 2, keys)
	require.NoError(t, err)
	if diff := cmp.Diff(vecs, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}
