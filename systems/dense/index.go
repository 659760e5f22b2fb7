package dense

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/embed"
	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
	"github.com/retrievalbench/retrievalbench/internal/progress"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/internal/buildrec"
	"github.com/retrievalbench/retrievalbench/systems/internal/modelconfig"
)

var _ systems.System = (*Index)(nil)

// progressEvery is how often Index logs its embedding rate.
const progressEvery = 5 * time.Second

// storeEvery is how many docs Index embeds before writing them to the
// store (a variable so tests can cross group boundaries on small corpora).
var storeEvery = 256

// Requires reports what cfg needs under cacheDir and does not have: the ONNX
// Runtime library (systems.NeedsONNX) or the model files (NeedsModels); nil
// if nothing. Files that are present but corrupt are not reported here: New
// fails on them, so a broken cache is an error rather than a skip.
func Requires(cfg Config, cacheDir string) *systems.Requirement {
	m, err := cfg.model()
	if err != nil {
		// An unknown model is a config error, which New reports.
		return nil
	}
	if m.IsEndpoint() {
		return nil // a server: nothing local (an unreachable one fails the cell)
	}
	if _, err := embed.LibraryPath(cacheDir); err != nil {
		return &systems.Requirement{Kind: systems.NeedsONNX, Reason: err.Error()}
	}
	return modelconfig.Missing(cacheDir, m)
}

// IndexStats describes the last Index call.
type IndexStats struct {
	Docs     int // docs in the index
	Embedded int // docs embedded by this call
	Reused   int // docs whose vector came from the store
	// Truncated counts the docs cut at the model's max tokens, embedded
	// now or reused from the store (-1 for an endpoint model: the server
	// truncates, and does not say).
	Truncated int
	Embed     time.Duration // wall time embedding
	ORT       time.Duration // of which inside ONNX Runtime
	Total     time.Duration // wall time of the Index call
	StorePath string        // "" when the store was not used
}

// DocsPerSecond is the embedding rate of the last Index call.
func (s IndexStats) DocsPerSecond() float64 {
	if s.Embed <= 0 {
		return 0
	}
	return float64(s.Embedded) / s.Embed.Seconds()
}

// Index is a dense index of one corpus at a time. It is used by one
// goroutine at a time (systems.System).
type Index struct {
	cfg   Config
	opt   systems.Options
	model models.Model
	emb   Vectorizer
	onnx  *embed.Embedder // emb when the model runs in-process; nil for an endpoint
	mat   *embed.Matrix
	stats IndexStats
	info  *systems.ModelInfo // Models' answer, made once
	// warnings not yet handed out (systems.Warner): the truncation count of
	// each Index call.
	warnings []string

	// progress state of the Index call running
	indexing  bool
	corpusID  string
	lastLog   time.Time
	rate      progress.Meter // docs embedded in this call, over the last minute
	offset    int            // docs already reused or embedded before this Embed call
	stats0    int            // docs reused from the store (not embedded) in this call
	totalDocs int

	built systems.IndexReport // what IndexReport says of the last Index
}

// New loads the model of cfg (files under opt.CacheDir, ONNX Runtime from
// $RETRIEVALBENCH_ORT_LIB or the cache) and returns an empty Index.
func New(cfg Config, opt systems.Options) (*Index, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if err := modelconfig.CheckCache("dense", cfg.Name, opt.CacheDir); err != nil {
		return nil, err
	}
	m, err := cfg.model()
	if err != nil {
		return nil, fmt.Errorf("dense[%s]: %w", cfg.Name, err)
	}
	x := &Index{cfg: cfg, opt: opt, model: m}
	if m.IsEndpoint() {
		ep, err := embed.NewEndpoint(m, nil)
		if err != nil {
			return nil, fmt.Errorf("dense[%s]: %w", cfg.Name, err)
		}
		ep.Logf = opt.Logf // each retry in the -v log
		x.emb = ep
		return x, nil
	}
	ecfg := embed.DefaultConfig(m, opt.CacheDir)
	ecfg.BatchSize = cfg.BatchSize
	ecfg.Progress = x.progress
	x.onnx, err = embed.New(ecfg)
	if err != nil {
		return nil, fmt.Errorf("dense[%s]: %w", cfg.Name, err)
	}
	x.emb = x.onnx
	return x, nil
}

// Vectorizer is what Index needs of an embedder: *embed.Embedder (ONNX
// Runtime in-process) and *embed.Endpoint (an OpenAI-compatible server).
type Vectorizer interface {
	Embed(ctx context.Context, texts []string, prefix string) ([][]float32, error)
	EmbedQueries(ctx context.Context, texts []string) ([][]float32, error)
	Fingerprint() string
	Dim() int
	Close() error
}

var (
	_ Vectorizer = (*embed.Embedder)(nil)
	_ Vectorizer = (*embed.Endpoint)(nil)
)

// Config returns the configuration of x.
func (x *Index) Config() Config { return x.cfg }

// Stats returns what the last successful Index call did.
func (x *Index) Stats() IndexStats { return x.stats }

// Embedder returns the embedder: an *embed.Embedder, whose counters say
// the time inside ONNX Runtime, or an *embed.Endpoint.
func (x *Index) Embedder() Vectorizer { return x.emb }

// DocText is the text embedded for d, without the model's passage prefix:
// Symbol, Path and Title on their own lines when set, then Text.
func DocText(d *corpus.Doc) string {
	var b strings.Builder
	for _, s := range []string{d.Symbol, d.Path, d.Title} {
		if s != "" {
			b.WriteString(s)
			b.WriteByte('\n')
		}
	}
	b.WriteString(d.Text)
	return b.String()
}

// Index embeds the docs of c that the store lacks and builds the in-memory
// matrix that Search scans. A previous corpus is dropped.
func (x *Index) Index(ctx context.Context, c *corpus.Corpus) error {
	start := time.Now()
	x.mat = nil
	seen := make(map[string]bool, len(c.Docs))
	texts := make([]string, len(c.Docs))
	keys := make([]embed.TextHash, len(c.Docs))
	for i := range c.Docs {
		d := &c.Docs[i]
		if seen[d.ID] {
			return fmt.Errorf("dense[%s]: corpus %s: duplicate doc id %q", x.cfg.Name, c.ID, d.ID)
		}
		seen[d.ID] = true
		texts[i] = x.model.PassagePrefix + DocText(d)
		keys[i] = embed.HashText(texts[i])
	}

	vecs := make([][]float32, len(c.Docs))
	var store *embed.Store
	st := IndexStats{Docs: len(c.Docs)}
	if !x.opt.NoCache {
		var err error
		store, err = embed.OpenStore(embed.StorePath(x.opt.CacheDir, x.model.ID))
		if err != nil {
			return fmt.Errorf("dense[%s]: %w", x.cfg.Name, err)
		}
		defer store.Close()
		st.StorePath = store.Path()
		if vecs, err = store.Get(x.emb.Fingerprint(), x.emb.Dim(), keys); err != nil {
			return fmt.Errorf("dense[%s]: %w", x.cfg.Name, err)
		}
	}
	var todo []int
	for i, v := range vecs {
		if v == nil {
			todo = append(todo, i)
		}
	}
	st.Reused = len(c.Docs) - len(todo)
	switch {
	case x.onnx == nil:
		st.Truncated = -1
	case st.Reused > 0:
		// Reused vectors were truncated when they were embedded: count
		// them too, so the count does not depend on the store.
		reused := make([]string, 0, st.Reused)
		for i, v := range vecs {
			if v != nil {
				reused = append(reused, texts[i])
			}
		}
		st.Truncated = x.onnx.CountTruncated(reused, "")
	}

	if len(todo) > 0 {
		before, began := x.onnxStats(), time.Now()
		x.corpusID, x.lastLog = c.ID, time.Now()
		x.totalDocs, x.stats0 = len(c.Docs), st.Reused
		x.rate.Start(x.lastLog, 0)
		// Embed and store in groups: memory stays bounded, and an
		// interrupted run keeps what it embedded for the next one.
		for lo := 0; lo < len(todo); lo += storeEvery {
			group := todo[lo:min(lo+storeEvery, len(todo))]
			missing := make([]string, len(group))
			newKeys := make([]embed.TextHash, len(group))
			for j, i := range group {
				missing[j], newKeys[j] = texts[i], keys[i]
			}
			x.offset = st.Reused + lo
			x.indexing = true
			got, err := x.emb.Embed(ctx, missing, "") // texts carry the prefix already
			x.indexing = false
			if err != nil {
				return fmt.Errorf("dense[%s]: indexing %s: %w", x.cfg.Name, c.ID, err)
			}
			if store != nil {
				if err := store.Put(x.emb.Fingerprint(), newKeys, got); err != nil {
					return fmt.Errorf("dense[%s]: %w", x.cfg.Name, err)
				}
			}
			for j, i := range group {
				vecs[i] = got[j]
			}
		}
		after := x.onnxStats()
		st.Embedded = len(todo)
		st.Truncated += after.Truncated - before.Truncated
		st.Embed = after.Total - before.Total
		st.ORT = after.ORT - before.ORT
		if x.onnx == nil { // a server: the wall time of the requests
			st.Embed = time.Since(began)
		}
	}

	// A store that gave every vector is a reused index: its cold cost is
	// the build recorded when this corpus was embedded (by this model), or
	// unknown; a call that embedded every doc records its own.
	x.built = systems.IndexReport{}
	if store != nil {
		rec := filepath.Join(filepath.Dir(store.Path()), "builds", buildKey(c.Hash(), x.emb.Fingerprint())+".json")
		switch {
		case st.Reused > 0:
			x.built = buildrec.Read(rec)
		case st.Embedded > 0:
			x.built = systems.IndexReport{BuildTime: time.Since(start), CPUClass: cpuclass.Current()}
			if err := buildrec.Write(rec, x.built); err != nil {
				x.logf("dense[%s]: %s: recording the build time: %v", x.cfg.Name, c.ID, err)
			}
		}
	}

	mat := embed.NewMatrix(x.emb.Dim())
	for i := range c.Docs {
		if err := mat.Add(c.Docs[i].ID, vecs[i]); err != nil {
			return fmt.Errorf("dense[%s]: %w", x.cfg.Name, err)
		}
	}
	x.mat = mat
	st.Total = time.Since(start)
	x.stats = st
	if st.Truncated > 0 {
		x.warnings = append(x.warnings, fmt.Sprintf("dense[%s]: %s: %d of %d docs truncated at the model's %d tokens (the rest of their text is not embedded)",
			x.cfg.Name, c.ID, st.Truncated, st.Docs, x.model.MaxTokens))
	}
	x.logf("dense[%s]: %s: %d docs (%d embedded at %.1f docs/s, %d truncated, %d from the store) in %v",
		x.cfg.Name, c.ID, st.Docs, st.Embedded, st.DocsPerSecond(), st.Truncated, st.Reused, st.Total.Round(time.Millisecond))
	return nil
}

// buildKey names the build record of a corpus embedded by a model
// fingerprint.
func buildKey(corpusHash, fingerprint string) string {
	sum := sha256.Sum256([]byte(corpusHash + "\x00" + fingerprint))
	return hex.EncodeToString(sum[:])[:24]
}

// IndexReport says whether the last Index took vectors from the store and
// what embedding the corpus took when it was built (systems.IndexReporter).
func (x *Index) IndexReport() systems.IndexReport { return x.built }

// progress logs the embedding rate over the last minute, and the ETA at that
// rate, at most every progressEvery.
func (x *Index) progress(done, total int) {
	now := time.Now()
	if !x.indexing || now.Sub(x.lastLog) < progressEvery {
		return
	}
	x.lastLog = now
	rate := x.rate.Observe(now, x.offset-x.stats0+done)
	x.logf("dense[%s]: %s: %d/%d docs (%.1f docs/s, ETA %s)", x.cfg.Name, x.corpusID, x.offset+done, x.totalDocs, rate, progress.ETA(x.totalDocs-x.offset-done, rate))
}

func (x *Index) logf(format string, args ...any) {
	if x.opt.Logf != nil {
		x.opt.Logf(format, args...)
	}
}

// Search embeds query with the model's query prefix and returns the k docs
// of highest cosine similarity, ties by ascending doc id.
func (x *Index) Search(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	if x.mat == nil {
		return nil, fmt.Errorf("dense[%s]: Search before Index", x.cfg.Name)
	}
	qv, err := x.emb.EmbedQueries(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("dense[%s]: %w", x.cfg.Name, err)
	}
	res, err := x.mat.Search(qv[0], k)
	if err != nil {
		return nil, fmt.Errorf("dense[%s]: %w", x.cfg.Name, err)
	}
	hits := make([]systems.Hit, len(res))
	for i, r := range res {
		hits[i] = systems.Hit{DocID: r.ID, Score: float64(r.Score)}
	}
	return hits, nil
}

// VectorDim embeds a probe query and returns the length of its vector
// (systems.VectorDimer: a campaign checks it against the manifest's
// dimension).
func (x *Index) VectorDim(ctx context.Context) (int, error) {
	if x.emb == nil {
		return 0, fmt.Errorf("dense[%s]: no model loaded", x.cfg.Name)
	}
	vs, err := x.emb.EmbedQueries(ctx, []string{"dimension probe"})
	if err != nil {
		return 0, err
	}
	if len(vs) != 1 {
		return 0, fmt.Errorf("%d vectors for one query", len(vs))
	}
	return len(vs[0]), nil
}

var _ systems.Warner = (*Index)(nil)

// Warnings returns, and forgets, what happened since the last call
// (systems.Warner, so it reaches the cell, the records and the reports):
// how many docs of a corpus the model truncated, and, for a model served
// by an endpoint, its retries and failed batches.
func (x *Index) Warnings() []string {
	w := x.warnings
	x.warnings = nil
	if ep, ok := x.emb.(*embed.Endpoint); ok {
		w = append(w, ep.Warnings()...)
	}
	return w
}

// onnxStats is the in-process embedder's counters (zero for an endpoint).
func (x *Index) onnxStats() embed.Counts {
	if x.onnx == nil {
		return embed.Counts{}
	}
	return x.onnx.Stats()
}

// Close releases the model session.
func (x *Index) Close() error {
	x.mat = nil
	if x.emb == nil {
		return nil
	}
	return x.emb.Close()
}

// Models describes the model the index embeds with: its source,
// dimension, parameter count (counted in its ONNX graph once; 0 for an
// endpoint, or when the graph cannot be read) and engine.
func (x *Index) Models() []systems.ModelInfo {
	if x.info == nil {
		m := x.model
		info := systems.ModelInfo{ID: m.ID, Source: m.Source(), Dimension: m.Dimension, Engine: systems.EngineInProcess,
			Fingerprint: m.Fingerprint(), Pooling: m.Pooling, MaxTokens: m.MaxTokens, QueryPrefix: m.QueryPrefix, PassagePrefix: m.PassagePrefix}
		if m.IsEndpoint() {
			info.Engine, info.Served = systems.EngineServer, m.Endpoint.Model+"@"+m.Endpoint.Revision
		} else if n, err := models.Parameters(m.Path(x.opt.CacheDir, models.ModelFile)); err == nil {
			info.Parameters = n
		} else if x.opt.Logf != nil {
			x.opt.Logf("dense[%s]: parameter count unknown: %v", x.cfg.Name, err)
		}
		x.info = &info
	}
	return []systems.ModelInfo{*x.info}
}

// Versions names what the index runs on, for golden files: the ONNX Runtime
// version and the SHA-256 of the model and tokenizer files.
func (x *Index) Versions() map[string]string {
	if x.model.IsEndpoint() {
		ep := x.model.Endpoint
		return map[string]string{"endpoint " + x.model.ID: ep.Model + "@" + ep.Revision}
	}
	v := map[string]string{"onnxruntime": embed.RuntimeVersion()}
	for _, f := range x.model.Files {
		v["model "+x.model.ID+" "+f.Name] = f.SHA256
	}
	return v
}
