package hybrid

import (
	"context"
	"errors"
	"fmt"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/locate"
	"github.com/retrievalbench/retrievalbench/systems/internal/members"
)

var (
	_ systems.System          = (*Index)(nil)
	_ systems.QuerySearcher   = (*Index)(nil)
	_ systems.Warner          = (*Index)(nil)
	_ systems.IndexReporter   = (*Index)(nil)
	_ systems.ModelReporter   = (*Index)(nil)
	_ systems.Versioner       = (*Index)(nil)
	_ systems.PeakRSSReporter = (*Index)(nil)
	_ systems.VectorDimer     = (*Index)(nil)
)

// Index fuses its members' results over one corpus at a time. It is used by
// one goroutine at a time (systems.System). What its members notice and
// cost (warnings, index report, models, versions, peak RSS, vector
// dimension) it forwards through members.Forward.
type Index struct {
	members.Forward
	cfg     Config
	members *members.Set
}

func newIndex(cfg Config, logf func(string, ...any)) *Index {
	set := members.New(logf)
	return &Index{Forward: set.Forward(), cfg: cfg, members: set}
}

// New builds every member of cfg with opt. On error the members already
// built are closed.
func New(cfg Config, opt systems.Options) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	x := newIndex(cfg, opt.Logf)
	for _, m := range cfg.Members {
		s, err := m.Spec.New(opt)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("hybrid %s: member %s: %w", cfg.Name, m.Spec.Name(), err), x.Close())
		}
		x.members.Add(s, x.who(x.members.Len()))
	}
	return x, nil
}

// NewWithMembers returns an Index that fuses the given systems, one per
// member of cfg in order, instead of building them; Close closes them. It
// lets callers fuse systems that are not named configs (and tests fuse
// scripted lists). cfg is validated except for member names.
func NewWithMembers(cfg Config, ms []systems.System) (*Index, error) {
	if len(ms) != len(cfg.Members) {
		return nil, fmt.Errorf("%w: %s: %d systems for %d members", ErrInvalidConfig, cfg.Name, len(ms), len(cfg.Members))
	}
	if err := cfg.validate(false); err != nil {
		return nil, err
	}
	x := newIndex(cfg, nil)
	for i, s := range ms {
		x.members.Add(s, x.who(i))
	}
	return x, nil
}

// who names member i in log lines.
func (x *Index) who(i int) string {
	return "hybrid " + x.cfg.Name + ": member " + x.cfg.Members[i].Spec.Name()
}

// member names member i in errors.
func (x *Index) member(i int) string {
	m := x.cfg.Members[i]
	return m.Spec.System + "/" + m.Spec.Config
}

// Config returns the configuration of x.
func (x *Index) Config() Config { return x.cfg }

// Index indexes c with every member in turn: c's whole files for a member
// that indexes whole files (systems.FileIndexer, an external system), c
// itself for the others.
func (x *Index) Index(ctx context.Context, c *corpus.Corpus) error {
	if i, err := x.members.Index(ctx, c); err != nil {
		return fmt.Errorf("hybrid %s: member %s: %w", x.cfg.Name, x.member(i), err)
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
	lists := make([][]systems.Hit, x.members.Len())
	for i := range lists {
		hits, err := x.members.Search(ctx, i, q, depth)
		if err != nil {
			return nil, fmt.Errorf("hybrid %s: member %s: %w", x.cfg.Name, x.member(i), err)
		}
		// A location hit (an external member's) is fused as the chunk of
		// the indexed corpus it resolves to (package doc).
		hits, ok := x.members.Resolve(i, hits)
		if !ok {
			return nil, fmt.Errorf("hybrid %s: Search before Index", x.cfg.Name)
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
	var errs []error
	for i, err := range x.members.Close() {
		if err != nil {
			errs = append(errs, fmt.Errorf("hybrid %s: closing member %s: %w", x.cfg.Name, x.member(i), err))
		}
	}
	return errors.Join(errs...)
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
	return locate.Ranked(scores)
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
	return locate.Ranked(scores)
}
