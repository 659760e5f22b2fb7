package external

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/rss"
)

// Bounds of what is kept from a child process.
const (
	stderrTail = 4 << 10 // bytes of stderr kept for error messages
	maxLine    = 64 << 10
	// waitDelay is how long Wait waits for the pipes to close after the
	// process exits or is killed (a grandchild may hold them open).
	waitDelay = 2 * time.Second
	// closeGrace is how long a server may take to exit once its stdin is
	// closed before its process group is killed.
	closeGrace = time.Second
)

// redactor replaces every secret value by "***".
type redactor struct {
	secrets []string // longest first, so a secret containing another goes whole
	longest int
}

func newRedactor(secrets []string) *redactor {
	r := &redactor{}
	for _, s := range secrets {
		if s != "" {
			r.secrets = append(r.secrets, s)
			r.longest = max(r.longest, len(s))
		}
	}
	sort.Slice(r.secrets, func(i, j int) bool { return len(r.secrets[i]) > len(r.secrets[j]) })
	return r
}

func (r *redactor) String(s string) string {
	if r == nil {
		return s
	}
	for _, x := range r.secrets {
		s = strings.ReplaceAll(s, x, "***")
	}
	return s
}

// Error returns err with its message redacted; errors.Is still sees
// through it.
func (r *redactor) Error(err error) error {
	if err == nil || r == nil || len(r.secrets) == 0 {
		return err
	}
	msg := r.String(err.Error())
	if msg == err.Error() {
		return err
	}
	return redactedError{msg, err}
}

type redactedError struct {
	msg string
	err error
}

func (e redactedError) Error() string { return e.msg }
func (e redactedError) Unwrap() error { return e.err }

// tail keeps the last stderrTail bytes written to it, redacted. Redaction
// happens on whole lines (or on long stretches that keep an overlap as long
// as the longest secret), so a secret split across two writes is still
// found and no part of one ever enters the kept bytes.
type tail struct {
	red     *redactor
	mu      sync.Mutex
	pending []byte // the unfinished line, not yet redacted
	kept    []byte // redacted; at most 2*stderrTail before trimming
	total   int64  // redacted bytes ever appended to kept
}

func newTail(red *redactor) *tail {
	if red == nil {
		red = newRedactor(nil)
	}
	return &tail{red: red}
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append(t.pending, p...)
	if i := bytes.LastIndexByte(t.pending, '\n'); i >= 0 {
		t.keep(t.pending[:i+1])
		t.pending = append(t.pending[:0], t.pending[i+1:]...)
	}
	if over := len(t.pending) - maxLine; over > 0 {
		// A very long line: redact all but an overlap that could hold
		// the start of a secret, which stays pending.
		cut := len(t.pending) - max(t.red.longest-1, 0)
		t.keep(t.pending[:cut])
		t.pending = append(t.pending[:0], t.pending[cut:]...)
	}
	return len(p), nil
}

func (t *tail) keep(b []byte) {
	r := t.red.String(string(b))
	t.kept = append(t.kept, r...)
	t.total += int64(len(r))
	if len(t.kept) > 2*stderrTail {
		t.kept = append(t.kept[:0], t.kept[len(t.kept)-stderrTail:]...)
	}
}

// String returns the last stderrTail bytes, redacted.
func (t *tail) String() string { return t.since(0) }

// mark is a position in the stream, for since.
func (t *tail) mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// since is String limited to what was written after mark (the output of
// one query of a long-running server, not of the queries before it). An
// unfinished line pending at mark counts as written after it.
func (t *tail) since(mark int64) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	kept := t.kept
	if n := t.total - mark; n < int64(len(kept)) {
		kept = kept[len(kept)-int(max(n, 0)):]
	}
	s := string(kept) + t.red.String(string(t.pending))
	if len(s) > stderrTail {
		s = "…" + s[len(s)-stderrTail:]
	}
	return strings.TrimRight(s, "\n")
}

// withTail appends the stderr tail to err, if there is one.
func withTail(err error, t *tail) error { return withTailSince(err, t, 0) }

// withTailSince appends what stderr received after mark to err.
func withTailSince(err error, t *tail, mark int64) error {
	if s := t.since(mark); s != "" {
		return fmt.Errorf("%w\nstderr (last %d bytes):\n%s", err, stderrTail, s)
	}
	return err
}

// peakRSS keeps the largest peak resident set size, in bytes, of the child
// processes a System ran. A nil *peakRSS records nothing.
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
type peakRSS struct{ max atomic.Uint64 }

// sampleEvery is how often a running child's VmHWM is read.
const sampleEvery = 20 * time.Millisecond

func (p *peakRSS) record(b uint64) {
	for {
		old := p.max.Load()
		if b <= old || p.max.CompareAndSwap(old, b) {
			return
		}
	}
}

func (p *peakRSS) bytes() uint64 {
	if p == nil {
		return 0
	}
	return p.max.Load()
}

// rssWatch follows one child process for peakRSS.
type rssWatch struct {
	pk      *peakRSS
	pid     int
	floor   uint64 // this process's VmHWM once the child had started
	sampled atomic.Uint64
	stop    chan struct{}
	stopped chan struct{}
	once    sync.Once
}

// watch starts following the child pid, which has just started; nil when
// p is nil.
func (p *peakRSS) watch(pid int) *rssWatch {
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

// command returns a Cmd that runs in its own process group, which is killed
// as a whole when ctx ends.
func command(ctx context.Context, argv, env []string, dir string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = env, dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setPdeathsig(cmd.SysProcAttr)
	cmd.Cancel = func() error { return killGroup(cmd) }
	cmd.WaitDelay = waitDelay
	return cmd
}

// killGroup kills the process group that cmd leads. A group that is
// already gone is not an error.
func killGroup(cmd *exec.Cmd) error {
	if cmd.Process == nil {
		return nil
	}
	err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err == nil || errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// capped is an io.Writer that keeps at most limit bytes and fails after.
type capped struct {
	limit  int
	buf    bytes.Buffer
	over   bool
	onOver func() // called once when the limit is passed
}

var errOutputTooLarge = errors.New("output too large")

func (c *capped) Write(p []byte) (int, error) {
	if c.buf.Len()+len(p) > c.limit {
		if !c.over && c.onOver != nil {
			c.onOver()
		}
		c.over = true
		return 0, errOutputTooLarge
	}
	return c.buf.Write(p)
}

// run runs argv to completion and returns its stdout, at most limit bytes
// (limit < 0: stdout joins stderr in the tail and nothing is returned), and
// the redacted tail of its stderr. Its process group is killed when ctx
// ends, when the output grows past limit, and after it exits (so nothing
// it started stays behind). An error carries the exit status and the tail.
// Its peak RSS goes into pk (nil: not recorded).
func run(ctx context.Context, argv, env []string, dir string, limit int, red *redactor, pk *peakRSS) (stdout []byte, stderr string, err error) {
	t := newTail(red)
	out := &capped{limit: limit}
	cmd := command(ctx, argv, env, dir)
	out.onOver = func() { killGroup(cmd) }
	cmd.Stdout, cmd.Stderr = out, t
	if limit < 0 {
		cmd.Stdout = t
	}
	err = startCmd(cmd)
	if err == nil {
		w := pk.watch(cmd.Process.Pid)
		err = cmd.Wait()
		w.done(cmd.ProcessState)
		release(cmd)
	}
	switch {
	case out.over:
		err = fmt.Errorf("%s: stdout exceeds %d bytes (max_output_bytes)", argv[0], limit)
	case ctx.Err() != nil:
		err = fmt.Errorf("%s: %w (%v)", argv[0], ctx.Err(), err)
	case err != nil:
		err = fmt.Errorf("%s: %w", argv[0], err)
	}
	if err != nil {
		return nil, t.String(), red.Error(withTail(err, t))
	}
	return out.buf.Bytes(), t.String(), nil
}

// server is a long-running child process (an MCP or HTTP server).
type server struct {
	cmd   *exec.Cmd
	tail  *tail
	stdin io.WriteCloser
	out   io.ReadCloser
	done  chan struct{} // closed when the process has exited
	err   error         // Wait's result, set before done is closed
	watch *rssWatch     // its peak RSS
}

// startServer starts argv with its stdin and stdout as pipes (when pipes
// is set) and stderr kept in a tail. Its peak RSS goes into pk once it
// exits.
func startServer(ctx context.Context, argv, env []string, dir string, pipes bool, red *redactor, pk *peakRSS) (*server, error) {
	s := &server{tail: newTail(red), done: make(chan struct{})}
	s.cmd = command(ctx, argv, env, dir)
	s.cmd.Stderr = s.tail
	if pipes {
		var err error
		if s.stdin, err = s.cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if s.out, err = s.cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	} else {
		s.cmd.Stdout = s.tail
	}
	if err := startCmd(s.cmd); err != nil {
		return nil, red.Error(fmt.Errorf("starting %s: %w", argv[0], err))
	}
	s.watch = pk.watch(s.cmd.Process.Pid)
	go func() {
		s.err = s.cmd.Wait()
		s.watch.done(s.cmd.ProcessState)
		close(s.done)
	}()
	return s, nil
}

// exited reports whether the process has exited, and how.
func (s *server) exited() (bool, error) {
	select {
	case <-s.done:
		return true, s.err
	default:
		return false, nil
	}
}

// gone reports whether the server process itself has ended, even while
// Wait still waits for its output pipes (a worker process it started can
// hold its stderr open for WaitDelay): os.Process knows as soon as the
// process is reaped.
func (s *server) gone() bool {
	if done, _ := s.exited(); done {
		return true
	}
	return errors.Is(s.cmd.Process.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// status describes the process's state for an error message, waiting a
// moment for a process that is dying to be reaped. killing says the caller
// is about to stop a server that is still running, which it then says
// instead of "still running".
func (s *server) status(killing bool) string {
	select {
	case <-s.done:
	case <-time.After(100 * time.Millisecond):
		if s.gone() {
			return "server exited (its exit status is not known yet: a process it started still holds its stderr)"
		}
		if killing {
			return "server killed after the failed call; a new one starts for the next query"
		}
		return "server still running"
	}
	if s.err == nil {
		return "server exited with status 0"
	}
	return "server " + s.err.Error()
}

// stop closes stdin, gives the server closeGrace to exit, then kills its
// process group, and waits for it. It is safe to call twice.
func (s *server) stop() {
	s.watch.sample() // the last look before it is asked to exit
	if s.stdin != nil {
		s.stdin.Close()
	}
	select {
	case <-s.done:
	case <-time.After(closeGrace):
	}
	killGroup(s.cmd)
	<-s.done
	release(s.cmd) // what the leader left behind
}
