// Package mlflowtest starts a real MLflow tracking server for a test: the
// pinned release `make mlflow` installs (testenv.MLflowPath), on 127.0.0.1
// at a free port, with a SQLite backend store and proxied artifacts in the
// test's temp dir. The server's process group is stopped when the test
// ends.
package mlflowtest

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// StartTimeout bounds how long the server may take to answer /health.
const StartTimeout = 3 * time.Minute

// Start starts a server and returns its tracking URI; a missing install
// stops t (testenv.MustHaveMLflow).
func Start(t *testing.T) string {
	t.Helper()
	bin := testenv.MustHaveMLflow(t)
	dir := t.TempDir()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	uri := fmt.Sprintf("http://127.0.0.1:%d", port)
	cmd := exec.Command(bin, "server", "--host", "127.0.0.1", "--port", fmt.Sprint(port), "--workers", "1",
		"--backend-store-uri", "sqlite:///"+filepath.Join(dir, "mlflow.db"),
		"--artifacts-destination", filepath.Join(dir, "artifacts"))
	cmd.Dir = dir
	// A clean environment: no tracking URI, credentials or proxies of the
	// caller's; no telemetry.
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir, "LANG=C.UTF-8",
		"MLFLOW_DISABLE_TELEMETRY=true", "DO_NOT_TRACK=true",
		// No background job runner: the tests log runs and artifacts only,
		// and its worker processes double the start-up time.
		"MLFLOW_SERVER_ENABLE_JOB_EXECUTION=false"}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	logb := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = logb, logb
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		// Workers that outlived the leader still share its group.
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	})
	ctx, cancel := context.WithTimeout(t.Context(), StartTimeout)
	defer cancel()
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, uri+"/health", nil)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				t.Logf("mlflow %s server at %s (started in %v)", testenv.MLflowVersion, uri, time.Since(start).Round(time.Millisecond))
				return uri
			}
		}
		select {
		case err := <-exited:
			t.Fatalf("mlflow server exited before answering: %v\n%s", err, tail(logb.String()))
		case <-ctx.Done():
			t.Fatalf("mlflow server did not answer %s/health within %v\n%s", uri, StartTimeout, tail(logb.String()))
		case <-time.After(250 * time.Millisecond):
		}
	}
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func tail(s string) string {
	if len(s) > 4000 {
		s = "…" + s[len(s)-4000:]
	}
	return strings.TrimSpace(s)
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
