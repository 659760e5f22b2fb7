package dense

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed"
)

// Fault injection on the embedding cache (the vector store every dense run
// shares) with real processes: a child (this test binary re-executed with
// envStoreChild set) writes vectors the way Index does, in transactions of
// a group of docs; the parent kills it with SIGKILL once it has committed
// its first group (the child announces that with a marker file and keeps
// writing, so the kill lands while it writes), or runs two children on one
// store at once.

const envStoreChild = "RETRIEVALBENCH_STORE_FAULT_CHILD"

const (
	faultDim    = 8
	faultGroup  = 500 // docs per Put, as storeEvery groups them
	faultModel  = "fault-model"
	faultGroups = 100
)

type storeSpec struct {
	Path     string
	From, To int    // keys [From, To)
	Marker   string // touched after the first Put
	Start    string // wait for this file first ("" = start at once)
}

func faultKey(i int) embed.TextHash { return embed.HashText(fmt.Sprint("passage: text ", i)) }

func faultVec(i int) []float32 {
	v := make([]float32, faultDim)
	for j := range v {
		v[j] = float32(i*faultDim + j)
	}
	return v
}

// TestStoreChild is the child process.
func TestStoreChild(t *testing.T) {
	raw := os.Getenv(envStoreChild)
	if raw == "" {
		t.Skip("helper process of TestKillDuringStoreWrite and TestConcurrentStore")
	}
	var spec storeSpec
	require.NoError(t, json.Unmarshal([]byte(raw), &spec))
	for spec.Start != "" {
		if _, err := os.Stat(spec.Start); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	s, err := embed.OpenStore(spec.Path)
	require.NoError(t, err)
	defer s.Close()
	for lo := spec.From; lo < spec.To; lo += faultGroup {
		var keys []embed.TextHash
		var vecs [][]float32
		for i := lo; i < min(lo+faultGroup, spec.To); i++ {
			keys, vecs = append(keys, faultKey(i)), append(vecs, faultVec(i))
		}
		require.NoError(t, s.Put(faultModel, keys, vecs))
		if lo == spec.From && spec.Marker != "" {
			require.NoError(t, os.WriteFile(spec.Marker, nil, 0o644))
		}
	}
}

func storeChild(t *testing.T, spec storeSpec) *exec.Cmd {
	b, err := json.Marshal(spec)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^TestStoreChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envStoreChild+"="+string(b))
	return cmd
}

// checkStore reads keys [0, n) and returns which are present; every present
// vector must be the one written for its key.
func checkStore(t *testing.T, path string, n int) []int {
	t.Helper()
	db, err := sql.Open("sqlite3", "file:"+path)
	require.NoError(t, err)
	var ok string
	require.NoError(t, db.QueryRow("PRAGMA integrity_check").Scan(&ok))
	db.Close()
	if ok != "ok" {
		t.Fatalf("integrity_check: %s", ok)
	}
	s, err := embed.OpenStore(path)
	require.NoError(t, err)
	defer s.Close()
	keys := make([]embed.TextHash, n)
	for i := range keys {
		keys[i] = faultKey(i)
	}
	vecs, err := s.Get(faultModel, faultDim, keys)
	require.NoError(t, err)
	var present []int
	for i, v := range vecs {
		if v == nil {
			continue
		}
		present = append(present, i)
		if !slices.Equal(v, faultVec(i)) {
			t.Fatalf("key %d: stored %v, want %v", i, v, faultVec(i))
		}
	}
	return present
}

func TestKillDuringStoreWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 50,000 vectors in a child process (-short)")
	}
	dir := t.TempDir()
	path, marker := filepath.Join(dir, "dense", "m", "vectors.db"), filepath.Join(dir, "marker")
	n := faultGroups * faultGroup
	cmd := storeChild(t, storeSpec{Path: path, From: 0, To: n, Marker: marker})
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	for {
		if _, err := os.Stat(marker); err == nil {
			break
		}
		select {
		case err := <-done:
			t.Fatalf("child exited (%v) before its first commit", err)
		case <-time.After(5 * time.Millisecond):
		}
	}
	require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
	<-done
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
		t.Fatalf("child ended with %v, not by SIGKILL (it finished all %d groups first)", cmd.ProcessState, faultGroups)
	}
	wal, _ := os.Stat(path + "-wal")
	present := checkStore(t, path, n)
	t.Logf("killed after %d of %d vectors were committed (WAL %d bytes left)", len(present), n, sizeOf(wal))
	// Only whole groups: each Put of one group is committed or not at all.
	if len(present) == 0 || len(present)%faultGroup != 0 || len(present) == n {
		t.Fatalf("%d vectors present after the kill; want a positive multiple of %d below %d", len(present), faultGroup, n)
	}
	for i, k := range present {
		if k != i {
			t.Fatalf("vector %d present but %d missing: groups are written in order", k, i)
		}
	}
	// The next run (Index's logic): read, embed what is missing, store it.
	s, err := embed.OpenStore(path)
	require.NoError(t, err)
	var keys []embed.TextHash
	var vecs [][]float32
	for i := len(present); i < n; i++ {
		keys, vecs = append(keys, faultKey(i)), append(vecs, faultVec(i))
	}
	require.NoError(t, s.Put(faultModel, keys, vecs))
	require.NoError(t, s.Close())
	if got := checkStore(t, path, n); len(got) != n {
		t.Errorf("after the next run %d of %d vectors are stored", len(got), n)
	}
}

func sizeOf(fi os.FileInfo) int64 {
	if fi == nil {
		return 0
	}
	return fi.Size()
}

// TestConcurrentStore runs two processes that write overlapping key ranges
// into one store at the same moment; both must finish, and every vector be
// the right one.
func TestConcurrentStore(t *testing.T) {
	if testing.Short() {
		t.Skip("writes 2 × 60,000 vectors in child processes (-short)")
	}
	dir := t.TempDir()
	path, start := filepath.Join(dir, "vectors.db"), filepath.Join(dir, "start")
	ranges := [][2]int{{0, 60_000}, {30_000, 90_000}}
	var cmds []*exec.Cmd
	var outs []*strings.Builder
	for _, r := range ranges {
		cmd := storeChild(t, storeSpec{Path: path, From: r[0], To: r[1], Start: start})
		out := &strings.Builder{}
		cmd.Stdout, cmd.Stderr = out, out
		require.NoError(t, cmd.Start())
		cmds, outs = append(cmds, cmd), append(outs, out)
	}
	require.NoError(t, os.WriteFile(start, nil, 0o644))
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d (keys %v): %v\n%s", i, ranges[i], err, outs[i])
		}
	}
	if got := checkStore(t, path, 90_000); len(got) != 90_000 {
		t.Errorf("%d of 90,000 vectors stored after two concurrent writers", len(got))
	}
}
