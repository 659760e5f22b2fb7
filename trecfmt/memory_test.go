package trecfmt

import (
	"bytes"
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
