package metrics

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestMacroVsMicro(t *testing.T) {
	// Repo A has three queries, all hits; repo B has one, a miss. Micro
	// averaging lets A dominate; macro gives each repo one vote.
	values := []float64{1, 1, 1, 0}
	keys := []string{"A", "A", "A", "B"}
	if got := Mean(values); got != 0.75 {
		t.Errorf("Mean = %v, want 0.75 (3 of 4 queries)", got)
	}
	if got := Macro(values, keys); got != 0.5 {
		t.Errorf("Macro = %v, want 0.5 (mean of A=1 and B=0)", got)
	}
	want := []Group{{"A", 3, 1}, {"B", 1, 0}}
	if diff := cmp.Diff(want, PerGroup(values, keys)); diff != "" {
		t.Errorf("PerGroup (-want +got):\n%s", diff)
	}
}

func TestPerGroupOrderAndEmpty(t *testing.T) {
	got := PerGroup([]float64{0.2, 0.4, 0.6}, []string{"z", "a", "z"})
	want := []Group{{"a", 1, 0.4}, {"z", 2, 0.4}}
	if diff := cmp.Diff(want, got, approx); diff != "" {
		t.Errorf("groups are sorted by key (-want +got):\n%s", diff)
	}
	if got := Macro(nil, nil); got != 0 {
		t.Errorf("Macro of nothing = %v, want 0", got)
	}
	if got := Mean(nil); got != 0 {
		t.Errorf("Mean of nothing = %v, want 0", got)
	}
	require.Panics(t, func() { PerGroup([]float64{1}, nil) }, "length mismatch is a programming error")
}

func TestBootstrapDeterministic(t *testing.T) {
	values := make([]float64, 200)
	for i := range values {
		values[i] = float64(i%7) / 6
	}
	a := Bootstrap(values, 1000, 42)
	b := Bootstrap(values, 1000, 42)
	if a != b {
		t.Fatalf("same seed, different CIs: %+v vs %+v", a, b)
	}
	if !(a.Low < a.Mean && a.Mean < a.High) {
		t.Errorf("CI %+v does not bracket the mean", a)
	}
	if a.N != 200 || a.Mean != Mean(values) {
		t.Errorf("CI %+v: want N=200 and the sample mean %v", a, Mean(values))
	}
	// The standard error of the mean is sd/sqrt(n); a 95% interval spans
	// about ±1.96 of it.
	var ss float64
	for _, v := range values {
		ss += (v - a.Mean) * (v - a.Mean)
	}
	se := math.Sqrt(ss/float64(len(values))) / math.Sqrt(float64(len(values)))
	if w := a.High - a.Low; w < 2*1.96*se*0.8 || w > 2*1.96*se*1.2 {
		t.Errorf("CI width %v, want about %v", w, 2*1.96*se)
	}
	if c := Bootstrap(values, 1000, 43); c == a {
		t.Errorf("a different seed gave the identical CI %+v", c)
	}
	if d := Bootstrap(values, 0, 42); d != a {
		t.Errorf("resamples 0 should mean DefaultResamples (1000): %+v vs %+v", d, a)
	}
}

func TestBootstrapEdgeCases(t *testing.T) {
	if got := Bootstrap(nil, 1000, 1); got != (CI{}) {
		t.Errorf("empty: %+v, want zero CI", got)
	}
	got := Bootstrap([]float64{0.5, 0.5, 0.5}, 100, 1)
	if got != (CI{Mean: 0.5, Low: 0.5, High: 0.5, N: 3}) {
		t.Errorf("constant values: %+v, want a zero-width CI at 0.5", got)
	}
}

func TestQuantile(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5}
	for _, tt := range []struct{ p, want float64 }{{0, 1}, {0.5, 3}, {1, 5}, {0.25, 2}, {0.1, 1.4}} {
		if got := quantile(xs, tt.p); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("quantile(%v) = %v, want %v (type 7: linear between order statistics)", tt.p, got, tt.want)
		}
	}
}
