package metrics

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Stats is how every "is it worse?" statistic of the project resamples: the
// 95% bootstrap CIs of the golden files, the reports and the leaderboard,
// and the paired tests of the reports' decision rules, the leaderboard and
// promote. One value (DefaultStats unless a caller sets another) instead of
// a resamples/seed/alpha triple per package: equal values give equal
// numbers everywhere.
type Stats struct {
	// Resamples is the number of bootstrap resamples and randomization
	// rounds (≤ 0: DefaultResamples).
	Resamples int `json:"resamples"`
	// Seed seeds every resampling: equal seeds, equal numbers on every
	// platform.
	Seed uint64 `json:"seed"`
	// Alpha is the significance level of the paired tests. The CIs are 95%
	// whatever it is.
	Alpha float64 `json:"alpha"`
}

// DefaultSeed is DefaultStats' seed.
const DefaultSeed = 20240623

// DefaultStats returns DefaultResamples resamples, DefaultSeed and
// α = 0.05: what the golden files' CIs were computed with, and the reports'
// and the leaderboard's.
func DefaultStats() Stats {
	return Stats{Resamples: DefaultResamples, Seed: DefaultSeed, Alpha: 0.05}
}

// ForTests returns the variant of s the paired tests of the reports'
// decision rules use: twice the resamples (a finer p-value resolution than
// the CIs need), the same seed and α. It and promote.DefaultStats (10,000
// rounds, seed 1, as the ledger's decisions were made) are the only
// variants of DefaultStats, each derived from it in one place.
func (s Stats) ForTests() Stats {
	n := s.Resamples
	if n <= 0 {
		n = DefaultResamples
	}
	s.Resamples = 2 * n
	return s
}

// Validate reports a value no test can use: α outside (0, 1) or a
// negative number of resamples.
func (s Stats) Validate() error {
	if !(s.Alpha > 0 && s.Alpha < 1) {
		return fmt.Errorf("alpha %v outside (0, 1)", s.Alpha)
	}
	if s.Resamples < 0 {
		return fmt.Errorf("resamples %d is negative", s.Resamples)
	}
	return nil
}

// CI is the mean of values with its 95% percentile bootstrap interval
// (Bootstrap).
func (s Stats) CI(values []float64) CI { return Bootstrap(values, s.Resamples, s.Seed) }

// Paired is the paired bootstrap of b against a (PairedBootstrap).
func (s Stats) Paired(a, b []float64) Paired { return PairedBootstrap(a, b, s.Resamples, s.Seed) }

// Permutation is the paired randomization test's p-value of b against a
// (Permutation).
func (s Stats) Permutation(a, b []float64) float64 { return Permutation(a, b, s.Resamples, s.Seed) }

// Stratified returns the 95% percentile interval of the macro mean of
// groups (the unweighted mean of the group means, as Macro): each of
// s.Resamples rounds draws, within every group, as many values as the group
// has, with replacement, and averages the groups' resampled means (an empty
// group adds nothing but still counts). stream is the generator's PCG
// stream next to s.Seed: DefaultStream, or another one a published table
// was computed with (the report's macro over repositories). No groups: 0, 0.
func (s Stats) Stratified(groups [][]float64, stream uint64) (lo, hi float64) {
	if len(groups) == 0 {
		return 0, 0
	}
	n := s.Resamples
	if n <= 0 {
		n = DefaultResamples
	}
	r := rand.New(rand.NewPCG(s.Seed, stream))
	means := make([]float64, n)
	for i := range means {
		total := 0.0
		for _, g := range groups {
			if len(g) == 0 {
				continue
			}
			sum := 0.0
			for range g {
				sum += g[r.IntN(len(g))]
			}
			total += sum / float64(len(g))
		}
		means[i] = total / float64(len(groups))
	}
	slices.Sort(means)
	return quantile(means, 0.025), quantile(means, 0.975)
}

// Significant reports whether p is below α.
func (s Stats) Significant(p float64) bool { return p < s.Alpha }
