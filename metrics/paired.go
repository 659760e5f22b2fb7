package metrics

import (
	"errors"
	"fmt"
	"math"
)

// Paired compares run b with run a on the same queries: the mean per-query
// difference b − a, its 95% confidence interval, a two-sided p-value for
// "no difference", and the number of pairs.
type Paired struct {
	MeanDiff, Low, High, P float64
	N                      int
}

// PairedBootstrap compares b with a query by query (a[i] and b[i] are the
// same query's values). It forms the differences d = b − a and resamples
// them resamples times with replacement (≤ 0 means DefaultResamples): Low and
// High are the 2.5th and 97.5th percentiles of the resampled mean
// differences; P is the two-sided bootstrap p-value of the shift method,
// (1 + #{resampled means m : |m − mean(d)| ≥ |mean(d)|}) / (resamples + 1),
// i.e. how often the null-centred bootstrap distribution is at least as far
// from zero as the observed mean. P is 1 when every difference is 0.
// Deterministic for a given seed; panics when the lengths differ.
func PairedBootstrap(a, b []float64, resamples int, seed uint64) Paired {
	d := diffs(a, b, "PairedBootstrap")
	if len(d) == 0 {
		return Paired{P: 1}
	}
	obs := Mean(d)
	means := resampleMeans(d, resamples, seed)
	p := Paired{MeanDiff: obs, Low: quantile(means, 0.025), High: quantile(means, 0.975), N: len(d), P: 1}
	if allZero(d) {
		return p
	}
	extreme := 0
	for _, m := range means {
		if math.Abs(m-obs) >= math.Abs(obs) {
			extreme++
		}
	}
	p.P = float64(extreme+1) / float64(len(means)+1)
	return p
}

// Permutation returns the two-sided p-value of a paired randomization test
// of "a and b are exchangeable" on the per-query differences d = b − a:
// each of rounds rounds (≤ 0 means DefaultResamples) flips the sign of every
// difference with probability ½, and the p-value is
// (1 + #{rounds with |mean of flipped d| ≥ |mean(d)|}) / (rounds + 1).
// It is 1 when every difference is 0 or there are no pairs. Deterministic
// for a given seed; panics when the lengths differ.
func Permutation(a, b []float64, rounds int, seed uint64) float64 {
	d := diffs(a, b, "Permutation")
	if len(d) == 0 || allZero(d) {
		return 1
	}
	if rounds <= 0 {
		rounds = DefaultResamples
	}
	obs := math.Abs(Mean(d))
	// Guard against rounding: a permuted sum equal to the observed one in
	// exact arithmetic must count as "at least as extreme".
	tol := 1e-12 * (obs + 1)
	r := newRand(seed)
	n := float64(len(d))
	extreme := 0
	for range rounds {
		var s float64
		for i := 0; i < len(d); i += 64 {
			bits := r.Uint64()
			for j := i; j < min(i+64, len(d)); j++ {
				if bits&1 == 1 {
					s -= d[j]
				} else {
					s += d[j]
				}
				bits >>= 1
			}
		}
		if math.Abs(s/n) >= obs-tol {
			extreme++
		}
	}
	return float64(extreme+1) / float64(rounds+1)
}

// McNemarResult holds the discordant pair counts and the exact p-value.
type McNemarResult struct {
	B, C int // B: a = 1 and b = 0; C: a = 0 and b = 1
	P    float64
}

// ErrNotBinary is returned by McNemar for a value other than 0 or 1.
var ErrNotBinary = errors.New("value is not 0 or 1")

// McNemar runs the exact McNemar test on paired 0/1 outcomes (hit@k,
// pass@1-needle…) of two runs on the same queries: with B the queries only
// a got right and C those only b got right, P is the two-sided exact
// binomial p-value min(1, 2·P[X ≤ min(B, C)]) for X ~ Binomial(B + C, ½);
// P is 1 when B + C = 0. Values other than 0 and 1, or slices of different
// lengths, are an error.
func McNemar(a, b []float64) (McNemarResult, error) {
	if len(a) != len(b) {
		return McNemarResult{}, fmt.Errorf("mcnemar: %d values against %d", len(a), len(b))
	}
	var r McNemarResult
	for i := range a {
		if (a[i] != 0 && a[i] != 1) || (b[i] != 0 && b[i] != 1) {
			return McNemarResult{}, fmt.Errorf("mcnemar: pair %d (%v, %v): %w", i, a[i], b[i], ErrNotBinary)
		}
		switch {
		case a[i] == 1 && b[i] == 0:
			r.B++
		case a[i] == 0 && b[i] == 1:
			r.C++
		}
	}
	r.P = binomTwoSided(min(r.B, r.C), r.B+r.C)
	return r, nil
}

// binomTwoSided returns min(1, 2·P[X ≤ k]) for X ~ Binomial(n, ½).
func binomTwoSided(k, n int) float64 {
	if n == 0 {
		return 1
	}
	lgN, _ := math.Lgamma(float64(n + 1))
	var cdf float64
	for i := 0; i <= k; i++ {
		lgI, _ := math.Lgamma(float64(i + 1))
		lgNI, _ := math.Lgamma(float64(n - i + 1))
		cdf += math.Exp(lgN - lgI - lgNI - float64(n)*math.Ln2)
	}
	return min(1, 2*cdf)
}

func diffs(a, b []float64, fn string) []float64 {
	if len(a) != len(b) {
		panic("metrics." + fn + ": a and b differ in length")
	}
	d := make([]float64, len(a))
	for i := range a {
		d[i] = b[i] - a[i]
	}
	return d
}

func allZero(d []float64) bool {
	for _, v := range d {
		if v != 0 {
			return false
		}
	}
	return true
}
