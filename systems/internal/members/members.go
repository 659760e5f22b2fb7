// Package members runs the systems a wrapper runs inside itself — a
// hybrid's members, a graph's base — over one corpus at a time: each is
// given the corpus it reads (locate.Input), the location hits it returns
// are resolved to the chunks of that corpus (locate.Chunks, counted in a
// Tally logged at the next Index or Close), and what the wrapper reports
// about them (PeakRSS, Models, Versions) is gathered here, also after Close.
package members

import (
	"context"
	"maps"

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

	corpus  *corpus.Corpus // the last indexed corpus
	chunks  *locate.Chunks // its chunks by path, built for the first location hit
	tallies []locate.Tally // location hits per member, logged at the next Index or Close
	peak    uint64         // the members' PeakRSS, kept when Close lets them go
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
	for i, sys := range s.systems {
		if err := sys.Index(ctx, locate.Input(sys, c)); err != nil {
			return i, err
		}
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
