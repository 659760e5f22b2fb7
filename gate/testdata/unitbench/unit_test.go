// Package unitbench is a Go benchmark that reports a quality measure with
// b.ReportMetric and declares its unit metadata the way the suite's
// benchmarks do. gate's tests run it with go test -bench to check that the
// metadata lines reach the benchmark file and that benchstat and the gate
// honour them. It is under testdata so ./... skips it.
package unitbench

import (
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"
)

var sink int

func BenchmarkQuality(b *testing.B) {
	hit10 := 0.7333
	if s := os.Getenv("UNITBENCH_HIT10"); s != "" {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil {
			b.Fatalf("UNITBENCH_HIT10=%q: %v", s, err)
		}
		hit10 = v
	}
	// UNITBENCH_DELAY plants a slowdown per operation, for measuring the
	// gate by hand (see the gate package's tests and docs/ci.md).
	var delay time.Duration
	if s := os.Getenv("UNITBENCH_DELAY"); s != "" {
		d, err := time.ParseDuration(s)
		if err != nil {
			b.Fatalf("UNITBENCH_DELAY=%q: %v", s, err)
		}
		delay = d
	}
	// Printed by the parent benchmark before any sub-benchmark starts: the
	// testing package prints a sub-benchmark's name before running it, so a
	// line printed from inside a leaf benchmark would be spliced into its
	// result line. The parent body runs once, whatever -count is.
	fmt.Println("Unit hit@10 better=higher assume=exact")
	fmt.Println("Unit queries/s better=higher")
	b.Run("system=fake/op=search", func(b *testing.B) {
		for b.Loop() {
			for i := range 200_000 {
				sink += i * i
			}
			if delay > 0 {
				time.Sleep(delay)
			}
		}
		b.ReportMetric(hit10, "hit@10")
		b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
	})
}
