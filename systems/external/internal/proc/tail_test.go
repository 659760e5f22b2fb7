package proc

import (
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/systems/external/internal/redact"
)

func TestTailRedacts(t *testing.T) {
	const secret = "hunter2-long-secret"
	tl := NewTail(redact.New([]string{secret}))
	// The secret split across writes, on a finished and an unfinished line.
	tl.Write([]byte("key=hunter2-lo"))
	tl.Write([]byte("ng-secret ok\nagain hunter"))
	tl.Write([]byte("2-long-secret"))
	if got, want := tl.String(), "key=*** ok\nagain ***"; got != want {
		t.Errorf("tail = %q, want %q", got, want)
	}
	// A line longer than MaxLine with the secret across the flush point.
	tl = NewTail(redact.New([]string{secret}))
	tl.Write([]byte(strings.Repeat("x", MaxLine-5) + "hunter2"))
	tl.Write([]byte("-long-secret" + strings.Repeat("y", 100) + "\n"))
	if s := tl.String(); strings.Contains(s, "hunter2") || !strings.Contains(s, "x***y") {
		t.Errorf("long line: tail %q… holds part of the secret or lost the redaction", s[len(s)-120:])
	}
	if n := len(tl.String()); n > StderrTail+len("…") {
		t.Errorf("tail holds %d bytes, want at most %d", n, StderrTail)
	}
}
