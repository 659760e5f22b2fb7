package proc

import (
	"os"
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
// told apart (watch): ru_maxrss when it exceeds this process's VmHWM read
// after the child started (then it can only be the child's own); otherwise
// the largest VmHWM read from /proc/<pid>/status of the child and its
// descendants while they ran, every sampleEvery and once more before a
// server is stopped. A child that lives shorter than sampleEvery and stays
// below this process's mark is then not seen at all (0).
type PeakRSS struct{ max atomic.Uint64 }

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

// watch starts following the child pid, which has just started; nil when
// p is nil.
func (p *PeakRSS) watch(pid int) *rssWatch {
	if p == nil {
		return nil
	}
	w := &rssWatch{pk: p, pid: pid, stop: make(chan struct{}), stopped: make(chan struct{})}
	w.floor, _ = rss.Peak()
	w.sample()
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
			if own := uint64(ru.Maxrss) * 1024; own > w.floor { // KiB on Linux
				peak = max(peak, own)
			}
		}
	}
	if peak > 0 {
		w.pk.record(peak)
	}
}
