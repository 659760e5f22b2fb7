package hybrid

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/locate"
)

var (
	_ systems.System        = (*Index)(nil)
	_ systems.QuerySearcher = (*Index)(nil)
)

// Index fuses its members' results over one corpus at a time. It is used by
// one goroutine at a time (systems.System).
type Index struct {
	cfg     Config
	members []systems.System
	logf    func(string, ...any)

	corpus  *corpus.Corpus // the last indexed corpus
	chunks  *locate.Chunks // its chunks by path, built for the first location hit
	tallies []locate.Tally // location hits per member, logged at the next Index or Close
	peak    uint64         // the members' PeakRSS, kept when Close lets them go
}

// New builds every member of cfg with opt. On error the members already
// built are closed.
func New(cfg Config, opt systems.Options) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	x := &Index{cfg: cfg, logf: opt.Logf}
	for _, m := range cfg.Members {
		s, err := m.Spec.New(opt)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("hybrid %s: member %s: %w", cfg.Name, m.Spec.Name(), err), x.Close())
		}
		x.members = append(x.members, s)
	}
	return x, nil
}

// NewWithMembers returns an Index that fuses the given systems, one per
// member of cfg in order, instead of building them; Close closes them. It
// lets callers fuse systems that are not named configs (and tests fuse
// scripted lists). cfg is validated except for member names.
func NewWithMembers(cfg Config, members []systems.System) (*Index, error) {
	if len(members) != len(cfg.Members) {
		return nil, fmt.Errorf("%w: %s: %d systems for %d members", ErrInvalidConfig, cfg.Name, len(members), len(cfg.Members))
	}
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
	return &Index{cfg: cfg, members: members}, nil
}

// Config returns the configuration of x.
func (x *Index) Config() Config { return x.cfg }

// Index indexes c with every member in turn: c's whole files for a member
// that indexes whole files (systems.FileIndexer, an external system), c
// itself for the others.
func (x *Index) Index(ctx context.Context, c *corpus.Corpus) error {
	x.logTallies()
	x.corpus, x.chunks, x.tallies = c, nil, make([]locate.Tally, len(x.members))
	for i, s := range x.members {
		if err := s.Index(ctx, locate.Input(s, c)); err != nil {
			m := x.cfg.Members[i]
			return fmt.Errorf("hybrid %s: member %s/%s: %w", x.cfg.Name, m.Spec.System, m.Spec.Config, err)
		}
	}
	return nil
}

// Search asks every member for max(Depth, k) hits and returns the k best
// fused hits, ties by doc ID ascending.
func (x *Index) Search(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	return x.SearchQuery(ctx, systems.Query{Text: query}, k)
}

// SearchQuery is Search with the task's facts: a member that uses them
// (systems.QuerySearcher, e.g. an external system given {library}) gets q
// whole, the others its text.
func (x *Index) SearchQuery(ctx context.Context, q systems.Query, k int) ([]systems.Hit, error) {
	if k <= 0 {
		return nil, nil
	}
	depth := max(x.cfg.Depth, k)
	lists := make([][]systems.Hit, len(x.members))
	for i, s := range x.members {
		hits, err := systems.SearchQuery(ctx, s, q, depth)
		if err != nil {
			m := x.cfg.Members[i]
			return nil, fmt.Errorf("hybrid %s: member %s/%s: %w", x.cfg.Name, m.Spec.System, m.Spec.Config, err)
		}
		if locate.Located(hits) {
			// A location hit (an external member's) is fused as the chunk
			// of x.corpus it resolves to (package doc).
			if x.corpus == nil {
				return nil, fmt.Errorf("hybrid %s: Search before Index", x.cfg.Name)
			}
			if x.chunks == nil {
				x.chunks = locate.New(x.corpus)
			}
			hits = x.chunks.Hits(hits, &x.tallies[i])
		}
		lists[i] = hits
	}
	weights := make([]float64, len(x.cfg.Members))
	for i, m := range x.cfg.Members {
		weights[i] = m.Weight
	}
	var fused []systems.Hit
	switch x.cfg.Method {
	case MethodRRF:
		fused = RRF(lists, weights, x.cfg.K)
	default:
		fused = Weighted(lists, weights)
	}
	if len(fused) > k {
		fused = fused[:k]
	}
	return fused, nil
}

// Close closes every member and joins their errors.
func (x *Index) Close() error {
	x.logTallies()
	var errs []error
	for i, s := range x.members {
		if err := s.Close(); err != nil {
			m := x.cfg.Members[i]
			errs = append(errs, fmt.Errorf("hybrid %s: closing member %s/%s: %w", x.cfg.Name, m.Spec.System, m.Spec.Config, err))
		}
	}
	// After Close: a member's server process is measured when it is reaped.
	x.peak = x.PeakRSS()
	x.members = nil
	return errors.Join(errs...)
}

// logTallies logs what became of each member's location hits over the
// corpus indexed last.
func (x *Index) logTallies() {
	if x.corpus == nil {
		return
	}
	for i := range x.tallies {
		x.tallies[i].Log(x.logf, "hybrid "+x.cfg.Name+": member "+x.cfg.Members[i].Spec.Name(), x.corpus.ID)
	}
}

// PeakRSS is the largest peak resident set size, in bytes, of the processes
// the members run (an external member's PeakRSS, what benchtest.ChildPeaker
// asks), also after Close; 0 when no member runs any.
func (x *Index) PeakRSS() uint64 {
	peak := x.peak
	for _, s := range x.members {
		if c, ok := s.(interface{ PeakRSS() uint64 }); ok {
			peak = max(peak, c.PeakRSS())
		}
	}
	return peak
}

// Models lists the models its members embed with, in member order.
func (x *Index) Models() []systems.ModelInfo {
	var out []systems.ModelInfo
	for _, s := range x.members {
		if m, ok := s.(systems.ModelReporter); ok {
			out = append(out, m.Models()...)
		}
	}
	return out
}

// Versions merges what the members report about the versions they run on
// (SQLite, ONNX Runtime, models), for golden files.
func (x *Index) Versions() map[string]string {
	out := map[string]string{}
	for _, s := range x.members {
		if v, ok := s.(interface{ Versions() map[string]string }); ok {
			for k, val := range v.Versions() {
				out[k] = val
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// RRF fuses ranked lists by reciprocal rank: a doc scores
// Σ weights[i] / (k + rank) over the lists that hold it, rank 1-based.
// A doc listed twice in one list counts at its best rank. The result is
// every doc of any list, best first, ties by doc ID ascending.
func RRF(lists [][]systems.Hit, weights []float64, k int) []systems.Hit {
	scores := map[string]float64{}
	for i, l := range lists {
		seen := map[string]bool{}
		for r, h := range l {
			key := locate.Key(h)
			if seen[key] {
				continue
			}
			seen[key] = true
			scores[key] += weights[i] / float64(k+r+1)
		}
	}
	return ranked(scores)
}

// Weighted fuses scored lists: every list is min-max normalised over its
// own hits ((s−min)/(max−min); all 1 when max = min) and a doc scores
// Σ weights[i] × norm over the lists that hold it (0 from a list without
// it). A doc listed twice in one list counts at its best score. The result
// is every doc of any list, best first, ties by doc ID ascending.
func Weighted(lists [][]systems.Hit, weights []float64) []systems.Hit {
	scores := map[string]float64{}
	for i, l := range lists {
		if len(l) == 0 {
			continue
		}
		lo, hi := l[0].Score, l[0].Score
		for _, h := range l {
			lo, hi = min(lo, h.Score), max(hi, h.Score)
		}
		best := map[string]float64{}
		for _, h := range l {
			n := 1.0
			if hi > lo {
				n = (h.Score - lo) / (hi - lo)
			}
			if b, ok := best[locate.Key(h)]; !ok || n > b {
				best[locate.Key(h)] = n
			}
		}
		for id, n := range best {
			scores[id] += weights[i] * n
		}
	}
	return ranked(scores)
}

// ranked turns scores by key (locate.Key: a doc id, or a whole file an
// external member pointed at) into hits, score descending, key ascending.
func ranked(scores map[string]float64) []systems.Hit {
	keys := make([]string, 0, len(scores))
	for key := range scores {
		keys = append(keys, key)
	}
	sort.Slice(keys, func(i, j int) bool {
		if a, b := scores[keys[i]], scores[keys[j]]; a != b {
			return a > b
		}
		return keys[i] < keys[j]
	})
	out := make([]systems.Hit, len(keys))
	for i, key := range keys {
		out[i] = locate.FromKey(key, scores[key])
	}
	return out
}
