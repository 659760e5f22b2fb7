package embed

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// envTelemetryChild makes TestTelemetryChild do its work: it runs only as
// the child process of TestNoTelemetry.
const envTelemetryChild = "RETRIEVALBENCH_TELEMETRY_CHILD"

// TestTelemetryChild embeds one text with the first fetched manifest model.
func TestTelemetryChild(t *testing.T) {
	if os.Getenv(envTelemetryChild) != "1" {
		t.Skip("helper process of TestNoTelemetry")
	}
	cache := os.Getenv(testenv.EnvCache)
	for _, m := range manifest(t) {
		if models.Verify(cache, m) != nil {
			continue
		}
		e, err := New(DefaultConfig(m, cache))
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		if _, err := e.EmbedQueries(context.Background(), []string{"reverse a string"}); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Fatal("no fetched model")
}

// TestNoTelemetry runs an embedding in a child process with a fresh HOME
// and checks that ONNX Runtime leaves nothing there (its telemetry keeps a
// device id and an event database under ~/.cache/Microsoft unless turned
// off) and, under strace, that the process opens no socket.
func TestNoTelemetry(t *testing.T) {
	cache := mustHaveRuntime(t)
	var have bool
	for _, m := range manifest(t) {
		have = have || models.Verify(cache, m) == nil
	}
	if !have {
		testenv.Missing(t, testenv.Models, "no manifest model is fetched into "+cache)
	}
	child := func(t *testing.T, home string, wrap ...string) *exec.Cmd {
		args := append(wrap, os.Args[0], "-test.run=^TestTelemetryChild$", "-test.count=1")
		cmd := exec.CommandContext(t.Context(), args[0], args[1:]...)
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if k != "HOME" && !strings.HasPrefix(k, "XDG_") && k != testenv.EnvCache {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "HOME="+home, testenv.EnvCache+"="+cache, envTelemetryChild+"=1")
		return cmd
	}
	t.Run("home", func(t *testing.T) {
		home := t.TempDir()
		if out, err := child(t, home).CombinedOutput(); err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		var left []string
		filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
			if p != home {
				left = append(left, strings.TrimPrefix(p, home+"/"))
			}
			return err
		})
		if len(left) > 0 {
			t.Errorf("an embedding run left %d entries in a fresh HOME: %v", len(left), left)
		}
	})
	t.Run("sockets", func(t *testing.T) {
		strace, err := exec.LookPath("strace")
		if err != nil {
			t.Skipf("SKIP (strace missing): cannot watch for sockets: %v", err)
		}
		trace := filepath.Join(t.TempDir(), "trace")
		out, err := child(t, t.TempDir(), strace, "-f", "-qq", "-e", "trace=socket,connect,openat", "-o", trace).CombinedOutput()
		if err != nil {
			var ee *exec.ExitError
			if errors.As(err, &ee) && strings.Contains(string(out), "ptrace") {
				t.Skipf("SKIP (strace cannot trace here): %s", out)
			}
			t.Fatalf("child under strace: %v\n%s", err, out)
		}
		b, err := os.ReadFile(trace)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "model") || !strings.Contains(string(b), "openat(") {
			t.Fatalf("strace saw no openat of a model file: tracing does not work here\n%.2000s", b)
		}
		if calls := regexp.MustCompile(`(?m)^.*\b(socket|connect)\(.*$`).FindAllString(string(b), -1); len(calls) > 0 {
			t.Errorf("an embedding run opened sockets:\n%s", strings.Join(calls, "\n"))
		}
	})
}
