package proc

import (
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/rss"
)

// PeakRSS keeps the largest peak resident set size, in bytes, of the child
// processes a System ran. A nil *PeakRSS records nothing.
//
// The kernel's figure for a reaped child (ru_maxrss of wait4: the process
// and the descendants it reaped) is not the child's alone: Go starts a
// child with vfork semantics (CLONE_VM), and Linux's exec keeps the
// starting process's high-water mark as the child's ru_maxrss, so every
// child of a benchmark process that holds 300 MiB of models would report at
// least 300 MiB. The child's own peak is therefore taken where it can be
// told apart (watch): ru_maxrss when it exceeds this process's VmHWM, read
// just before and just after the child started, by more than slack (then it
// can only be the child's own); otherwise the largest VmHWM read from
// /proc/<pid>/status of the child and its descendants while they ran, once
// as it starts, every sampleEvery and once more before a server is stopped.
// A child that exits before the first look and stays below this process's
// mark is then not seen at all (0).
type PeakRSS struct{ max atomic.Uint64 }

// slack is how far ru_maxrss must exceed this process's VmHWM (floor) to
// count as the child's own. The kernel keeps RSS in per-CPU counters and
// reads them without summing the CPUs' pending deltas, so the figure exec
// hands the child and the VmHWM read a moment later differ by up to a
// counter batch (max(32, 2·CPUs) pages) per CPU: measured here, up to 24 KiB
// on 2 cores, and a CI runner's child once showed 181.8 MiB for a peak that
// was its runner's. The slack is that bound, at least 8 MiB and a sixteenth
// of the floor; a child's own peak inside it is left to the samples.
func slack(floor uint64) uint64 {
	cpus := uint64(runtime.NumCPU())
	batch := cpus * max(32, 2*cpus) * uint64(os.Getpagesize())
	return max(batch, 8<<20, floor/16)
}

// mark reads this process's VmHWM before a child is started (watch's
// floor is the larger of it and the one read after).
func (p *PeakRSS) mark() uint64 {
	if p == nil {
		return 0
	}
	m, _ := rss.Peak()
	return m
}

// sampleEvery is how often a running child's VmHWM is read.
const sampleEvery = 20 * time.Millisecond

func (p *PeakRSS) record(b uint64) {
	for {
		old := p.max.Load()
		if b <= old || p.max.CompareAndSwap(old, b) {
			return
		}
	}
}

func (p *PeakRSS) Bytes() uint64 {
	if p == nil {
		return 0
	}
	return p.max.Load()
}

// rssWatch follows one child process for peakRSS.
type rssWatch struct {
	pk      *PeakRSS
	pid     int
	floor   uint64 // this process's VmHWM once the child had started
	sampled atomic.Uint64
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// watch starts following the child pid, which has just started; before is
// mark's reading from before the start. nil when p is nil.
func (p *PeakRSS) watch(pid int, before uint64) *rssWatch {
	if p == nil {
		return nil
	}
	w := &rssWatch{pk: p, pid: pid, stop: make(chan struct{}), stopped: make(chan struct{})}
	w.sample()
	after, _ := rss.Peak()
	w.floor = max(before, after)
	go func() {
		defer close(w.stopped)
		t := time.NewTicker(sampleEvery)
		defer t.Stop()
		for {
			select {
			case <-w.stop:
				return
			case <-t.C:
				w.sample()
			}
		}
	}()
	return w
}

// sample reads the VmHWM of the child and its descendants.
func (w *rssWatch) sample() {
	if w == nil {
		return
	}
	seen := map[int]bool{}
	var visit func(pid, depth int)
	visit = func(pid, depth int) {
		if seen[pid] || depth > 16 {
			return
		}
		seen[pid] = true
		u, err := rss.ReadPID(pid)
		if err != nil {
			return
		}
		for {
			old := w.sampled.Load()
			if u.Peak <= old || w.sampled.CompareAndSwap(old, u.Peak) {
				break
			}
		}
		for _, c := range rss.Children(pid) {
			visit(c, depth+1)
		}
	}
	visit(w.pid, 0)
}

// done stops the sampling once the child has been reaped and records its
// peak (see peakRSS).
func (w *rssWatch) done(ps *os.ProcessState) {
	if w == nil {
		return
	}
	w.once.Do(func() { close(w.stop) })
	<-w.stopped
	peak := w.sampled.Load()
	if ps != nil {
		if ru, ok := ps.SysUsage().(*syscall.Rusage); ok && ru.Maxrss > 0 {
			if own := uint64(ru.Maxrss) * 1024; own > w.floor+slack(w.floor) { // KiB on Linux
				peak = max(peak, own)
			}
		}
	}
	if peak > 0 {
		w.pk.record(peak)
	}
}
