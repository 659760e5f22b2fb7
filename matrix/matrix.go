// Package matrix runs one cell of the benchmark matrix — one system (a
// systems.Spec) on one prepared dataset — the one way benchtest's cells and
// a campaign's cells run: it resets the runner's peak RSS, runs
// harness.Run, and measures what the cell cost (its wall time, its peak
// RSS by one method, RSSMethod) and the vector dimension its system's
// model produces (systems.VectorDimOf). What a caller then does with the
// outcome (a golden check, a campaign's failures) is its own.
package matrix

import (
	"context"
	"fmt"
	"runtime/debug"
	"time"

	"github.com/retrievalbench/retrievalbench/harness"
	"github.com/retrievalbench/retrievalbench/internal/rss"
	"github.com/retrievalbench/retrievalbench/systems"
)

// RSSMethod says how Outcome.PeakRSS is measured; reports quote it.
const RSSMethod = "VmHWM of the runner process (/proc/self/status), reset before each cell by writing 5 to /proc/self/clear_refs " +
	"after a GC that returns freed Go and C heap memory to the OS; it includes the process baseline (Go runtime, loaded corpora) " +
	"and ONNX Runtime's native allocations; for a system that runs its own processes (an external peer), the largest peak RSS " +
	"of those processes instead (ru_maxrss where it exceeds the runner's own mark, else their VmHWM read from /proc every 20 ms)"

// Outcome is what one cell returned and cost.
type Outcome struct {
	// Result is harness.Run's result; with Err set it may be nil or hold
	// the corpora done before the failure.
	Result *harness.Result
	// Err is a failure that makes the whole cell meaningless: the system
	// could not be built, a corpus could not be indexed (harness.Run's
	// error), or the run panicked. Failed tasks are in Result.
	Err error
	// Seconds is the cell's wall time: building, indexing and searching.
	Seconds float64
	// PeakRSS is the cell's peak resident set size in bytes (RSSMethod):
	// the largest peak the processes of its systems report
	// (systems.PeakRSSOf; then Processes is true), else the runner's
	// high-water mark since the reset before the cell; 0 when unknown.
	PeakRSS   uint64
	Processes bool
	// ResetFailed is true when the runner's high-water mark could not be
	// reset before the cell (a sandbox, a read-only /proc): a runner's
	// PeakRSS then includes every earlier peak of the process.
	ResetFailed bool
	// Dimension is the length of a query vector of the first system the
	// cell built that measures one (systems.VectorDimer), probed once,
	// after its Index; DimensionErr is why that probe failed. Both are zero
	// when no system measures one.
	Dimension    int
	DimensionErr error
}

// Run runs spec on p with cfg: one cell. It never panics on the system's
// account: a failing New or Index, or a panic, is the outcome's Err.
func Run(ctx context.Context, p *harness.Prepared, spec systems.Spec, cfg harness.RunConfig) (o Outcome) {
	var built []systems.System
	probed := false
	next := cfg.Indexed
	cfg.Indexed = func(ctx context.Context, sys systems.System) {
		built = append(built, sys)
		if !probed {
			if dim, ok, err := systems.VectorDimOf(ctx, sys); ok {
				probed = true
				o.Dimension, o.DimensionErr = dim, err
			}
		}
		if next != nil {
			next(ctx, sys)
		}
	}
	o.ResetFailed = rss.ResetPeak() != nil
	start := time.Now()
	o.Result, o.Err = run(ctx, p, spec, cfg)
	o.Seconds = time.Since(start).Seconds()
	for _, s := range built {
		o.PeakRSS = max(o.PeakRSS, systems.PeakRSSOf(s))
	}
	if o.PeakRSS > 0 {
		o.Processes = true
	} else if peak, err := rss.Peak(); err == nil {
		o.PeakRSS = peak
	}
	return o
}

// run is harness.Run with a panic (a constructor's) turned into an error.
func run(ctx context.Context, p *harness.Prepared, spec systems.Spec, cfg harness.RunConfig) (res *harness.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("%s: panic: %v\n%s", spec.Name(), r, debug.Stack())
		}
	}()
	return harness.Run(ctx, p, spec, cfg)
}
