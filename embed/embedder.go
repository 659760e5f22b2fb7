package embed

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sync"
	"time"

	ort "github.com/yalue/onnxruntime_go"

	"github.com/retrievalbench/retrievalbench/embed/models"
	"github.com/retrievalbench/retrievalbench/embed/tokenizer"
	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
)

// DefaultBatchSize is the number of texts run through a model at once when
// Config.BatchSize is 0 and the model is not dynamically quantized.
//
// Dynamically quantized models (DynamicQuantizeLinear in the graph, as in
// every "-q" model of the manifest) compute one activation scale over the
// whole input tensor, so a text's vector depends on the other texts of its
// batch and on their padding (measured: cosine down to 0.967 between a text
// embedded alone and in a batch). For them the default is one text per run:
// vectors are then a function of the text alone, as the content-keyed Store
// and the parity data assume. On 2 cores, 120 RepoQA chunks embedded by
// minilm-l6-q at batch 1 and 32 ran within measurement noise of each other
// (no padding at batch 1 offsets the per-run overhead).
const DefaultBatchSize = 32

// Config says which model an Embedder runs and how.
type Config struct {
	// Model is the manifest entry: dimension, pooling, max tokens, prefixes.
	Model models.Model
	// CacheDir is the cache root holding the fetched model files and, unless
	// $RETRIEVALBENCH_ORT_LIB is set, the ONNX Runtime library.
	CacheDir string
	// ModelFile and TokenizerFile override the cached model.onnx and
	// tokenizer.json. When both are empty the cached files are checked
	// against the manifest's sha256 first (models.Verify); explicit files
	// are taken as they are.
	ModelFile, TokenizerFile string
	// BatchSize is the number of texts per model run; 0 picks 1 for
	// dynamically quantized models and DefaultBatchSize for the others (see
	// DefaultBatchSize for why).
	BatchSize int
	// Threads is the number of threads ONNX Runtime runs on in all, split
	// over Sessions (0: runtime.NumCPU()).
	Threads int
	// Sessions is the number of ONNX Runtime sessions that run batches in
	// parallel, each with Threads/Sessions intra-op threads (at least one).
	// 0 picks one single-threaded session per thread when the batch size is
	// 1 (one text's run is too small to keep several intra-op threads busy,
	// while separate texts run independently), else one session with every
	// thread. On a loaded 2-core machine both ran within noise of each other
	// (docs/performance.md); the gain is for cores that are free. Vectors do
	// not depend on it (a test checks them bit for bit); memory does: each
	// session holds its own copy of the model. 1 is the former behaviour.
	Sessions int
	// Spin lets ONNX Runtime's idle intra-op threads busy-wait for work.
	// Off by default: when other processes share the cores (go test runs
	// packages in parallel) spinning threads steal their time; on a loaded
	// 2-core machine minilm-l6-q embedded about 2× faster without it.
	Spin bool
	// Progress, when set, is called after every batch with the number of
	// texts embedded so far in the current call and the call's total.
	Progress func(done, total int)
}

// DefaultConfig returns the configuration for model m with files in cacheDir.
func DefaultConfig(m models.Model, cacheDir string) Config {
	return Config{Model: m, CacheDir: cacheDir, Threads: runtime.NumCPU()}
}

// Validate reports what is wrong with c before anything is loaded.
func (c Config) Validate() error {
	m := c.Model
	switch {
	case m.ID == "":
		return errors.New("embed: config has no model")
	case !m.IsONNX():
		return fmt.Errorf("embed: model %s is a %s model, not an ONNX encoder", m.ID, m.Kind)
	case m.Dimension <= 0:
		return fmt.Errorf("embed: model %s: dimension %d", m.ID, m.Dimension)
	case m.Pooling != PoolCLS && m.Pooling != PoolMean && m.Pooling != PoolLastToken:
		return fmt.Errorf("embed: model %s: pooling %q (want %q, %q or %q)", m.ID, m.Pooling, PoolCLS, PoolMean, PoolLastToken)
	case m.HiddenSize != 0 && m.HiddenSize <= m.Dimension:
		return fmt.Errorf("embed: model %s: hidden size %d not above dimension %d", m.ID, m.HiddenSize, m.Dimension)
	case m.MaxTokens < 3:
		return fmt.Errorf("embed: model %s: max tokens %d", m.ID, m.MaxTokens)
	case c.BatchSize < 0 || c.Threads < 0 || c.Sessions < 0:
		return fmt.Errorf("embed: model %s: negative batch size %d, threads %d or sessions %d", m.ID, c.BatchSize, c.Threads, c.Sessions)
	case (c.ModelFile == "") != (c.TokenizerFile == ""):
		return fmt.Errorf("embed: model %s: set both ModelFile and TokenizerFile or neither", m.ID)
	}
	return nil
}

// Counts counts what an Embedder did since it was created.
type Counts struct {
	Texts     int           // texts embedded
	Truncated int           // texts cut at the model's max tokens
	Tokens    int           // real tokens (special tokens included, padding not)
	Padded    int           // tokens fed to the model, padding included
	Batches   int           // model runs
	ORT       time.Duration // wall time during which ONNX Runtime's Run was running in some session
	Total     time.Duration // wall time inside Embed calls
}

// Rest is the time spent outside ONNX Runtime: tokenizing, batching,
// pooling, normalising.
func (s Counts) Rest() time.Duration { return s.Total - s.ORT }

// Embedder runs one embedding model. Its methods may be called from several
// goroutines; calls are serialised, since one call already keeps every core
// busy.
type Embedder struct {
	cfg         Config
	modelFile   string
	fingerprint string
	tok         *tokenizer.Tokenizer
	sessions    []*session
	io          graphIO // what the graph takes and gives
	quantized   bool    // the graph quantizes activations per batch
	batchSize   int
	padID       int64

	mu     sync.Mutex
	stats  Counts
	clock  ortClock
	closed bool
}

// session is one ONNX Runtime session with its reused buffers: the inputs
// and the output of one batch. One goroutine uses it at a time.
type session struct {
	sess                  *ort.DynamicAdvancedSession
	ids, mask, types, pos []int64
	hidden                []float32
	half                  []byte // the output of a float16 graph
	vec                   []float32
}

// ortClock measures the wall time during which at least one session is
// inside Run, so that Counts.ORT stays within Counts.Total with sessions in
// parallel.
type ortClock struct {
	mu       sync.Mutex
	inFlight int
	since    time.Time
	total    time.Duration
}

func (c *ortClock) enter() {
	c.mu.Lock()
	if c.inFlight == 0 {
		c.since = time.Now()
	}
	c.inFlight++
	c.mu.Unlock()
}

func (c *ortClock) leave() {
	c.mu.Lock()
	c.inFlight--
	if c.inFlight == 0 {
		c.total += time.Since(c.since)
	}
	c.mu.Unlock()
}

// New loads the model and tokenizer that cfg names and opens an ONNX Runtime
// session for them.
func New(cfg Config) (*Embedder, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.Threads == 0 {
		cfg.Threads = runtime.NumCPU()
	}
	m := cfg.Model
	modelFile, tokFile := cfg.ModelFile, cfg.TokenizerFile
	if modelFile == "" {
		if err := models.Verify(cfg.CacheDir, m); err != nil {
			return nil, fmt.Errorf("embed: %w", err) // names the file and the fix
		}
		modelFile, tokFile = m.Path(cfg.CacheDir, models.ModelFile), m.Path(cfg.CacheDir, models.TokenizerFile)
	}
	lib, err := LibraryPath(cfg.CacheDir)
	if err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	if err := initRuntime(lib); err != nil {
		return nil, fmt.Errorf("embed: %w", err)
	}
	fp, err := fingerprint(m, modelFile, tokFile, cfg.ModelFile == "")
	if err != nil {
		return nil, err
	}
	tok, err := tokenizer.Load(tokFile)
	if err != nil {
		return nil, fmt.Errorf("embed: model %s: loading tokenizer %s: %w", m.ID, tokFile, err)
	}
	gio, err := inspect(modelFile, m)
	if err != nil {
		return nil, err
	}
	quantized, err := dynamicallyQuantized(modelFile)
	if err != nil {
		return nil, fmt.Errorf("embed: model %s: %w", m.ID, err)
	}
	batchSize := cfg.BatchSize
	if batchSize == 0 {
		batchSize = DefaultBatchSize
		if quantized {
			batchSize = 1
		}
	}
	nsess := cfg.Sessions
	if nsess == 0 {
		nsess = 1
		if batchSize == 1 {
			nsess = cfg.Threads
		}
	}
	e := &Embedder{
		cfg: cfg, modelFile: modelFile, fingerprint: fp, tok: tok,
		io: gio, quantized: quantized, batchSize: batchSize, padID: tok.PadID(),
	}
	// Opening a session loads and optimises the model (a few hundred ms
	// of CPU for a small encoder): the sessions open in parallel, one per
	// core, so that more sessions cost no more wall time at start-up.
	sessions := make([]*ort.DynamicAdvancedSession, nsess)
	errs := make([]error, nsess)
	var wg sync.WaitGroup
	for i := range nsess {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sessions[i], errs[i] = openSession(modelFile, gio.inputs, gio.output, max(1, cfg.Threads/nsess), cfg.Spin)
		}()
	}
	wg.Wait()
	for _, s := range sessions {
		if s != nil {
			e.sessions = append(e.sessions, &session{sess: s})
		}
	}
	// Every session opens the same file: the first failure says it.
	for _, err := range errs {
		if err != nil {
			e.destroy()
			return nil, err
		}
	}
	return e, nil
}

// openSession opens one ONNX Runtime session of the model with threads
// intra-op threads.
func openSession(modelFile string, inputs []string, output string, threads int, spin bool) (*ort.DynamicAdvancedSession, error) {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return nil, fmt.Errorf("embed: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(threads); err != nil {
		return nil, fmt.Errorf("embed: intra-op threads: %w", err)
	}
	if err := opts.SetInterOpNumThreads(1); err != nil {
		return nil, fmt.Errorf("embed: inter-op threads: %w", err)
	}
	if !spin {
		if err := opts.AddSessionConfigEntry("session.intra_op.allow_spinning", "0"); err != nil {
			return nil, fmt.Errorf("embed: disabling spinning: %w", err)
		}
	}
	sess, err := ort.NewDynamicAdvancedSession(modelFile, inputs, []string{output}, opts)
	if err != nil {
		return nil, fmt.Errorf("embed: %s: opening session: %w", modelFile, err)
	}
	return sess, nil
}

// fingerprint identifies everything that decides a vector besides the text:
// the model and tokenizer bytes, pooling, max tokens, dimension and the CPU
// class. It keys
// the Store. Files just verified against the manifest are represented by the
// manifest's SHA-256 instead of being hashed a second time.
func fingerprint(m models.Model, modelFile, tokFile string, verified bool) (string, error) {
	h := sha256.New()
	if verified {
		mf, _ := m.File(models.ModelFile)
		tf, _ := m.File(models.TokenizerFile)
		fmt.Fprintf(h, "sha256:%s\x00sha256:%s", mf.SHA256, tf.SHA256)
		// A graph's external data (folder models only: the built-in ones
		// have none, so their fingerprints are unchanged).
		if df, ok := m.File(models.DataFile); ok {
			fmt.Fprintf(h, "\x00%s:sha256:%s", models.DataFile, df.SHA256)
		}
	} else {
		for _, p := range []string{modelFile, tokFile} {
			if err := hashFile(h, p); err != nil {
				return "", fmt.Errorf("embed: model %s: %w", m.ID, err)
			}
		}
	}
	fmt.Fprintf(h, "\x00pooling=%s\x00max=%d\x00dim=%d", m.Pooling, m.MaxTokens, m.Dimension)
	// ONNX Runtime's kernels round differently on another CPU class: a
	// cache dir shared with such a machine (a CI cache, qemu) must not
	// answer with its vectors (docs/portability.md).
	fmt.Fprintf(h, "\x00cpu=%s", cpuclass.Current())
	for _, kv := range m.Settings() { // none for the built-in models
		fmt.Fprintf(h, "\x00%s", kv)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

func hashFile(w io.Writer, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if _, err := io.Copy(w, f); err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	return nil
}

// dynamicallyQuantized reports whether the ONNX file at path uses the
// DynamicQuantizeLinear operator. The op type is a plain string in the
// protobuf, so a byte search over the file finds it without a parser.
func dynamicallyQuantized(path string) (bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	needle := []byte("DynamicQuantizeLinear")
	buf := make([]byte, 1<<20+len(needle))
	keep := 0 // bytes carried over so a match across reads is seen
	for {
		n, err := io.ReadFull(f, buf[keep:])
		if bytes.Contains(buf[:keep+n], needle) {
			return true, nil
		}
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return false, nil
		}
		if err != nil {
			return false, fmt.Errorf("reading %s: %w", path, err)
		}
		keep = copy(buf, buf[keep+n-len(needle)+1:keep+n])
	}
}

// Sessions returns the number of ONNX Runtime sessions that run batches in
// parallel.
func (e *Embedder) Sessions() int { return len(e.sessions) }

// BatchSize returns the number of texts per model run in use.
func (e *Embedder) BatchSize() int { return e.batchSize }

// Quantized reports whether the model quantizes activations per batch, so
// that only a batch size of 1 makes vectors independent of batch companions.
func (e *Embedder) Quantized() bool { return e.quantized }

// Model returns the manifest entry the Embedder runs.
func (e *Embedder) Model() models.Model { return e.cfg.Model }

// Dim returns the vector dimension.
func (e *Embedder) Dim() int { return e.cfg.Model.Dimension }

// Fingerprint returns a hex SHA-256 of the model file, the tokenizer file,
// pooling, max tokens, dimension and CPU class: equal fingerprints embed
// equally.
func (e *Embedder) Fingerprint() string { return e.fingerprint }

// Stats returns the counters accumulated since New.
func (e *Embedder) Stats() Counts {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.stats
}

// EmbedQueries embeds search queries, each with the model's query prefix.
func (e *Embedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return e.Embed(ctx, texts, e.cfg.Model.QueryPrefix)
}

// EmbedPassages embeds documents, each with the model's passage prefix.
func (e *Embedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return e.Embed(ctx, texts, e.cfg.Model.PassagePrefix)
}

// Embed returns one unit-length vector per text, in order, each computed
// from prefix+text.
func (e *Embedder) Embed(ctx context.Context, texts []string, prefix string) ([][]float32, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil, fmt.Errorf("embed: model %s: Embed after Close", e.cfg.Model.ID)
	}
	start := time.Now()
	defer func() { e.stats.Total += time.Since(start) }()

	encs := e.tokenize(texts, prefix)
	lengths := make([]int, len(encs))
	for i, enc := range encs {
		lengths[i] = len(enc.IDs)
		e.stats.Tokens += len(enc.IDs)
		if enc.Truncated {
			e.stats.Truncated++
		}
	}
	e.stats.Texts += len(texts)

	dim := e.cfg.Model.Dimension
	flat := make([]float32, len(texts)*dim) // one allocation for all vectors
	out := make([][]float32, len(texts))
	for i := range out {
		out[i] = flat[i*dim : (i+1)*dim : (i+1)*dim]
	}
	if err := e.runBatches(ctx, encs, batches(lengths, e.batchSize), out); err != nil {
		return nil, err
	}
	return out, nil
}

// runBatches runs the batches on the sessions, each session taking the next
// batch in order when it is free; the first error stops the others.
func (e *Embedder) runBatches(ctx context.Context, encs []tokenizer.Encoding, bs [][]int, out [][]float32) error {
	var (
		mu       sync.Mutex // guards next, done, firstErr, e.stats and Progress calls
		next     int
		done     int
		firstErr error
		wg       sync.WaitGroup
	)
	start := e.clock.total
	for _, s := range e.sessions[:min(len(e.sessions), len(bs))] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				mu.Lock()
				if firstErr == nil {
					firstErr = ctx.Err()
				}
				if firstErr != nil || next == len(bs) {
					mu.Unlock()
					return
				}
				b := bs[next]
				next++
				mu.Unlock()
				padded, err := e.runBatch(s, encs, b, out)
				mu.Lock()
				if err != nil {
					if firstErr == nil {
						firstErr = err
					}
					mu.Unlock()
					return
				}
				e.stats.Batches++
				e.stats.Padded += padded
				done += len(b)
				if e.cfg.Progress != nil {
					e.cfg.Progress(done, len(encs))
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	e.stats.ORT += e.clock.total - start
	return firstErr
}

// tokenize encodes prefix+text for every text, spread over the cores.
func (e *Embedder) tokenize(texts []string, prefix string) []tokenizer.Encoding {
	encs := make([]tokenizer.Encoding, len(texts))
	workers := min(runtime.NumCPU(), len(texts))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(texts); i += workers {
				encs[i] = e.tok.Encode(prefix+texts[i], e.cfg.Model.MaxTokens)
			}
		}()
	}
	wg.Wait()
	return encs
}

// runBatch runs the texts idx of encs through session s, padded to the
// longest of them on the model's padding side, and writes their pooled,
// truncated and (unless the model says not to) normalised vectors into out.
// It returns the number of tokens fed, padding included.
func (e *Embedder) runBatch(s *session, encs []tokenizer.Encoding, idx []int, out [][]float32) (int, error) {
	m := e.cfg.Model
	n, seq := len(idx), 0
	for _, i := range idx {
		seq = max(seq, len(encs[i].IDs))
	}
	if seq == 0 {
		return 0, fmt.Errorf("embed: model %s: tokenizer returned no tokens", m.ID)
	}
	width := e.io.width
	size := n * seq
	s.ids = grow(s.ids, size)
	s.mask = grow(s.mask, size)
	s.types = grow(s.types, size)
	s.pos = grow(s.pos, size)
	for i := range s.ids[:size] {
		s.ids[i] = e.padID
	}
	clear(s.mask[:size])
	clear(s.types[:size])
	clear(s.pos[:size])
	for r, i := range idx {
		enc := encs[i]
		at := r * seq // right padding: the text first
		if m.PaddingSide == models.PadLeft {
			at += seq - len(enc.IDs)
		}
		copy(s.ids[at:], enc.IDs)
		copy(s.mask[at:], enc.Mask)
		copy(s.types[at:], enc.TypeIDs)
		// Positions count the real tokens from 0 wherever they sit; padding
		// gets 0 (masked out, it never reaches a vector).
		for t := range enc.IDs {
			s.pos[at+t] = int64(t)
		}
	}
	shape := ort.NewShape(int64(n), int64(seq))
	var vals []ort.Value
	defer func() {
		for _, v := range vals {
			v.Destroy()
		}
	}()
	bufs := [][]int64{s.ids, s.mask}
	if e.io.types {
		bufs = append(bufs, s.types)
	}
	if e.io.positions {
		bufs = append(bufs, s.pos)
	}
	for _, buf := range bufs {
		t, err := ort.NewTensor(shape, buf[:size])
		if err != nil {
			return 0, fmt.Errorf("embed: input tensor: %w", err)
		}
		vals = append(vals, t)
	}
	rows := seq // output rows per text
	if e.io.pooled {
		rows = 1
	}
	outShape := ort.NewShape(int64(n), int64(seq), int64(width))
	if e.io.pooled {
		outShape = ort.NewShape(int64(n), int64(width))
	}
	s.hidden = grow(s.hidden, n*rows*width)
	if e.io.half {
		s.half = grow(s.half, 2*n*rows*width)
		t, err := ort.NewCustomDataTensor(outShape, s.half[:2*n*rows*width], ort.TensorElementDataTypeFloat16)
		if err != nil {
			return 0, fmt.Errorf("embed: output tensor: %w", err)
		}
		vals = append(vals, t)
	} else {
		t, err := ort.NewTensor(outShape, s.hidden[:n*rows*width])
		if err != nil {
			return 0, fmt.Errorf("embed: output tensor: %w", err)
		}
		vals = append(vals, t)
	}

	e.clock.enter()
	err := s.sess.Run(vals[:len(vals)-1], vals[len(vals)-1:])
	e.clock.leave()
	if err != nil {
		return 0, fmt.Errorf("embed: %s: running batch of %d×%d: %w", e.modelFile, n, seq, err)
	}
	if e.io.half {
		for j := range s.hidden[:n*rows*width] {
			s.hidden[j] = halfToFloat(binary.LittleEndian.Uint16(s.half[2*j:]))
		}
	}
	s.vec = grow(s.vec, width)
	for r, i := range idx {
		h := s.hidden[r*rows*width : (r+1)*rows*width]
		if e.io.pooled {
			copy(s.vec, h)
		} else if err := pool(m.Pooling, h, s.mask[r*seq:(r+1)*seq], seq, width, s.vec); err != nil {
			return 0, fmt.Errorf("embed: model %s: %w", m.ID, err)
		}
		copy(out[i], s.vec[:m.Dimension]) // a Matryoshka model keeps its first components
		if m.Normalized() {
			normalize(out[i])
		}
	}
	return size, nil
}

// grow returns s with length at least n, reusing its storage when it can.
func grow[T any](s []T, n int) []T {
	if cap(s) >= n {
		return s[:n]
	}
	return make([]T, n)
}

// Close releases the session. The Embedder must not be used afterwards; the
// process-wide ONNX Runtime environment stays loaded.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	e.closed = true
	return e.destroy()
}

// destroy releases the sessions.
func (e *Embedder) destroy() error {
	var errs []error
	for _, s := range e.sessions {
		if err := s.sess.Destroy(); err != nil {
			errs = append(errs, fmt.Errorf("embed: closing session for %s: %w", e.cfg.Model.ID, err))
		}
	}
	e.sessions = nil
	return errors.Join(errs...)
}
