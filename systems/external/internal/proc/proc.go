package proc

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/redact"
)

// Bounds of what is kept from a child process.
const (
	StderrTail = 4 << 10  // bytes of stderr kept for error messages
	MaxLine    = 64 << 10 // longest stretch of a line kept pending before it is redacted
	// waitDelay is how long Wait waits for the pipes to close after the
	// process exits or is killed (a grandchild may hold them open).
	waitDelay = 2 * time.Second
	// closeGrace is how long a server may take to exit once its stdin is
	// closed before its process group is killed.
	closeGrace = time.Second
)

// command returns a Cmd that runs in its own process group, which is killed
// as a whole when ctx ends.
func command(ctx context.Context, argv, env []string, dir string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = withMarker(env), dir
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

// Run runs argv to completion and returns its stdout, at most limit bytes
// (limit < 0: stdout joins stderr in the tail and nothing is returned), and
// the redacted tail of its stderr. Its process group is killed when ctx
// ends, when the output grows past limit, and after it exits (so nothing
// it started stays behind). An error carries the exit status and the tail.
// Its peak RSS goes into pk (nil: not recorded).
func Run(ctx context.Context, argv, env []string, dir string, limit int, red *redact.Redactor, pk *PeakRSS) (stdout []byte, stderr string, err error) {
	t := NewTail(red)
	out := &capped{limit: limit}
	cmd := command(ctx, argv, env, dir)
	out.onOver = func() { killGroup(cmd) }
	cmd.Stdout, cmd.Stderr = out, t
	if limit < 0 {
		cmd.Stdout = t
	}
	before := pk.mark()
	err = startCmd(cmd)
	if err == nil {
		w := pk.watch(cmd.Process.Pid, before)
		err = cmd.Wait()
		w.done(cmd.ProcessState)
		Release(cmd)
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
		return nil, t.String(), red.Error(WithTail(err, t))
	}
	return out.buf.Bytes(), t.String(), nil
}

// Server is a long-running child process (an MCP or HTTP server).
type Server struct {
	cmd   *exec.Cmd
	Tail  *Tail
	Stdin io.WriteCloser
	Out   io.ReadCloser
	done  chan struct{} // closed when the process has exited
	err   error         // Wait's result, set before done is closed
	watch *rssWatch     // its peak RSS
}

// StartServer starts argv with its stdin and stdout as pipes (when pipes
// is set) and stderr kept in a tail. Its peak RSS goes into pk once it
// exits.
func StartServer(ctx context.Context, argv, env []string, dir string, pipes bool, red *redact.Redactor, pk *PeakRSS) (*Server, error) {
	s := &Server{Tail: NewTail(red), done: make(chan struct{})}
	s.cmd = command(ctx, argv, env, dir)
	s.cmd.Stderr = s.Tail
	if pipes {
		var err error
		if s.Stdin, err = s.cmd.StdinPipe(); err != nil {
			return nil, err
		}
		if s.Out, err = s.cmd.StdoutPipe(); err != nil {
			return nil, err
		}
	} else {
		s.cmd.Stdout = s.Tail
	}
	before := pk.mark()
	if err := startCmd(s.cmd); err != nil {
		return nil, red.Error(fmt.Errorf("starting %s: %w", argv[0], err))
	}
	s.watch = pk.watch(s.cmd.Process.Pid, before)
	go func() {
		s.err = s.cmd.Wait()
		s.watch.done(s.cmd.ProcessState)
		close(s.done)
	}()
	return s, nil
}

// Exited reports whether the process has exited, and how.
func (s *Server) Exited() (bool, error) {
	select {
	case <-s.done:
		return true, s.err
	default:
		return false, nil
	}
}

// Gone reports whether the server process itself has ended, even while
// Wait still waits for its output pipes (a worker process it started can
// hold its stderr open for WaitDelay): os.Process knows as soon as the
// process is reaped.
func (s *Server) Gone() bool {
	if done, _ := s.Exited(); done {
		return true
	}
	return errors.Is(s.cmd.Process.Signal(syscall.Signal(0)), os.ErrProcessDone)
}

// Status describes the process's state for an error message, waiting a
// moment for a process that is dying to be reaped. killing says the caller
// is about to stop a server that is still running, which it then says
// instead of "still running".
func (s *Server) Status(killing bool) string {
	select {
	case <-s.done:
	case <-time.After(100 * time.Millisecond):
		if s.Gone() {
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

// LookAtPeak reads the server's peak RSS now. A caller that is about to
// make the server exit other than by Stop (closing a session closes its
// stdin) calls it first: an exited process has no peak left to read, and
// the kernel's figure at its exit cannot always be told from this
// process's own (PeakRSS).
func (s *Server) LookAtPeak() { s.watch.sample() }

// Stop closes stdin, gives the server closeGrace to exit, then kills its
// process group, and waits for it. It is safe to call twice.
func (s *Server) Stop() {
	s.watch.sample() // the last look before it is asked to exit
	if s.Stdin != nil {
		s.Stdin.Close()
	}
	select {
	case <-s.done:
	case <-time.After(closeGrace):
	}
	killGroup(s.cmd)
	<-s.done
	Release(s.cmd) // what the leader left behind
}
