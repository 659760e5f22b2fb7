package gate

import (
	"errors"
	"flag"
	"fmt"
	"math"
)

// Config holds the gate's tunables. Start from DefaultConfig so fields
// added later get sensible values.
type Config struct {
	// Threshold is the relative change in the bad direction that a
	// significant change of a non-exact unit must exceed to count as a
	// regression: 0.10 means 10% slower, 10% more memory or 10% less
	// throughput. Exact units ignore it: any move in the bad direction fails.
	Threshold float64

	// Alpha is the significance level of the Mann–Whitney U test: a change
	// is significant when p <= Alpha (benchstat's rule for showing a delta
	// instead of "~").
	Alpha float64

	// Confidence is the level of the median confidence intervals shown
	// next to each median (benchstat's -confidence).
	Confidence float64

	// FailOnMissing makes a benchmark/unit present in only one of the two
	// files a failure too. Off by default: adding or removing a benchmark
	// is a normal change.
	FailOnMissing bool
}

// DefaultConfig returns benchstat's defaults and a 10% threshold.
func DefaultConfig() Config {
	return Config{
		Threshold:  0.10,
		Alpha:      0.05,
		Confidence: 0.95,
	}
}

// Flags defines c's command-line flags on fs (-threshold, -alpha,
// -confidence, -fail-missing), with c's values as their defaults: the
// flags of `retrievalbench gate` and `rbench gate`.
func (c *Config) Flags(fs *flag.FlagSet) {
	fs.Float64Var(&c.Threshold, "threshold", c.Threshold, "a significant change of a non-exact unit fails when it is worse by more than this `fraction` (0.10 = 10%)")
	fs.Float64Var(&c.Alpha, "alpha", c.Alpha, "significance level of the Mann-Whitney U test")
	fs.Float64Var(&c.Confidence, "confidence", c.Confidence, "confidence `level` of the median intervals")
	fs.BoolVar(&c.FailOnMissing, "fail-missing", c.FailOnMissing, "also fail when a benchmark/unit is present in only one file")
}

// Validate reports a Config that Compare cannot use.
func (c Config) Validate() error {
	var errs []error
	if math.IsNaN(c.Threshold) || c.Threshold < 0 {
		errs = append(errs, fmt.Errorf("threshold %v: must be >= 0", c.Threshold))
	}
	if !(c.Alpha > 0 && c.Alpha < 1) {
		errs = append(errs, fmt.Errorf("alpha %v: must be in (0, 1)", c.Alpha))
	}
	if !(c.Confidence > 0 && c.Confidence < 1) {
		errs = append(errs, fmt.Errorf("confidence %v: must be in (0, 1)", c.Confidence))
	}
	return errors.Join(errs...)
}
