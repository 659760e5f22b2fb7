package safetensors

import (
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// build writes a safetensors file by hand: header length, header, bytes.
func build(header string, body []byte) []byte {
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(header)))
	return append(append(out, header...), body...)
}

func TestParseHandWritten(t *testing.T) {
	var body []byte
	for _, v := range []float32{1.5, -2} {
		body = binary.LittleEndian.AppendUint32(body, math.Float32bits(v))
	}
	body = binary.LittleEndian.AppendUint64(body, uint64(1<<40+7))
	body = binary.LittleEndian.AppendUint64(body, math.MaxUint64) // -1
	body = append(body, 0x80, 0x7f, 0x01)                         // -128, 127, 1
	header := `{"__metadata__":{"format":"pt"},` +
		`"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},` +
		`"m":{"dtype":"I64","shape":[2,1],"data_offsets":[8,24]},` +
		`"e":{"dtype":"I8","shape":[1,3],"data_offsets":[24,27]}}`
	f, err := Parse("x.safetensors", build(header, body))
	require.NoError(t, err)
	require.Equal(t, map[string]string{"format": "pt"}, f.Metadata)
	require.Equal(t, []string{"e", "m", "w"}, f.Names())
	w, _, err := f.F32("w")
	require.NoError(t, err)
	require.Equal(t, []float32{1.5, -2}, w)
	m, tm, err := f.I64("m")
	require.NoError(t, err)
	require.Equal(t, []int64{1<<40 + 7, -1}, m)
	require.Equal(t, []int{2, 1}, tm.Shape)
	e, _, err := f.I8("e")
	require.NoError(t, err)
	require.Equal(t, []int8{-128, 127, 1}, e)

	_, _, err = f.F32("m")
	require.ErrorContains(t, err, `tensor "m" is I64, want F32`)
	_, _, err = f.I8("nope")
	require.ErrorContains(t, err, `no tensor "nope" (have [e m w])`)
}

func TestParseErrors(t *testing.T) {
	body := make([]byte, 8)
	tests := []struct {
		name, header, want string
	}{
		{"short range", `{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}`, `F32[3] needs 12 bytes, data_offsets give 8`},
		{"outside", `{"a":{"dtype":"I8","shape":[9],"data_offsets":[0,9]}}`, `data_offsets [0 9] outside the 8 data bytes`},
		{"dtype", `{"a":{"dtype":"Q4","shape":[1],"data_offsets":[0,1]}}`, `unknown dtype "Q4"`},
		{"overlap", `{"a":{"dtype":"I8","shape":[4],"data_offsets":[0,4]},"b":{"dtype":"I8","shape":[4],"data_offsets":[2,6]}}`, `overlaps`},
		{"json", `{"a":`, `header:`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("bad.safetensors", build(tt.header, body))
			require.Error(t, err)
			if !strings.Contains(err.Error(), tt.want) || !strings.HasPrefix(err.Error(), "safetensors: bad.safetensors: ") {
				t.Errorf("error %q: want the file name and %q", err, tt.want)
			}
		})
	}
	_, err := Parse("tiny", []byte{1, 2})
	require.ErrorContains(t, err, "too short")
	huge := binary.LittleEndian.AppendUint64(nil, 1<<40)
	_, err = Parse("huge", huge)
	require.ErrorContains(t, err, "does not fit")
}

// TestReadStaticModel reads the real static model and compares values with
// numpy's reading of the same file (np.frombuffer over the header's ranges).
func TestReadStaticModel(t *testing.T) {
	m, err := models.Lookup("static-tokenlearn")
	require.NoError(t, err)
	cache := testenv.CacheDir()
	if err := models.Verify(cache, m); err != nil {
		testenv.Missing(t, testenv.Models, err.Error())
	}
	f, err := Read(m.Path(cache, models.StaticFile))
	require.NoError(t, err)
	mapping, tm, err := f.I64("mapping")
	require.NoError(t, err)
	weights, _, err := f.F32("weights")
	require.NoError(t, err)
	emb, te, err := f.I8("embeddings")
	require.NoError(t, err)
	require.Equal(t, []int{276326}, tm.Shape)
	require.Equal(t, []int{10000, 64}, te.Shape)
	if diff := cmp.Diff([]int64{8633, 3082, 9241, 6433, 5544, 5479}, mapping[:6]); diff != "" {
		t.Errorf("mapping[:6] (-numpy +go):\n%s", diff)
	}
	var msum int64
	for _, v := range mapping {
		msum += v
	}
	require.Equal(t, int64(957037540), msum)
	require.Equal(t, []float32{0.5006022453308105, 0.5009022951126099, 0.4341745674610138, 0.43672236800193787}, weights[:4])
	var wsum float64
	for _, v := range weights {
		wsum += float64(v)
	}
	require.InDelta(t, 200997.895570606, wsum, 1e-6)
	require.Equal(t, []int8{20, 15, 14, -35, -6, -19, -9, -18}, emb[:8])
	require.Equal(t, []int8{-14, 40, 11, -27}, emb[len(emb)-4:])
	var esum int64
	for _, v := range emb {
		esum += int64(v)
	}
	require.Equal(t, int64(-12958), esum)

	// A truncated copy is refused with the file's name.
	bad := filepath.Join(t.TempDir(), "cut.safetensors")
	data, err := os.ReadFile(m.Path(cache, models.StaticFile))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(bad, data[:len(data)-100], 0o644))
	_, err = Read(bad)
	require.ErrorContains(t, err, bad)
}
