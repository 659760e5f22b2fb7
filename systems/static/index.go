package static

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/embed"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/dense"
	"github.com/retrievalbench/retrievalbench/systems/internal/modelconfig"
)

var _ systems.System = (*Index)(nil)

// Requires reports what cfg needs under cacheDir and does not have: the
// model files (modelconfig.Missing); nil if nothing.
func Requires(cfg Config, cacheDir string) *systems.Requirement {
	m, err := models.Lookup(cfg.Model)
	if err != nil {
		return nil // an unknown model is a config error, which New reports
	}
	return modelconfig.Missing(cacheDir, m)
}

// IndexStats describes the last Index call.
type IndexStats struct {
	Docs      int           // docs in the index
	Truncated int           // docs cut at the max tokens
	Empty     int           // docs with no tokens (zero vector: never a hit above others)
	Embed     time.Duration // wall time embedding
	Total     time.Duration // wall time of the Index call
}

// DocsPerSecond is the embedding rate of the last Index call.
func (s IndexStats) DocsPerSecond() float64 {
	if s.Embed <= 0 {
		return 0
	}
	return float64(s.Docs) / s.Embed.Seconds()
}

// Index is a static-embedding index of one corpus at a time, used by one
// goroutine at a time (systems.System).
type Index struct {
	cfg   Config
	opt   systems.Options
	model *Model
	mat   *embed.Matrix
	stats IndexStats
	// warnings not yet handed out (systems.Warner): the truncation count of
	// each Index call.
	warnings []string
}

var _ systems.Warner = (*Index)(nil)

// Warnings returns, and forgets, how many docs of each corpus indexed since
// the last call were cut at the max tokens (systems.Warner).
func (x *Index) Warnings() []string {
	w := x.warnings
	x.warnings = nil
	return w
}

// New loads the model of cfg from opt.CacheDir and returns an empty Index.
func New(cfg Config, opt systems.Options) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := modelconfig.CheckCache("static", cfg.Name, opt.CacheDir); err != nil {
		return nil, err
	}
	m, err := models.Lookup(cfg.Model)
	if err != nil {
		return nil, fmt.Errorf("static[%s]: %w", cfg.Name, err)
	}
	x, err := Load(m, opt.CacheDir, cfg.maxTokens(m))
	if err != nil {
		return nil, fmt.Errorf("static[%s]: %w", cfg.Name, err)
	}
	return &Index{cfg: cfg, opt: opt, model: x}, nil
}

// Config returns the configuration of x.
func (x *Index) Config() Config { return x.cfg }

// Stats returns what the last successful Index call did.
func (x *Index) Stats() IndexStats { return x.stats }

// Model returns the loaded model.
func (x *Index) Model() *Model { return x.model }

// Index embeds every doc of c (on every core) and builds the matrix that
// Search scans. A previous corpus is dropped.
func (x *Index) Index(ctx context.Context, c *corpus.Corpus) error {
	start := time.Now()
	x.mat = nil
	seen := make(map[string]bool, len(c.Docs))
	for i := range c.Docs {
		id := c.Docs[i].ID
		if seen[id] {
			return fmt.Errorf("static[%s]: corpus %s: duplicate doc id %q", x.cfg.Name, c.ID, id)
		}
		seen[id] = true
	}
	vecs := make([][]float32, len(c.Docs))
	truncated := make([]bool, len(c.Docs))
	workers := max(1, min(runtime.NumCPU(), len(c.Docs)))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(c.Docs); i += workers {
				if i%256 == w && ctx.Err() != nil {
					return
				}
				vecs[i], truncated[i] = x.model.Embed(x.model.m.PassagePrefix + dense.DocText(&c.Docs[i]))
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return err
	}
	embedTime := time.Since(start)
	st := IndexStats{Docs: len(c.Docs), Embed: embedTime}
	mat := embed.NewMatrix(x.model.Dim())
	for i := range c.Docs {
		if truncated[i] {
			st.Truncated++
		}
		if isZero(vecs[i]) {
			st.Empty++
		}
		if err := mat.Add(c.Docs[i].ID, vecs[i]); err != nil {
			return fmt.Errorf("static[%s]: %w", x.cfg.Name, err)
		}
	}
	x.mat = mat
	st.Total = time.Since(start)
	x.stats = st
	if st.Truncated > 0 {
		x.warnings = append(x.warnings, fmt.Sprintf("static[%s]: %s: %d of %d docs truncated at %d tokens (the rest of their text is not embedded)",
			x.cfg.Name, c.ID, st.Truncated, st.Docs, x.model.maxTokens))
	}
	if x.opt.Logf != nil {
		x.opt.Logf("static[%s]: %s: %d docs embedded at %.0f docs/s (%d truncated, %d empty) in %v",
			x.cfg.Name, c.ID, st.Docs, st.DocsPerSecond(), st.Truncated, st.Empty, st.Total.Round(time.Millisecond))
	}
	return nil
}

func isZero(v []float32) bool {
	for _, f := range v {
		if f != 0 {
			return false
		}
	}
	return true
}

// Search embeds query with the model's query prefix and returns the k docs
// of highest cosine similarity, ties by ascending doc id.
func (x *Index) Search(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	if x.mat == nil {
		return nil, fmt.Errorf("static[%s]: Search before Index", x.cfg.Name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	q, _ := x.model.Embed(x.model.m.QueryPrefix + query)
	res, err := x.mat.Search(q, k)
	if err != nil {
		return nil, fmt.Errorf("static[%s]: %w", x.cfg.Name, err)
	}
	hits := make([]systems.Hit, len(res))
	for i, r := range res {
		hits[i] = systems.Hit{DocID: r.ID, Score: float64(r.Score)}
	}
	return hits, nil
}

// VectorDim embeds a probe query and returns the length of its vector (the
// campaign checks it against the manifest's dimension).
func (x *Index) VectorDim(ctx context.Context) (int, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	v, _ := x.model.Embed(x.model.m.QueryPrefix + "dimension probe")
	return len(v), nil
}

// Close drops the index; the model stays loaded until x is dropped.
func (x *Index) Close() error {
	x.mat = nil
	return nil
}
