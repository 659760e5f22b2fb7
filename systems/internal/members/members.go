// Package members runs the systems a wrapper runs inside itself — a
// hybrid's members, a graph's base — over one corpus at a time: each is
// given the corpus it reads (locate.Input), the location hits it returns
// are resolved to the chunks of that corpus (locate.Chunks, counted in a
// Tally logged at the next Index or Close), and what the wrapper reports
// about them is gathered here, also after Close: every optional capability
// of systems/capabilities.go that describes a member (warnings, index
// report, models, versions, peak RSS, vector dimension, search bound), which a wrapper
// forwards by embedding Forward. The other two are the wrapper's own: it
// answers queries itself (QuerySearcher) and indexes chunks, giving whole
// files to a member that wants them (FileIndexer).
package members

import (
	"context"
	"maps"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/locate"
)

// Set is the systems of one wrapper, in order. It is used by one goroutine
// at a time (systems.System).
type Set struct {
	systems []systems.System
	who     []string             // per member, who its tally's log line names
	Logf    func(string, ...any) // nil: no logging

	corpus  *corpus.Corpus  // the last indexed corpus
	chunks  *locate.Chunks  // its chunks by path, built for the first location hit
	tallies []locate.Tally  // location hits per member, logged at the next Index or Close
	peak    uint64          // the members' PeakRSS, kept when Close lets them go
	built   []time.Duration // per member, how long its last Index call took
}

// New returns an empty Set that logs with logf (nil: no logging).
func New(logf func(string, ...any)) *Set { return &Set{Logf: logf} }

// Add appends sys; who names it in log lines ("hybrid NAME: member M").
func (s *Set) Add(sys systems.System, who string) {
	s.systems = append(s.systems, sys)
	s.who = append(s.who, who)
}

// Len is the number of members.
func (s *Set) Len() int { return len(s.systems) }

// Index indexes c with every member in turn: c's whole files for a member
// that indexes whole files (systems.FileIndexer, an external system), c
// itself for the others. On error it returns the failing member's index.
func (s *Set) Index(ctx context.Context, c *corpus.Corpus) (int, error) {
	s.logTallies()
	s.corpus, s.chunks, s.tallies = c, nil, make([]locate.Tally, len(s.systems))
	s.built = make([]time.Duration, len(s.systems))
	for i, sys := range s.systems {
		start := time.Now()
		if err := sys.Index(ctx, locate.Input(sys, c)); err != nil {
			return i, err
		}
		s.built[i] = time.Since(start)
	}
	return 0, nil
}

// Search asks member i for k hits of q (systems.SearchQuery: the task's
// facts to a member that uses them, the text to the others).
func (s *Set) Search(ctx context.Context, i int, q systems.Query, k int) ([]systems.Hit, error) {
	return systems.SearchQuery(ctx, s.systems[i], q, k)
}

// Resolve turns the location hits of member i (an external system's) into
// the chunks of the corpus indexed last they point at (package locate); other
// hits are returned as they are. ok is false for location hits before Index.
func (s *Set) Resolve(i int, hits []systems.Hit) (out []systems.Hit, ok bool) {
	if !locate.Located(hits) {
		return hits, true
	}
	if s.corpus == nil {
		return nil, false
	}
	if s.chunks == nil {
		s.chunks = locate.New(s.corpus)
	}
	return s.chunks.Hits(hits, &s.tallies[i]), true
}

// Close closes every member and returns each one's error (nil where it
// closed cleanly) by member index; a closed Set has no members.
func (s *Set) Close() []error {
	s.logTallies()
	errs := make([]error, len(s.systems))
	for i, sys := range s.systems {
		errs[i] = sys.Close()
	}
	// After Close: a member's server process is measured when it is reaped.
	s.peak = s.PeakRSS()
	s.systems = nil
	return errs
}

// logTallies logs what became of each member's location hits over the
// corpus indexed last.
func (s *Set) logTallies() {
	if s.corpus == nil {
		return
	}
	for i := range s.tallies {
		s.tallies[i].Log(s.Logf, s.who[i], s.corpus.ID)
	}
}

// PeakRSS is the largest peak resident set size, in bytes, of the processes
// the members run (an external member's: systems.PeakRSSOf), also after
// Close; 0 when no member runs any.
func (s *Set) PeakRSS() uint64 {
	peak := s.peak
	for _, sys := range s.systems {
		peak = max(peak, systems.PeakRSSOf(sys))
	}
	return peak
}

// Models lists the models the members embed with, in member order.
func (s *Set) Models() []systems.ModelInfo {
	var out []systems.ModelInfo
	for _, sys := range s.systems {
		out = append(out, systems.ModelsOf(sys)...)
	}
	return out
}

// Versions merges what the members report about the versions they run on
// (SQLite, ONNX Runtime, models, an external tool's), for golden files; nil
// when none reports any.
func (s *Set) Versions() map[string]string {
	out := map[string]string{}
	for _, sys := range s.systems {
		maps.Copy(out, systems.VersionsOf(sys))
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// Warnings returns what each member noticed since it was last asked
// (systems.WarningsOf), in member order, each prefixed with who the member
// is ("hybrid NAME: member M: …"); nil when none noticed anything.
func (s *Set) Warnings() []string {
	var out []string
	for i, sys := range s.systems {
		for _, w := range systems.WarningsOf(sys) {
			out = append(out, s.who[i]+": "+w)
		}
	}
	return out
}

// IndexReport is how the members came by their indexes in the last Index
// (systems.IndexReportOf): Reused when some member reused one an earlier
// run built, and then BuildTime is what building every member's index
// took — a reusing member's reported build time, the others' time in this
// Index. The zero report (built now) when no member reused one.
func (s *Set) IndexReport() systems.IndexReport {
	var rep systems.IndexReport
	for i, sys := range s.systems {
		r := systems.IndexReportOf(sys)
		if r.Reused {
			rep.Reused = true
			rep.BuildTime += r.BuildTime
		} else if i < len(s.built) {
			rep.BuildTime += s.built[i]
		}
	}
	if !rep.Reused {
		return systems.IndexReport{}
	}
	return rep
}

// VectorDim measures the query vectors of the first member that has any
// (systems.VectorDimOf: a hybrid's dense member, a graph's dense base);
// 0 and no error when no member has vectors.
func (s *Set) VectorDim(ctx context.Context) (int, error) {
	for _, sys := range s.systems {
		if dim, ok, err := systems.VectorDimOf(ctx, sys); ok {
			return dim, err
		}
	}
	return 0, nil
}

// SearchTimeout is the sum of the members' own bounds on one search
// (systems.SearchTimeoutOf): a wrapper asks its members one after another,
// so one search of it may take that long. 0 when no member sets a bound.
func (s *Set) SearchTimeout() time.Duration {
	var sum time.Duration
	for _, sys := range s.systems {
		sum += systems.SearchTimeoutOf(sys)
	}
	return sum
}

// Forward is what a wrapper embeds to forward every capability of its
// members that describes them (see the package doc): the one place a
// wrapper's record learns what its members noticed and cost.
type Forward struct{ set *Set }

// Forward returns the forwarding of s's capabilities, for the wrapper to
// embed.
func (s *Set) Forward() Forward { return Forward{s} }

// Warnings is Set.Warnings (systems.Warner).
func (f Forward) Warnings() []string { return f.set.Warnings() }

// IndexReport is Set.IndexReport (systems.IndexReporter).
func (f Forward) IndexReport() systems.IndexReport { return f.set.IndexReport() }

// Models is Set.Models (systems.ModelReporter).
func (f Forward) Models() []systems.ModelInfo { return f.set.Models() }

// Versions is Set.Versions (systems.Versioner).
func (f Forward) Versions() map[string]string { return f.set.Versions() }

// PeakRSS is Set.PeakRSS (systems.PeakRSSReporter).
func (f Forward) PeakRSS() uint64 { return f.set.PeakRSS() }

// VectorDim is Set.VectorDim (systems.VectorDimer).
func (f Forward) VectorDim(ctx context.Context) (int, error) { return f.set.VectorDim(ctx) }

// SearchTimeout is Set.SearchTimeout (systems.SearchBounder).
func (f Forward) SearchTimeout() time.Duration { return f.set.SearchTimeout() }
