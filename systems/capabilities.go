package systems

import (
	"context"
	"time"
)

// The optional capabilities of a System: the interfaces a system may
// implement beyond System, each with the one accessor every caller asks
// through (the harness, the matrix runner, the systems that wrap others).
// A caller never type-asserts a capability itself, and a wrapper (hybrid,
// graph: systems/internal/members) forwards them through these accessors.

// QuerySearcher is implemented by systems that use the task facts of Query;
// the harness calls SearchQuery instead of Search when a system has it.
type QuerySearcher interface {
	SearchQuery(ctx context.Context, q Query, k int) ([]Hit, error)
}

// SearchQuery asks s for the k best hits for q: through SearchQuery when s
// is a QuerySearcher, else through Search with q's text. The harness and
// the systems that wrap others (hybrid, graph) ask this way.
func SearchQuery(ctx context.Context, s System, q Query, k int) ([]Hit, error) {
	if qs, ok := s.(QuerySearcher); ok {
		return qs.SearchQuery(ctx, q, k)
	}
	return s.Search(ctx, q.Text, k)
}

// FileIndexer is implemented by systems that index whole files rather than
// the harness's chunks (an external tool indexes a directory tree and chunks
// by its own rules): when WholeFiles reports true, Index receives the corpus
// as loaded, one doc per file, instead of chunked.
type FileIndexer interface {
	WholeFiles() bool
}

// WholeFiles reports whether s indexes whole files (a FileIndexer that says
// so).
func WholeFiles(s System) bool {
	fi, ok := s.(FileIndexer)
	return ok && fi.WholeFiles()
}

// Warner is implemented by systems that notice problems that do not fail a
// query: hits naming a file outside the corpus, the same hit twice in one
// answer, hits dropped or an answer cut short. Warnings returns those
// noticed since the previous call, each a sentence naming the system, and
// forgets them: the harness calls it after Index and after every search,
// so that each warning lands in the cell or on the task it arose in.
// Warnings are data for the reports, not log lines.
type Warner interface {
	Warnings() []string
}

// WarningsOf returns what s noticed since it was last asked (Warner), nil
// for a system that is not a Warner.
func WarningsOf(s System) []string {
	if w, ok := s.(Warner); ok {
		return w.Warnings()
	}
	return nil
}

// IndexReporter is implemented by systems that can reuse an index an
// earlier run built (an external tool's index directory). After Index,
// IndexReport says whether this Index call reused one and how long
// building it took, so that a cell shows a reused index as such, with its
// original build time, rather than as a fast indexer.
type IndexReporter interface {
	IndexReport() IndexReport
}

// IndexReportOf is how s came by its index in its last Index call
// (IndexReporter); the zero IndexReport (built now) for a system that is
// not an IndexReporter.
func IndexReportOf(s System) IndexReport {
	if ir, ok := s.(IndexReporter); ok {
		return ir.IndexReport()
	}
	return IndexReport{}
}

// ModelReporter is implemented by systems that embed with models (dense,
// and hybrid and graph through their members): what each model is, for
// the cell file and the leaderboard.
type ModelReporter interface {
	Models() []ModelInfo
}

// ModelsOf lists the models s embeds with (ModelReporter), nil for a system
// that reports none.
func ModelsOf(s System) []ModelInfo {
	if m, ok := s.(ModelReporter); ok {
		return m.Models()
	}
	return nil
}

// Versioner is implemented by systems that can name the versions of what
// they run on (SQLite, ONNX Runtime, a model checksum, an external tool's
// package); golden files record them.
type Versioner interface {
	Versions() map[string]string
}

// VersionsOf returns the versions s names (Versioner), nil for a system
// that names none.
func VersionsOf(s System) map[string]string {
	if v, ok := s.(Versioner); ok {
		return v.Versions()
	}
	return nil
}

// PeakRSSReporter is implemented by systems that run processes of their
// own (systems/external, and hybrid and graph over one): the largest peak
// resident set size, in bytes, of those processes, also after Close. A
// cell of such a system records that peak instead of the runner's own
// (package matrix).
type PeakRSSReporter interface {
	PeakRSS() uint64
}

// PeakRSSOf is the peak RSS, in bytes, of the processes s runs
// (PeakRSSReporter); 0 for a system that runs none.
func PeakRSSOf(s System) uint64 {
	if p, ok := s.(PeakRSSReporter); ok {
		return p.PeakRSS()
	}
	return 0
}

// VectorDimer is implemented by systems whose query vectors can be
// measured (dense, static, and hybrid and graph through their members):
// after Index, VectorDim embeds a probe query and returns the length of its
// vector, which a campaign checks against the model manifest's dimension
// (Spec.Dimension). A wrapper whose members have no vectors returns 0 and
// no error: nothing measured.
type VectorDimer interface {
	VectorDim(ctx context.Context) (int, error)
}

// VectorDimOf measures the length of s's query vectors (VectorDimer); ok is
// false for a system that is not a VectorDimer or measured none.
func VectorDimOf(ctx context.Context, s System) (dim int, ok bool, err error) {
	v, ok := s.(VectorDimer)
	if !ok {
		return 0, false, nil
	}
	dim, err = v.VectorDim(ctx)
	if dim == 0 && err == nil {
		return 0, false, nil // a wrapper without vectors
	}
	return dim, true, err
}

// SearchBounder is implemented by systems that bound each of their searches
// themselves (an external system: its config's timeout, and a server
// restart's start_timeout; hybrid and graph over one, through their
// members). The harness raises a cell's task timeout to that bound, so the
// config's own timeout is the one that applies.
type SearchBounder interface {
	SearchTimeout() time.Duration
}

// SearchTimeoutOf is the most one search of s may take by s's own bound
// (SearchBounder); 0 for a system that sets none.
func SearchTimeoutOf(s System) time.Duration {
	if b, ok := s.(SearchBounder); ok {
		return b.SearchTimeout()
	}
	return 0
}
