package campaign

import (
	"bufio"
	"fmt"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// RSSMethod says how SystemRun.PeakRSSMB is measured; reports quote it.
const RSSMethod = "VmHWM of the campaign process (/proc/self/status), reset before each system by writing 5 to /proc/self/clear_refs after a GC that returns freed memory to the OS; it includes the process baseline (Go runtime, loaded corpora) and ONNX Runtime's native allocations"

// resetPeak lowers the process's RSS high-water mark to its current RSS.
// It reports whether the reset took effect; where it cannot, peaks only
// ever grow and later systems inherit earlier ones' peaks.
func resetPeak() bool {
	runtime.GC()
	debug.FreeOSMemory()
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// peakRSSMB reads VmHWM in MiB (0 when /proc is unavailable).
func peakRSSMB() float64 {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), "VmHWM:"); ok {
			fs := strings.Fields(rest)
			if len(fs) == 2 && fs[1] == "kB" {
				kb, err := strconv.ParseFloat(fs[0], 64)
				if err == nil {
					return kb / 1024
				}
			}
		}
	}
	return 0
}

func mib(v float64) string { return fmt.Sprintf("%.0f MiB", v) }
