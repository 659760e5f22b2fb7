package external

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestWorkLockChild holds the lock of $WORKLOCK_DIR until its stdin
// closes; it is TestWorkLockAcrossProcesses's other process.
func TestWorkLockChild(t *testing.T) {
	work := os.Getenv("WORKLOCK_DIR")
	if work == "" {
		t.Skip("the other process of TestWorkLockAcrossProcesses (WORKLOCK_DIR unset)")
	}
	release, err := lockWork(context.Background(), work, t.Logf)
	require.NoError(t, err)
	os.Stdout.WriteString("locked\n")
	bufio.NewReader(os.Stdin).ReadString('\n')
	release()
}

// TestWorkLockAcrossProcesses: while another process holds a work
// directory, lockWork waits (saying so once) or gives up with the context;
// once the other releases it, lockWork returns. Within this process two
// holds share the lock without waiting.
func TestWorkLockAcrossProcesses(t *testing.T) {
	work := filepath.Join(t.TempDir(), "work", "dir")
	child := exec.Command(os.Args[0], "-test.run=^TestWorkLockChild$")
	child.Env = append(os.Environ(), "WORKLOCK_DIR="+work)
	stdin, err := child.StdinPipe()
	require.NoError(t, err)
	stdout, err := child.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, child.Start())
	defer child.Wait()
	defer stdin.Close()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "locked\n", line)

	// Held elsewhere: a context that ends first ends the wait.
	ctx, cancel := context.WithTimeout(t.Context(), 3*lockPoll)
	defer cancel()
	var mu sync.Mutex
	var logs []string
	logf := func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logs = append(logs, format)
	}
	_, err = lockWork(ctx, work, logf)
	require.ErrorContains(t, err, "waiting for another process that uses "+work)
	require.ErrorIs(t, err, context.DeadlineExceeded)

	// Released elsewhere: the wait ends with the lock.
	got := make(chan error, 1)
	var release func()
	go func() {
		var err error
		release, err = lockWork(t.Context(), work, logf)
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("lockWork returned (%v) while the other process holds the lock", err)
	case <-time.After(3 * lockPoll):
	}
	stdin.Close() // the child releases and exits
	require.NoError(t, <-got)
	mu.Lock()
	waited := 0
	for _, l := range logs {
		if strings.HasPrefix(l, "waiting for another process") {
			waited++
		}
	}
	mu.Unlock()
	require.Equal(t, 2, waited, "each wait says so once: %q", logs)

	// A second hold in this process does not wait, and the lock stays
	// until both are released.
	second, err := lockWork(t.Context(), work, t.Logf)
	require.NoError(t, err)
	release()
	release() // twice is once
	f, err := os.OpenFile(work+".lock", os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	ok, err := tryLock(f)
	require.NoError(t, err)
	require.False(t, ok, "one hold is left: the lock must still be held")
	second()
	ok, err = tryLock(f)
	require.NoError(t, err)
	require.True(t, ok, "every hold released: the lock is free")
}
