package goldenfmt

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/resultfmt"
)

// envGoldenChild makes this test binary the child of
// TestKillDuringGoldenWrite: it writes half of a new golden file through the
// same atomic write Write uses, announces that with a marker file and
// blocks until it is killed.
const envGoldenChild = "RETRIEVALBENCH_GOLDEN_FAULT_CHILD"

type goldenChild struct {
	Path, Marker string
	Data         []byte
}

func TestGoldenFaultChild(t *testing.T) {
	raw := os.Getenv(envGoldenChild)
	if raw == "" {
		t.Skip("the child half of TestKillDuringGoldenWrite (runs only under it)")
	}
	var c goldenChild
	require.NoError(t, json.Unmarshal([]byte(raw), &c))
	err := atomicfile.Write(c.Path, func(w io.Writer) error {
		if _, err := w.Write(c.Data[:len(c.Data)/2]); err != nil {
			return err
		}
		if f, ok := w.(*os.File); ok {
			f.Sync()
		}
		require.NoError(t, os.WriteFile(c.Marker, nil, 0o644))
		select {} // killed here
	})
	t.Fatalf("the write returned: %v", err)
}

// TestKillDuringGoldenWrite kills a process (SIGKILL) in the middle of
// writing a golden file during -update: the old file must stay whole and
// readable, the half-written bytes must be only in a temporary file, and the
// next write must succeed and take the leftover away.
func TestKillDuringGoldenWrite(t *testing.T) {
	if os.Getenv(envGoldenChild) != "" {
		t.Skip("in the child")
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "ds", "all", "bm25", "porter.json")
	old := &Golden{Dataset: "ds", Split: "all", System: "bm25", Config: "porter", ConfigHash: "c1", DataHash: "d1",
		TasksRan: 2, Metrics: map[string]resultfmt.Stat{"mrr": {Mean: 0.5}}}
	require.NoError(t, Write(path, old))
	oldBytes, err := os.ReadFile(path)
	require.NoError(t, err)

	next := *old
	next.Metrics = map[string]resultfmt.Stat{"mrr": {Mean: 0.75}, "hit@1": {Mean: 0.5}}
	nextBytes, err := next.Marshal()
	require.NoError(t, err)
	marker := filepath.Join(t.TempDir(), "half-written")
	spec, err := json.Marshal(goldenChild{Path: path, Marker: marker, Data: nextBytes})
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run", "^TestGoldenFaultChild$", "-test.v")
	cmd.Env = append(os.Environ(), envGoldenChild+"="+string(spec))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		if cmd.ProcessState != nil {
			t.Fatalf("the child ended before the kill point:\n%s", out.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	_ = cmd.Wait()

	// The golden file is the old one, byte for byte, and reads.
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	if !bytes.Equal(got, oldBytes) {
		t.Fatalf("after the kill the golden file is\n%s\nwant the old one\n%s", got, oldBytes)
	}
	g, err := Read(path)
	require.NoError(t, err)
	if diff := cmp.Diff(old.Metrics, g.Metrics); diff != "" {
		t.Errorf("the old golden file reads back different (-want +got):\n%s", diff)
	}
	// The half is in a leftover temporary file, which is how the orphan
	// check finds an interrupted write.
	left, err := atomicfile.Leftovers(path)
	require.NoError(t, err)
	require.Len(t, left, 1, "one temporary file left by the killed write")
	half, err := os.ReadFile(left[0])
	require.NoError(t, err)
	if !bytes.Equal(half, nextBytes[:len(nextBytes)/2]) {
		t.Errorf("the leftover holds %d bytes, want the %d the child wrote", len(half), len(nextBytes)/2)
	}
	if !atomicfile.IsLeftover(filepath.Base(left[0])) {
		t.Errorf("IsLeftover(%s) = false", filepath.Base(left[0]))
	}

	// A young leftover may be a concurrent write: the next write keeps it.
	require.NoError(t, Write(path, &next))
	if l, _ := atomicfile.Leftovers(path); len(l) != 1 {
		t.Errorf("a leftover younger than a minute was removed: %v", l)
	}
	// An old one is the killed write's: the next write removes it.
	ago := time.Now().Add(-2 * time.Minute)
	require.NoError(t, os.Chtimes(left[0], ago, ago))
	require.NoError(t, Write(path, &next))
	if l, _ := atomicfile.Leftovers(path); len(l) != 0 {
		t.Errorf("leftovers after the next write: %v", l)
	}
	g, err = Read(path)
	require.NoError(t, err)
	if diff := cmp.Diff(next.Metrics, g.Metrics); diff != "" {
		t.Errorf("the next write (-want +got):\n%s", diff)
	}
	entries, err := os.ReadDir(filepath.Dir(path))
	require.NoError(t, err)
	if len(entries) != 1 {
		t.Errorf("the golden directory holds %d entries, want only porter.json", len(entries))
	}
}
