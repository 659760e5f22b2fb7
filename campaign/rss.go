package campaign

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/retrievalbench/retrievalbench/internal/rss"
)

// RSSMethod says how SystemCost.PeakRSSMB is measured; reports quote it.
const RSSMethod = "VmHWM of the campaign process (/proc/self/status), reset before each system by writing 5 to /proc/self/clear_refs after a GC that returns freed memory to the OS; it includes the process baseline (Go runtime, loaded corpora) and ONNX Runtime's native allocations; for a system that runs its own processes (an external peer), the largest peak RSS of those processes instead (ru_maxrss where it exceeds the campaign process's own mark, else their VmHWM read from /proc every 20 ms)"

// resetPeak lowers the process's RSS high-water mark to its current RSS.
// It reports whether the reset took effect; where it cannot, peaks only
// ever grow and later systems inherit earlier ones' peaks. It is not
// rss.ResetPeak, which also trims the C heap: that is another RSSMethod
// than the one the recorded campaigns (runs/, docs/campaigns.md) quote.
func resetPeak() bool {
	runtime.GC()
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSSMB reads VmHWM in MiB (0 when /proc is unavailable).
func peakRSSMB() float64 {
	b, err := rss.Peak()
	if err != nil {
		return 0
	}
	return float64(b) / (1 << 20)
}

func mib(v float64) string { return fmt.Sprintf("%.0f MiB", v) }
