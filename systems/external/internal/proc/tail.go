package proc

import (
	"bytes"
	"fmt"
	"strings"
	"sync"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/redact"
)

// Tail keeps the last StderrTail bytes written to it, redacted. Redaction
// happens on whole lines (or on long stretches that keep an overlap as long
// as the longest secret), so a secret split across two writes is still
// found and no part of one ever enters the kept bytes.
type Tail struct {
	red     *redact.Redactor
	mu      sync.Mutex
	pending []byte // the unfinished line, not yet redacted
	kept    []byte // redacted; at most 2*StderrTail before trimming
	total   int64  // redacted bytes ever appended to kept
}

func NewTail(red *redact.Redactor) *Tail {
	if red == nil {
		red = redact.New(nil)
	}
	return &Tail{red: red}
}

func (t *Tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.pending = append(t.pending, p...)
	if i := bytes.LastIndexByte(t.pending, '\n'); i >= 0 {
		t.keep(t.pending[:i+1])
		t.pending = append(t.pending[:0], t.pending[i+1:]...)
	}
	if over := len(t.pending) - MaxLine; over > 0 {
		// A very long line: redact all but an overlap that could hold
		// the start of a secret, which stays pending.
		cut := len(t.pending) - max(t.red.Longest()-1, 0)
		t.keep(t.pending[:cut])
		t.pending = append(t.pending[:0], t.pending[cut:]...)
	}
	return len(p), nil
}

func (t *Tail) keep(b []byte) {
	r := t.red.String(string(b))
	t.kept = append(t.kept, r...)
	t.total += int64(len(r))
	if len(t.kept) > 2*StderrTail {
		t.kept = append(t.kept[:0], t.kept[len(t.kept)-StderrTail:]...)
	}
}

// String returns the last StderrTail bytes, redacted.
func (t *Tail) String() string { return t.Since(0) }

// Mark is a position in the stream, for since.
func (t *Tail) Mark() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.total
}

// Since is String limited to what was written after mark (the output of
// one query of a long-running server, not of the queries before it). An
// unfinished line pending at mark counts as written after it.
func (t *Tail) Since(mark int64) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	kept := t.kept
	if n := t.total - mark; n < int64(len(kept)) {
		kept = kept[len(kept)-int(max(n, 0)):]
	}
	s := string(kept) + t.red.String(string(t.pending))
	if len(s) > StderrTail {
		s = "…" + s[len(s)-StderrTail:]
	}
	return strings.TrimRight(s, "\n")
}

// WithTail appends the stderr tail to err, if there is one.
func WithTail(err error, t *Tail) error { return WithTailSince(err, t, 0) }

// WithTailSince appends what stderr received after mark to err.
func WithTailSince(err error, t *Tail, mark int64) error {
	if s := t.Since(mark); s != "" {
		return fmt.Errorf("%w\nstderr (last %d bytes):\n%s", err, StderrTail, s)
	}
	return err
}
