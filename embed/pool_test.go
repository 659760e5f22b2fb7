package embed

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPool(t *testing.T) {
	// Three positions of dimension 2; the last is padding in the masked cases.
	hidden := []float32{1, 2, 3, 4, 100, 100}
	tests := []struct {
		name    string
		pooling string
		mask    []int64
		want    []float32
		reason  string
	}{
		{"cls", PoolCLS, []int64{1, 1, 0}, []float32{1, 2}, "CLS takes position 0 whatever the mask"},
		{"mean-masked", PoolMean, []int64{1, 1, 0}, []float32{2, 3}, "padding must not enter the mean"},
		{"mean-all", PoolMean, []int64{1, 1, 1}, []float32{104.0 / 3, 106.0 / 3}, "every kept position counts once"},
		{"mean-none", PoolMean, []int64{0, 0, 0}, []float32{0, 0}, "an all-padding row pools to zero, not NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := make([]float32, 2)
			if err := pool(tt.pooling, hidden, tt.mask, 3, 2, got); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got, cmpopts.EquateApprox(1e-6, 1e-6)); diff != "" {
				t.Errorf("%s (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
	if err := pool("max", hidden, []int64{1, 1, 1}, 3, 2, make([]float32, 2)); err == nil {
		t.Error("unknown pooling accepted")
	}
	if err := pool(PoolMean, hidden[:4], []int64{1, 1, 1}, 3, 2, make([]float32, 2)); err == nil {
		t.Error("short hidden buffer accepted")
	}
}

func TestNormalize(t *testing.T) {
	v := []float32{3, 4}
	normalize(v)
	if diff := cmp.Diff([]float32{0.6, 0.8}, v, cmpopts.EquateApprox(0, 1e-7)); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	z := []float32{0, 0}
	normalize(z)
	if z[0] != 0 || z[1] != 0 {
		t.Errorf("zero vector became %v", z)
	}
}

func TestDot(t *testing.T) {
	// Lengths around the unrolled stride of 4, checked against a float64 loop.
	for n := range 11 {
		a, b := make([]float32, n), make([]float32, n)
		var want float64
		for i := range n {
			a[i], b[i] = float32(i+1), float32(2*i-3)
			want += float64(a[i]) * float64(b[i])
		}
		if got := Dot(a, b); math.Abs(float64(got)-want) > 1e-4 {
			t.Errorf("n=%d: Dot = %v, want %v", n, got, want)
		}
	}
}
