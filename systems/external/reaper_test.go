package external

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestNoChildOutlivesTheBench ends a program that runs external systems
// (testdata/orphan, a test binary) in each way a benchmark ends badly —
// Ctrl-C (SIGINT), SIGTERM, SIGKILL, `go test -timeout`'s panic, and
// SIGTERM to its parent (the go command, as timeout and CI runners send
// it: the test binary is orphaned) — and checks by pid that none of the
// processes it started survives: its MCP server and that server's
// grandchild, its HTTP server, the worker that holds the server's stderr
// and a worker that called setsid, and a hung search command. SIGINT and
// SIGTERM still end the program by the signal (the handler raises it
// again after killing the process groups).
func TestNoChildOutlivesTheBench(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a test binary four times")
	}
	bin := fakepeer(t)
	dir := t.TempDir()
	helper := filepath.Join(dir, "orphan.test")
	if out, err := exec.Command("go", "test", "-c", "-o", helper, "./testdata/orphan").CombinedOutput(); err != nil {
		t.Fatalf("go test -c ./testdata/orphan: %v\n%s", err, out)
	}
	peer, err := os.ReadFile(bin)
	require.NoError(t, err)
	for _, tc := range []struct {
		name     string
		timeout  string
		sig      syscall.Signal // 0: the test timeout ends it
		noReaper bool           // kill the reaper first: only the parent-death signal is left
		toParent bool           // the helper runs under a shell (the go command's place); sig goes to the shell
	}{
		{"SIGINT", "2m", syscall.SIGINT, false, false},
		{"SIGTERM", "2m", syscall.SIGTERM, false, false},
		{"SIGKILL", "2m", syscall.SIGKILL, false, false},
		{"test-timeout-panic", "8s", 0, false, false},
		{"SIGKILL-without-reaper", "2m", syscall.SIGKILL, true, false},
		{"SIGTERM-to-the-parent", "2m", syscall.SIGTERM, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// A private copy of fakepeer: what runs it afterwards is ours.
			own := filepath.Join(t.TempDir(), "fakepeer-"+tc.name)
			require.NoError(t, os.WriteFile(own, peer, 0o755))
			ready := filepath.Join(t.TempDir(), "ready")
			cmd := exec.Command(helper, "-test.run=TestHold", "-test.v", "-test.timeout="+tc.timeout)
			if tc.toParent {
				// sh forks the helper and waits (no exec: a command follows),
				// as go test runs its test binary.
				cmd = exec.Command("/bin/sh", "-c", `"$@"; exit 0`, "sh", helper, "-test.run=TestHold", "-test.v", "-test.timeout="+tc.timeout)
			}
			pidfile := filepath.Join(t.TempDir(), "pids")
			cmd.Env = append(os.Environ(), "FAKEPEER="+own, "ORPHAN_READY="+ready, "ORPHAN_CACHE="+t.TempDir(), "FAKEPEER_PIDFILE="+pidfile)
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			require.NoError(t, cmd.Start())
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			deadline := time.After(60 * time.Second)
		wait:
			for {
				select {
				case err := <-exited:
					t.Fatalf("the helper ended before it was ready: %v\n%s", err, out.String())
				case <-deadline:
					cmd.Process.Kill()
					t.Fatalf("the helper was not ready within 60s\n%s", out.String())
				case <-time.After(50 * time.Millisecond):
					if _, err := os.Stat(ready); err == nil {
						break wait
					}
				}
			}
			// MCP server + grandchild, HTTP server + worker, the hung search
			// (which may take a moment to start on a loaded machine).
			var before []int
			for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
				if before = scan(own); len(before) >= 6 {
					break
				}
			}
			if len(before) != 6 {
				t.Errorf("%d processes of the helper's fakepeer running before the kill (%s), want 6", len(before), cmdlines(before))
			}
			killed := time.Now()
			if tc.noReaper {
				r := reaperOf(cmd.Process.Pid)
				require.NotZero(t, r, "the helper's reaper process")
				require.NoError(t, syscall.Kill(r, syscall.SIGKILL))
				waitDead(t, "the reaper", r)
			}
			if tc.sig != 0 {
				require.NoError(t, cmd.Process.Signal(tc.sig))
			}
			var werr error
			select {
			case werr = <-exited:
			case <-time.After(60 * time.Second):
				cmd.Process.Kill()
				t.Fatalf("the helper did not end within 60s\n%s", out.String())
			}
			var ee *exec.ExitError
			require.True(t, errors.As(werr, &ee), "helper: %v\n%s", werr, out.String())
			ws := ee.Sys().(syscall.WaitStatus)
			if tc.sig != 0 && (!ws.Signaled() || ws.Signal() != tc.sig) {
				t.Errorf("the helper ended with %v, want it killed by %v (the handler raises the signal again)", werr, tc.sig)
			}
			if tc.sig == 0 && !strings.Contains(out.String(), "panic: test timed out after 8s") {
				t.Errorf("the helper did not end by the test timeout panic:\n%s", out.String())
			}
			if tc.toParent {
				// The shell's output pipe stays open until the helper, which
				// shares it, has ended too: it ended within seconds, not at
				// its 2 min -test.timeout, saying why.
				if el := time.Since(killed); el > 30*time.Second {
					t.Errorf("the orphaned helper ended %v after its parent, want within seconds", el)
				}
				if !strings.Contains(out.String(), "the parent process (pid") {
					t.Errorf("the orphaned helper did not say its parent is gone:\n%s", out.String())
				}
			}
			if tc.noReaper {
				// The parent-death signal kills the direct children (the
				// servers, the search command); their own children — the
				// grandchild and the worker — are the reaper's to kill, and
				// without it survive: removed here.
				grand := append(pids(t, pidfile)["child"], pids(t, pidfile)["setsid"]...)
				require.Len(t, grand, 3, "the MCP server's grandchild and the HTTP server's two workers")
				for _, pid := range running(own) {
					if !slices.Contains(grand, pid) {
						t.Errorf("a direct child (pid %d) outlived the helper without its reaper: the parent-death signal did not fire\n%s", pid, cmdlines([]int{pid}))
					}
				}
				for _, pid := range grand {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			if left := running(own); len(left) > 0 {
				t.Errorf("processes outlived the helper ended by %s: %s (of %v)\n%s", tc.name, cmdlines(left), before, out.String())
				for _, pid := range left {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
		})
	}
}

// cmdlines describes processes for a message: pid and argv.
func cmdlines(pids []int) string {
	var b strings.Builder
	for _, pid := range pids {
		argv, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "cmdline"))
		fmt.Fprintf(&b, "\n  %d: %s", pid, strings.ReplaceAll(strings.TrimRight(string(argv), "\x00"), "\x00", " "))
	}
	return b.String()
}

// scan returns the pids of the live processes running the program bin now.
func scan(bin string) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if exe, err := os.Readlink(filepath.Join("/proc", e.Name(), "exe")); err == nil && exe == bin && alive(pid) {
			out = append(out, pid)
		}
	}
	return out
}

// reaperOf returns the pid of the reaper process parent started (0: none).
func reaperOf(parent int) int {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		argv, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		// pid (comm) state ppid …
		i := bytes.LastIndexByte(stat, ')')
		if i < 0 || !bytes.Contains(argv, []byte("pgs=")) {
			continue
		}
		if f := strings.Fields(string(stat[i+1:])); len(f) > 1 && f[1] == strconv.Itoa(parent) {
			return pid
		}
	}
	return 0
}
