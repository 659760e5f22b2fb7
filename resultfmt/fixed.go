package resultfmt

import (
	"math"
	"strconv"
)

// Fixed is a float64 written with exactly four decimals.
type Fixed float64

// MarshalJSON writes f rounded to four decimals.
func (f Fixed) MarshalJSON() ([]byte, error) {
	return []byte(strconv.FormatFloat(Round4(float64(f)), 'f', 4, 64)), nil
}

// Round4 rounds v to four decimals, as Fixed writes it.
func Round4(v float64) float64 { return math.Round(v*1e4) / 1e4 }

// Stat is a mean with its 95% bootstrap CI.
type Stat struct {
	Mean Fixed `json:"mean"`
	Low  Fixed `json:"ci_low"`
	High Fixed `json:"ci_high"`
}

// NewStat is the Stat of a mean and its interval (each written with four
// decimals, as Fixed is).
func NewStat(mean, low, high float64) Stat {
	return Stat{Mean: Fixed(mean), Low: Fixed(low), High: Fixed(high)}
}
