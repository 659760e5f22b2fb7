// Package systemstest has test doubles of systems.System for the tests of
// systems built on other systems (hybrid's members, graph's base) and of
// the runner of cells (package matrix): a System with a fixed ranking that
// records how it was called, one that also takes the task's facts and
// reports a process peak, as an external system does, one that indexes
// whole files, and one whose query vectors can be measured, as dense's and
// static's can. It is imported by tests only.
package systemstest

import (
	"context"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
)

// Script answers every query with the first k of Hits and records the calls.
type Script struct {
	Hits     []systems.Hit
	Depths   []int // k of every Search call
	Indexed  int   // Index calls
	Closed   bool
	IndexErr error // what Index returns
	CloseErr error // what Close returns
}

// Index counts the call and returns IndexErr.
func (s *Script) Index(context.Context, *corpus.Corpus) error { s.Indexed++; return s.IndexErr }

// Search records k and returns the first k of Hits.
func (s *Script) Search(_ context.Context, _ string, k int) ([]systems.Hit, error) {
	s.Depths = append(s.Depths, k)
	return s.Hits[:min(k, len(s.Hits))], nil
}

// Close marks s closed and returns CloseErr.
func (s *Script) Close() error { s.Closed = true; return s.CloseErr }

// Factful is a Script that takes the task's facts (systems.QuerySearcher)
// and runs processes of its own (a PeakRSS method), as an
// external system does.
type Factful struct {
	Script
	Queries []systems.Query // every SearchQuery call
	Peak    uint64
	AtClose uint64 // added to Peak by Close: a server's peak is known once it is reaped
}

// SearchQuery records q and searches by its text.
func (f *Factful) SearchQuery(ctx context.Context, q systems.Query, k int) ([]systems.Hit, error) {
	f.Queries = append(f.Queries, q)
	return f.Search(ctx, q.Text, k)
}

// PeakRSS is Peak.
func (f *Factful) PeakRSS() uint64 { return f.Peak }

// Close adds AtClose to Peak and closes the Script.
func (f *Factful) Close() error { f.Peak += f.AtClose; return f.Script.Close() }

// Files is a Script that indexes whole files, as an external system does
// (a systems.FileIndexer), and keeps the corpus it was given.
type Files struct {
	Script
	Got *corpus.Corpus
}

// WholeFiles is true.
func (f *Files) WholeFiles() bool { return true }

// Index keeps c and counts the call.
func (f *Files) Index(ctx context.Context, c *corpus.Corpus) error {
	f.Got = c
	return f.Script.Index(ctx, c)
}

// Vectors is a Script whose query vectors have Dim dimensions (a
// systems.VectorDimer), as dense's and static's do. VectorDim counts its
// calls in Probes and records in IndexedAtProbe how many Index calls
// preceded the first; it returns ProbeErr when set.
type Vectors struct {
	Script
	Dim            int
	ProbeErr       error
	Probes         int
	IndexedAtProbe int
}

// VectorDim counts the call and returns Dim, or ProbeErr.
func (v *Vectors) VectorDim(context.Context) (int, error) {
	v.Probes++
	if v.Probes == 1 {
		v.IndexedAtProbe = v.Indexed
	}
	if v.ProbeErr != nil {
		return 0, v.ProbeErr
	}
	return v.Dim, nil
}
