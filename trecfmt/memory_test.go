package trecfmt

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/synth"
)

// synthRun returns a generated run of queries × retrieved lines.
func synthRun(t *testing.T, queries, retrieved int) []byte {
	t.Helper()
	cfg := synth.DefaultConfig()
	cfg.Queries, cfg.Retrieved = queries, retrieved
	var qrels, run bytes.Buffer
	require.NoError(t, synth.Write(&qrels, &run, cfg))
	return run.Bytes()
}

// TestGroupReaderAllocations checks that streaming a run allocates about one
// string per query, not garbage per line: query ids and tags are interned
// and a query's document ids share one allocation.
func TestGroupReaderAllocations(t *testing.T) {
	const queries, retrieved = 200, 500
	run := synthRun(t, queries, retrieved)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	g := NewGroupReader(bytes.NewReader(run), "run")
	n := 0
	for g.Scan() {
		n += len(g.Results())
	}
	require.NoError(t, g.Err())
	runtime.ReadMemStats(&after)
	require.Equal(t, queries*retrieved, n)
	mallocs := after.Mallocs - before.Mallocs
	perLine := float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
	t.Logf("%d lines: %d allocations, %.1f bytes allocated per line", n, mallocs, perLine)
	if mallocs > uint64(queries*10+1000) {
		t.Errorf("%d allocations for %d queries: want O(queries), not O(lines)", mallocs, queries)
	}
	// The document ids themselves ("doc1234567", 10 bytes) must be stored;
	// reused buffers amortize to nothing.
	if perLine > 16 {
		t.Errorf("%.1f bytes allocated per line, want ≤ 16", perLine)
	}
}

// TestReadRunMemory checks that a run read whole holds little more than its
// parsed data: per line a Result (24 bytes) and the document id.
func TestReadRunMemory(t *testing.T) {
	const queries, retrieved = 100, 1000
	data := synthRun(t, queries, retrieved)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	run, _, err := ReadRun(bytes.NewReader(data), "run", false)
	require.NoError(t, err)
	runtime.GC()
	runtime.ReadMemStats(&after)
	parsed := 0
	for _, rs := range run {
		for _, r := range rs {
			parsed += 24 + len(r.DocID)
		}
	}
	live := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	t.Logf("file %d bytes, parsed data %d bytes, live heap after reading %.0f bytes (%.2f×)",
		len(data), parsed, live, live/float64(parsed))
	if live > 3*float64(parsed) {
		t.Errorf("live heap %.0f bytes is more than 3× the parsed data (%d bytes)", live, parsed)
	}
	runtime.KeepAlive(run)
	runtime.KeepAlive(data)
}

// TestReadJudgmentsFileMemory checks that ReadJudgmentsFile allocates about
// the judgments it returns (ids, ends and grades, sized once from the first
// block) and its few blocks, not the file whole nor a second copy of the
// judgments: on 300,000 judgments in blocks of 64 KiB, at most 1.1 times
// the parsed data plus 1 MiB (reading the file whole would add 1.1 times
// the parsed data, a copy of the parts 1 time). The lines are of one
// length, so that the first block tells the size of the rest.
func TestReadJudgmentsFileMemory(t *testing.T) {
	old := qrelsBlock
	qrelsBlock = 64 << 10
	t.Cleanup(func() { qrelsBlock = old })
	var qrels bytes.Buffer
	for k := range 300_000 {
		fmt.Fprintf(&qrels, "q%04d 0 doc%07d %d\n", k/500, k*7%1_000_003, k%4)
	}
	path := filepath.Join(t.TempDir(), "qrels.txt")
	require.NoError(t, os.WriteFile(path, qrels.Bytes(), 0o644))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	j, err := ReadJudgmentsFile(path)
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	require.Len(t, j.Ends, 300_000)
	require.Equal(t, "doc0000007", j.Doc(1))
	parsed := len(j.IDs) + 8*len(j.Ends)
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("file %d bytes, parsed %d bytes, allocated %d bytes (%.2f×)", qrels.Len(), parsed, alloc, float64(alloc)/float64(parsed))
	if limit := uint64(1.1*float64(parsed)) + 1<<20; alloc > limit {
		t.Errorf("allocated %d bytes reading %d bytes of judgments, want ≤ %d", alloc, parsed, limit)
	}
}
