package metrics

import (
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultResamples is the number of bootstrap resamples used when a caller
// passes 0.
const DefaultResamples = 1000

// Mean returns the arithmetic mean of values (the micro average when values
// holds one value per query), or 0 for an empty slice.
func Mean(values []float64) float64 {
	if len(values) == 0 {
		return 0
	}
	var s float64
	for _, v := range values {
		s += v
	}
	return s / float64(len(values))
}

// CI is a mean with a confidence interval over N values.
type CI struct {
	Mean, Low, High float64
	N               int
}

// DefaultStream is the PCG stream of every resampling function's generator
// (with its seed), so equal seeds give equal results on every platform.
const DefaultStream = 0x9e3779b97f4a7c15

// newRand returns the generator every resampling function uses.
func newRand(seed uint64) *rand.Rand {
	return rand.New(rand.NewPCG(seed, DefaultStream))
}

// Bootstrap returns the mean of values with a 95% percentile bootstrap
// confidence interval: it draws resamples samples of len(values) values with
// replacement (resamples ≤ 0 means DefaultResamples), takes each sample's
// mean, and reports the 2.5th and 97.5th percentiles of those means (linear
// interpolation between order statistics). The same values, resamples and
// seed always give the same interval. An empty slice gives the zero CI.
func Bootstrap(values []float64, resamples int, seed uint64) CI {
	n := len(values)
	if n == 0 {
		return CI{}
	}
	means := resampleMeans(values, resamples, seed)
	return CI{
		Mean: Mean(values),
		Low:  quantile(means, 0.025),
		High: quantile(means, 0.975),
		N:    n,
	}
}

// resampleMeans returns the sorted means of resamples bootstrap samples.
func resampleMeans(values []float64, resamples int, seed uint64) []float64 {
	if resamples <= 0 {
		resamples = DefaultResamples
	}
	n := len(values)
	r := newRand(seed)
	means := make([]float64, resamples)
	for i := range means {
		var s float64
		for range n {
			s += values[r.IntN(n)]
		}
		means[i] = s / float64(n)
	}
	slices.Sort(means)
	return means
}

// quantile returns the p-quantile of sorted xs by linear interpolation
// between the order statistics at positions p·(len−1) (Hyndman–Fan type 7).
func quantile(xs []float64, p float64) float64 {
	pos := p * float64(len(xs)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(xs)-1)
	frac := pos - float64(lo)
	return xs[lo] + frac*(xs[hi]-xs[lo])
}

// Group is the mean of one group's values.
type Group struct {
	Key  string
	N    int
	Mean float64
}

// PerGroup splits values by the key at the same index (one value per query,
// keys[i] its repository, intent, library…) and returns each group's size
// and mean, ordered by key. values and keys must have the same length; it
// panics otherwise, as that is a programming error.
func PerGroup(values []float64, keys []string) []Group {
	if len(values) != len(keys) {
		panic("metrics.PerGroup: values and keys differ in length")
	}
	idx := make(map[string]int)
	var gs []Group
	for i, k := range keys {
		j, ok := idx[k]
		if !ok {
			j = len(gs)
			idx[k] = j
			gs = append(gs, Group{Key: k})
		}
		gs[j].N++
		gs[j].Mean += values[i]
	}
	for i := range gs {
		gs[i].Mean /= float64(gs[i].N)
	}
	slices.SortFunc(gs, func(a, b Group) int {
		switch {
		case a.Key < b.Key:
			return -1
		case a.Key > b.Key:
			return 1
		}
		return 0
	})
	return gs
}

// Macro returns the macro average of values grouped by keys: the unweighted
// mean of the group means of PerGroup, so every group counts once however
// many queries it has (Mean is the micro average, where every query counts
// once). It returns 0 for empty input and panics when the lengths differ.
func Macro(values []float64, keys []string) float64 {
	gs := PerGroup(values, keys)
	if len(gs) == 0 {
		return 0
	}
	var s float64
	for _, g := range gs {
		s += g.Mean
	}
	return s / float64(len(gs))
}
