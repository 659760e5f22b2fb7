// Package rss reads the resident set size of the current process from
// /proc/self/status (Linux), so a benchmark can report how much memory it
// peaked at.
//
// The kernel keeps the process's high-water mark (VmHWM). ResetPeak lowers
// it to the current resident size by writing "5" to /proc/self/clear_refs
// (Linux 4.0+); where that write is not permitted (some sandboxes,
// read-only /proc), the mark cannot be reset and Peak returns the
// high-water mark of the whole process so far, which only ever grows.
//
// Everything here is Linux-only; elsewhere the functions return
// ErrUnsupported.
package rss

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/fileline"
)

// ErrUnsupported is returned where /proc/self/status does not exist.
var ErrUnsupported = errors.New("rss: /proc/self/status is not available on " + runtime.GOOS)

const (
	statusPath    = "/proc/self/status"
	clearRefsPath = "/proc/self/clear_refs"
)

// Usage is the resident set size now and its high-water mark, in bytes.
type Usage struct {
	Current uint64 // VmRSS
	Peak    uint64 // VmHWM
}

// Read returns the process's current and peak resident set size.
func Read() (Usage, error) {
	f, err := os.Open(statusPath)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return Usage{}, ErrUnsupported
		}
		return Usage{}, err
	}
	defer f.Close()
	return parseStatus(f, statusPath)
}

// ReadPID returns another process's current and peak resident set size
// (/proc/<pid>/status); a process that has exited has neither.
func ReadPID(pid int) (Usage, error) {
	name := "/proc/" + strconv.Itoa(pid) + "/status"
	f, err := os.Open(name)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && runtime.GOOS != "linux" {
			return Usage{}, ErrUnsupported
		}
		return Usage{}, err
	}
	defer f.Close()
	return parseStatus(f, name)
}

// Children returns the pids of pid's child processes, from
// /proc/<pid>/task/*/children (every thread's; empty when the kernel does
// not provide the file or the process is gone).
func Children(pid int) []int {
	tasks, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/task")
	var kids []int
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/task/" + t.Name() + "/children")
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				kids = append(kids, n)
			}
		}
	}
	return kids
}

// Peak returns the process's peak resident set size in bytes (VmHWM).
func Peak() (uint64, error) {
	u, err := Read()
	return u.Peak, err
}

// ResetPeak returns the free memory of the Go heap and (with cgo, on
// glibc) of the C heap to the operating system and then resets the high-water mark to the current resident size, so that a
// following Peak measures only what happens after the call. It returns an
// error (and changes nothing but the heap) when the kernel refuses the
// reset; callers that can live with a process-wide mark report that.
func ResetPeak() error {
	// Freed heap pages still count as resident until the runtime returns
	// them: without this, garbage of earlier work would set the baseline.
	runtime.GC()
	debug.FreeOSMemory()
	trimCHeap()
	if err := os.WriteFile(clearRefsPath, []byte("5"), 0); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return ErrUnsupported
		}
		return fmt.Errorf("rss: resetting the peak: %w", err)
	}
	return nil
}

// parseStatus reads the VmRSS and VmHWM lines of a /proc/<pid>/status file.
// Both must be present; values are in kB as the kernel writes them.
func parseStatus(r io.Reader, name string) (Usage, error) {
	var u Usage
	var haveRSS, haveHWM bool
	sc := bufio.NewScanner(r)
	line := 0
	for sc.Scan() {
		line++
		key, val, ok := bytes.Cut(sc.Bytes(), []byte(":"))
		if !ok {
			continue
		}
		var dst *uint64
		switch string(key) {
		case "VmRSS":
			dst, haveRSS = &u.Current, true
		case "VmHWM":
			dst, haveHWM = &u.Peak, true
		default:
			continue
		}
		n, err := parseKB(string(val))
		if err != nil {
			return Usage{}, fileline.Errorf(name, line, "%s: %w", key, err)
		}
		*dst = n
	}
	if err := sc.Err(); err != nil {
		return Usage{}, fmt.Errorf("%s: %w", name, err)
	}
	if !haveRSS || !haveHWM {
		return Usage{}, fmt.Errorf("%s: no VmRSS/VmHWM lines (kernel threads have none)", name)
	}
	return u, nil
}

// parseKB parses "   12345 kB" into bytes.
func parseKB(s string) (uint64, error) {
	f := strings.Fields(s)
	if len(f) != 2 || f[1] != "kB" {
		return 0, fmt.Errorf("want \"<n> kB\", got %q", strings.TrimSpace(s))
	}
	n, err := strconv.ParseUint(f[0], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("want \"<n> kB\", got %q: %w", strings.TrimSpace(s), err)
	}
	if n > (1<<64-1)/1024 {
		return 0, fmt.Errorf("%d kB overflows", n)
	}
	return n * 1024, nil
}
