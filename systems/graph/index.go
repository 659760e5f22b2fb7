package graph

import (
	"context"
	"fmt"
	"math"

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

// Index expands the ranking of its base system over one corpus at a time.
// It is used by one goroutine at a time (systems.System). What its base
// notices and costs (warnings, index report, models, versions, peak RSS,
// vector dimension) it forwards through members.Forward.
type Index struct {
	members.Forward
	cfg   Config
	base  *members.Set // the base system, its only member; its Logf logs for x too
	graph *Graph
}

// New builds the base system of cfg with opt.
func New(cfg Config, opt systems.Options) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	base, err := cfg.Base.New(opt)
	if err != nil {
		return nil, fmt.Errorf("graph %s: base %s: %w", cfg.Name, cfg.Base.Name(), err)
	}
	return newIndex(cfg, base, opt.Logf), nil
}

// NewWithBase returns an Index that expands the given system instead of
// building cfg.Base; Close closes it. Only the expansion fields of cfg are
// used and checked.
func NewWithBase(cfg Config, base systems.System) (*Index, error) {
	check := cfg
	check.Base = systems.Spec{System: "given", Config: "given", Hash: "given", New: func(systems.Options) (systems.System, error) { return base, nil }}
	if err := check.Validate(); err != nil {
		return nil, err
	}
	return newIndex(cfg, base, nil), nil
}

func newIndex(cfg Config, base systems.System, logf func(string, ...any)) *Index {
	set := members.New(logf)
	x := &Index{Forward: set.Forward(), cfg: cfg, base: set}
	x.base.Add(base, "graph "+cfg.Name+": base "+cfg.Base.Name())
	return x
}

// Config returns the configuration of x.
func (x *Index) Config() Config { return x.cfg }

// Graph returns the reference graph of the last indexed corpus.
func (x *Index) Graph() *Graph { return x.graph }

// Index indexes c with the base system and builds its reference graph
// over c. A base that indexes whole files (systems.FileIndexer, an
// external system) is given c's whole files (corpus.Corpus.Files).
func (x *Index) Index(ctx context.Context, c *corpus.Corpus) error {
	if c == nil {
		return fmt.Errorf("graph %s: nil corpus", x.cfg.Name)
	}
	x.graph = nil
	if _, err := x.base.Index(ctx, c); err != nil {
		return fmt.Errorf("graph %s: base %s: %w", x.cfg.Name, x.cfg.Base.Name(), err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	x.graph = Build(c, x.cfg.MaxCandidates)
	if x.base.Logf != nil {
		s := x.graph.Stats()
		x.base.Logf("graph[%s]: %s: %d docs, %d definitions, %d edges", x.cfg.Name, c.ID, s.Docs, s.Definitions, s.Edges)
	}
	return nil
}

// Search expands the base ranking (see the package doc) and returns the k
// best docs, ties by doc ID ascending.
func (x *Index) Search(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	return x.SearchQuery(ctx, systems.Query{Text: query}, k)
}

// SearchQuery is Search with the task's facts, which go to a base that
// uses them (systems.QuerySearcher); any other base gets q's text.
func (x *Index) SearchQuery(ctx context.Context, q systems.Query, k int) ([]systems.Hit, error) {
	if x.graph == nil {
		return nil, fmt.Errorf("graph %s: Search before Index", x.cfg.Name)
	}
	if k <= 0 {
		return nil, nil
	}
	hits, err := x.base.Search(ctx, 0, q, max(k, x.cfg.Seeds))
	if err != nil {
		return nil, fmt.Errorf("graph %s: base %s: %w", x.cfg.Name, x.cfg.Base.Name(), err)
	}
	// A location hit (an external base's) is expanded as the chunk it
	// resolves to (package doc); the graph exists, so the corpus does.
	hits, _ = x.base.Resolve(0, hits)
	return Expand(x.graph, hits, x.cfg, k), nil
}

// Expand merges the base hits with the 1-hop neighbours of the first
// cfg.Seeds of them, scored by cfg.Decay (see the package doc), and returns
// the k best, score descending, doc ID ascending. Hits of docs the graph
// does not know are kept as they are.
func Expand(g *Graph, hits []systems.Hit, cfg Config, k int) []systems.Hit {
	score := make(map[string]float64, len(hits))
	put := func(id string, s float64) {
		if old, ok := score[id]; !ok || s > old {
			score[id] = s
		}
	}
	for _, h := range hits {
		put(locate.Key(h), h.Score) // a whole file an external base pointed at: kept, never expanded
	}
	for _, seed := range hits[:min(cfg.Seeds, len(hits))] {
		i, ok := g.index[seed.DocID]
		if !ok {
			continue
		}
		s := seed.Score - (1-cfg.Decay)*math.Abs(seed.Score)
		ns := g.neighbours(i)
		if cfg.MaxNeighbors > 0 && len(ns) > cfg.MaxNeighbors {
			ns = ns[:cfg.MaxNeighbors]
		}
		for _, j := range ns {
			put(g.ids[j], s)
		}
	}
	out := locate.Ranked(score)
	return out[:min(k, len(out))]
}

// Close closes the base system.
func (x *Index) Close() error {
	x.graph = nil
	if errs := x.base.Close(); len(errs) > 0 {
		return errs[0]
	}
	return nil
}
