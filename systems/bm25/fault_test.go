package bm25

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Fault injection with real processes: a child process (this test binary
// re-executed with envFaultChild set) builds an index in a given cache
// directory; the parent kills it with SIGKILL at a chosen point — the child
// announces the point by creating a marker file from its progress log and
// then blocks, so no timing is involved — and checks what the next run
// finds.

const envFaultChild = "RETRIEVALBENCH_BM25_FAULT_CHILD"

// faultQueries are searched by every run; their results must not depend on
// whether the index was built after a crash, by a concurrent process, or
// fresh.
var faultQueries = []string{"alpha beta", "gamma", "delta epsilon zeta", "w17 w42", "doc 01234"}

// faultCorpus has more docs than progressDocs, so a progress line comes in
// the middle of the insert transaction.
func faultCorpus() *corpus.Corpus {
	rng := rand.New(rand.NewPCG(11, 12))
	vocab := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
	c := &corpus.Corpus{ID: "fault"}
	for i := range 2*progressDocs + 500 {
		var b strings.Builder
		for range 12 {
			if rng.IntN(4) == 0 {
				b.WriteString(vocab[rng.IntN(len(vocab))])
			} else {
				fmt.Fprintf(&b, "w%d", rng.IntN(200))
			}
			b.WriteByte(' ')
		}
		id := fmt.Sprintf("doc%05d", i)
		c.Docs = append(c.Docs, corpus.Doc{ID: id, Path: id + ".txt", Kind: "file", Text: b.String()})
	}
	return c
}

type faultSpec struct {
	Cache  string // cache root
	StopAt string // block (after touching Marker) at the first log line containing this; "" = run through
	Marker string
	Start  string // wait for this file before indexing ("" = start at once)
	Out    string // write the search results here as JSON
}

func searchAll(t testing.TB, x *Index) map[string][]string {
	res := map[string][]string{}
	for _, q := range faultQueries {
		hits, err := x.Search(context.Background(), q, 10)
		require.NoError(t, err)
		res[q] = ids(hits)
	}
	return res
}

// TestFaultChild is the child process.
func TestFaultChild(t *testing.T) {
	raw := os.Getenv(envFaultChild)
	if raw == "" {
		t.Skip("helper process of TestKillDuringBuild and TestConcurrentBuild")
	}
	var spec faultSpec
	require.NoError(t, json.Unmarshal([]byte(raw), &spec))
	opt := systems.Options{CacheDir: spec.Cache, Logf: func(format string, args ...any) {
		if spec.StopAt != "" && strings.Contains(fmt.Sprintf(format, args...), spec.StopAt) {
			if err := os.WriteFile(spec.Marker, nil, 0o644); err != nil {
				panic(err)
			}
			select {} // wait for SIGKILL
		}
	}}
	x, err := New(DefaultConfig(), opt)
	require.NoError(t, err)
	defer x.Close()
	for spec.Start != "" {
		if _, err := os.Stat(spec.Start); err == nil {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	require.NoError(t, x.Index(context.Background(), faultCorpus()))
	b, err := json.Marshal(map[string]any{"reused": x.Stats().Reused, "results": searchAll(t, x)})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(spec.Out, b, 0o644))
}

func faultChild(t *testing.T, spec faultSpec) *exec.Cmd {
	b, err := json.Marshal(spec)
	require.NoError(t, err)
	cmd := exec.Command(os.Args[0], "-test.run=^TestFaultChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envFaultChild+"="+string(b))
	return cmd
}

// reference searches a fresh index built in-process in its own cache.
func reference(t *testing.T) map[string][]string {
	x := newIndex(t, DefaultConfig(), systems.Options{CacheDir: t.TempDir()}, faultCorpus())
	return searchAll(t, x)
}

func waitFile(t *testing.T, p string, cmd *exec.Cmd, done <-chan error) {
	t.Helper()
	for {
		if _, err := os.Stat(p); err == nil {
			return
		}
		select {
		case err := <-done:
			t.Fatalf("child exited (%v) before reaching %s", err, filepath.Base(p))
		case <-time.After(10 * time.Millisecond):
		case <-t.Context().Done():
			cmd.Process.Kill()
			t.Fatal("timed out")
		}
	}
}

func TestKillDuringBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three 10,500-doc indexes in child processes (-short)")
	}
	want := reference(t)
	for _, tc := range []struct{ name, stopAt, reason string }{
		{"mid-insert", fmt.Sprintf(": %d/", progressDocs), "inside the insert transaction of the temporary file"},
		{"before-rename", ": indexed ", "the temporary file is complete and optimized but not yet renamed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			cache, marker := filepath.Join(dir, "cache"), filepath.Join(dir, "marker")
			cmd := faultChild(t, faultSpec{Cache: cache, StopAt: tc.stopAt, Marker: marker, Out: filepath.Join(dir, "out")})
			require.NoError(t, cmd.Start())
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			waitFile(t, marker, cmd, done)
			require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
			err := <-done
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("child ended with %v, not by SIGKILL", err)
			}

			// What the killed build left: temporary files only, never index.db.
			idx, _ := filepath.Glob(filepath.Join(cache, "bm25", "*", "index.db"))
			temps, _ := filepath.Glob(filepath.Join(cache, "bm25", "*", tempPattern))
			if len(idx) != 0 || len(temps) != 1 {
				t.Fatalf("after SIGKILL %s: index files %v, temporary files %v; want none and one", tc.reason, idx, temps)
			}

			// The next run builds a new index and finds what a fresh one finds.
			var logs []string
			x := newIndex(t, DefaultConfig(), systems.Options{CacheDir: cache, Logf: func(f string, a ...any) {
				logs = append(logs, fmt.Sprintf(f, a...))
			}}, faultCorpus())
			if x.Stats().Reused {
				t.Errorf("the run after the kill reused an index; want a rebuild")
			}
			if diff := cmp.Diff(want, searchAll(t, x)); diff != "" {
				t.Errorf("results after a killed build (-fresh +rebuilt):\n%s", diff)
			}
			// And the run after that reuses it.
			y := newIndex(t, DefaultConfig(), systems.Options{CacheDir: cache}, faultCorpus())
			if !y.Stats().Reused {
				t.Errorf("the rebuilt index was not reused by the next run")
			}
		})
	}
}

// TestConcurrentBuild runs two processes that build the same index in one
// cache directory at the same moment: both must finish with the results a
// fresh index gives.
func TestConcurrentBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("builds three 10,500-doc indexes (-short)")
	}
	want := reference(t)
	dir := t.TempDir()
	cache, start := filepath.Join(dir, "cache"), filepath.Join(dir, "start")
	var cmds []*exec.Cmd
	for i := range 2 {
		cmd := faultChild(t, faultSpec{Cache: cache, Start: start, Out: filepath.Join(dir, fmt.Sprint("out", i))})
		var out strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &out
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
		t.Cleanup(func() {
			if t.Failed() {
				t.Logf("child %d output:\n%s", i, out.String())
			}
		})
	}
	require.NoError(t, os.WriteFile(start, nil, 0o644))
	for i, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Errorf("child %d: %v", i, err)
		}
	}
	for i := range cmds {
		b, err := os.ReadFile(filepath.Join(dir, fmt.Sprint("out", i)))
		require.NoError(t, err)
		var got struct{ Results map[string][]string }
		require.NoError(t, json.Unmarshal(b, &got))
		if diff := cmp.Diff(want, got.Results); diff != "" {
			t.Errorf("child %d results (-fresh +concurrent):\n%s", i, diff)
		}
	}
	idx, _ := filepath.Glob(filepath.Join(cache, "bm25", "*", "index.db"))
	if len(idx) != 1 {
		t.Errorf("index files after two concurrent builds: %v, want one", idx)
	}
}
