package external

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/atomicfile"
	"github.com/retrievalbench/retrievalbench/systems"
)

var (
	_ systems.System        = (*System)(nil)
	_ systems.QuerySearcher = (*System)(nil)
	_ systems.FileIndexer   = (*System)(nil)
)

// indexedMarker is written into the work directory once the index command
// has succeeded; its content is the config hash.
const indexedMarker = ".retrievalbench-indexed"

// System is an external retrieval system driven by a Config.
type System struct {
	cfg *Config
	opt systems.Options
	rt  *runtime
	t   transport
	m   *mapping

	outside int     // hits whose path was outside the corpus
	peak    peakRSS // of the child processes, for PeakRSS
}

// runtime is what a transport needs once the corpus is handed over.
type runtime struct {
	cfg  *Config
	name string
	env  []string // the process environment plus the config's env
	work string   // the work directory, cwd of every child
	red  *redactor
	base vars // {corpus} {work} {cache} {port}
	life context.Context
	logf func(format string, args ...any)
	peak *peakRSS

	retries retryStats // of the HTTP requests, for Warnings
}

// roundTripper is what every HTTP request of the system goes through: a
// fresh transport (its own connections), retried as the config's retry
// says.
func (rt *runtime) roundTripper() http.RoundTripper {
	base := http.DefaultTransport.(*http.Transport).Clone()
	if rt.cfg.Retry == nil {
		return base
	}
	seed, _ := strconv.ParseUint(rt.cfg.Hash()[:16], 16, 64)
	return newRetrier(base, *rt.cfg.Retry, seed, &rt.retries, rt.logf)
}

// transport runs the calls of one query.
type transport interface {
	// start is called once, after the index command: servers start here.
	start(ctx context.Context) error
	// call runs the query's calls with v; it returns the result to map and
	// v with the values the calls captured.
	call(ctx context.Context, v vars) (payload, vars, error)
	// close stops what start started; it is safe to call more than once.
	close()
}

// New returns the system cfg describes. Nothing runs until Index.
func New(cfg *Config, opt systems.Options) (*System, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if opt.CacheDir == "" {
		return nil, fmt.Errorf("%s: Options.CacheDir is empty (the corpus is handed over under it)", cfg.Name())
	}
	return &System{cfg: cfg, opt: opt}, nil
}

// PeakRSS returns the largest peak resident set size, in bytes, of the
// processes the system ran and saw exit — the index command, the server,
// one process per query — as the kernel reports it when each is reaped
// (ru_maxrss, Linux). A server counts once Close has stopped it; 0 before
// any process exited. This is the peer's memory, not the caller's.
func (s *System) PeakRSS() uint64 { return s.peak.bytes() }

// WholeFiles reports true: an external system indexes the corpus's files
// by its own rules.
func (s *System) WholeFiles() bool { return true }

// Index hands the corpus over as a directory tree, writes the config's
// files, runs the index command (unless a previous run with the same config
// and corpus completed it and Options.NoCache is false) and starts the
// server.
func (s *System) Index(ctx context.Context, c *corpus.Corpus) error {
	if s.rt != nil {
		return fmt.Errorf("%s: Index called twice", s.cfg.Name())
	}
	cfg, cache := s.cfg, s.opt.CacheDir
	logf := s.opt.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	chash := c.Hash()
	dir := ""
	if !cfg.Corpus.None {
		var err error
		if cfg.Corpus.JSONL {
			dir, err = corpusJSONL(cache, c, chash)
		} else {
			dir, err = corpusDir(ctx, cache, c, chash, cfg.Corpus.Git)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", cfg.Name(), err)
		}
	}
	hash := cfg.Hash()
	work := filepath.Join(cache, "external", "work", cfg.System, cfg.Config+"-"+hash[:12], chash[:16])
	if s.opt.NoCache {
		if err := os.RemoveAll(work); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	base := map[string]string{phCorpus: dir, phWork: work, phCache: cache}
	if cfg.hasPort() {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("%s: choosing a port: %w", cfg.Name(), err)
		}
		base[phPort] = strconv.Itoa(port)
	}
	v := vars{ph: base, getenv: os.LookupEnv}
	env := cfg.baseEnv()
	set := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		x, err := v.expand(cfg.Env[k])
		if err != nil {
			return fmt.Errorf("%s: env %s: %w", cfg.Name(), k, err)
		}
		set[k] = x
		env = append(env, k+"="+x)
	}
	red := newRedactor(cfg.secretValues(func(name string) (string, bool) {
		if x, ok := set[name]; ok {
			return x, true
		}
		return os.LookupEnv(name)
	}))
	rt := &runtime{cfg: cfg, name: cfg.Name(), env: env, work: work, red: red, base: v, peak: &s.peak, logf: func(format string, args ...any) {
		logf("%s", red.String(fmt.Sprintf(format, args...)))
	}}
	rt.logf("%s: corpus %s (%d files) in %s", rt.name, c.ID, len(c.Docs), dir)
	if err := writeFiles(rt, cfg.Files); err != nil {
		return err
	}
	if err := runIndex(ctx, rt, hash); err != nil {
		return err
	}
	strip, err := v.expand(cfg.Result.StripPrefix)
	if err != nil {
		return fmt.Errorf("%s: result.strip_prefix: %w", cfg.Name(), err)
	}
	dirs := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		dirs = append(dirs, real)
	}
	s.m = &mapping{spec: cfg.Result, strip: strip, dirs: dirs, red: red}
	if cfg.Result.From == FromText {
		s.m.re = regexp.MustCompile(cfg.Result.ItemRegex) // Validate compiled it
	}
	var cancel context.CancelFunc
	rt.life, cancel = context.WithCancel(context.Background())
	switch cfg.Transport {
	case TransportMCP:
		s.t = &mcpTransport{rt: rt}
	case TransportCommand:
		s.t = &commandTransport{rt: rt}
	case TransportHTTP:
		s.t = &httpTransport{rt: rt}
	}
	s.t = &lifetime{transport: s.t, cancel: cancel}
	s.rt = rt
	sctx, scancel := context.WithTimeout(ctx, cfg.startTimeout())
	defer scancel()
	if err := s.t.start(sctx); err != nil {
		return red.Error(fmt.Errorf("%s: starting: %w", rt.name, err))
	}
	return nil
}

// lifetime ends the context of the transport's servers on close.
type lifetime struct {
	transport
	cancel context.CancelFunc
}

func (l *lifetime) close() {
	l.transport.close()
	l.cancel()
}

func writeFiles(rt *runtime, files map[string]string) error {
	for _, k := range slices.Sorted(maps.Keys(files)) {
		name, err := rt.base.expand(k)
		if err != nil {
			return fmt.Errorf("%s: files %q: %w", rt.name, k, err)
		}
		if !filepath.IsAbs(name) {
			name = filepath.Join(rt.work, name)
		}
		if _, ok := relPath([]string{rt.work}, name); !ok {
			return fmt.Errorf("%s: files %q: %s is outside the work directory %s", rt.name, k, name, rt.work)
		}
		text, err := rt.base.expand(files[k])
		if err != nil {
			return rt.red.Error(fmt.Errorf("%s: files %q: %w", rt.name, k, err))
		}
		if err := atomicfile.WriteFile(name, []byte(text)); err != nil {
			return fmt.Errorf("%s: files %q: %w", rt.name, k, err)
		}
	}
	return nil
}

func runIndex(ctx context.Context, rt *runtime, hash string) error {
	ix := rt.cfg.Index
	if ix == nil {
		return nil
	}
	marker := filepath.Join(rt.work, indexedMarker)
	if b, err := os.ReadFile(marker); err == nil && string(b) == hash {
		rt.logf("%s: index reused from %s", rt.name, rt.work)
		return nil
	}
	argv, err := rt.base.expandAll(ix.Command)
	if err != nil {
		return rt.red.Error(fmt.Errorf("%s: index.command: %w", rt.name, err))
	}
	ctx, cancel := context.WithTimeout(ctx, rt.cfg.indexTimeout())
	defer cancel()
	start := time.Now()
	stop := heartbeat(heartbeatEvery, rt.cfg.indexTimeout(), rt.logf, rt.name+": indexing")
	_, _, err = run(ctx, argv, rt.env, rt.work, -1, rt.red, rt.peak)
	stop()
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%s: index: timed out after %s (index.timeout): %w", rt.name, rt.cfg.indexTimeout(), err)
		}
		return fmt.Errorf("%s: index: %w", rt.name, err)
	}
	rt.logf("%s: indexed in %s", rt.name, time.Since(start).Round(time.Millisecond))
	return atomicfile.WriteFile(marker, []byte(hash))
}

// freePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Search is SearchQuery without task facts.
func (s *System) Search(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	return s.SearchQuery(ctx, systems.Query{Text: query}, k)
}

// SearchQuery runs the query's calls and maps the result to at most k
// hits. A failed call is an error for this query only: the next query runs
// (restarting a server that died or hung).
func (s *System) SearchQuery(ctx context.Context, q systems.Query, k int) ([]systems.Hit, error) {
	if s.t == nil {
		return nil, fmt.Errorf("%s: Search before Index", s.cfg.Name())
	}
	rt := s.rt
	v := rt.base.with(phQuery, q.Text, phK, strconv.Itoa(k), phLibrary, q.Library, phRepo, q.Repo)
	release, err := acquire(ctx, s.cfg.Name(), s.cfg.MaxConcurrency)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rt.name, err)
	}
	p, v, err := s.t.call(ctx, v)
	release()
	if err != nil {
		return nil, rt.red.Error(fmt.Errorf("%s: %w", rt.name, err))
	}
	hits, outside, err := s.m.hits(p, k)
	if err != nil {
		err = fmt.Errorf("%s: %s: mapping the result: %w", rt.name, taskName(q), err)
		if p.stderr != "" {
			err = fmt.Errorf("%w\nstderr (last %d bytes):\n%s", err, stderrTail, p.stderr)
		}
		return nil, rt.red.Error(err)
	}
	if s.cfg.Result.Library != "" {
		lib, err := v.expand(s.cfg.Result.Library)
		if err != nil {
			return nil, rt.red.Error(fmt.Errorf("%s: result.library: %w", rt.name, err))
		}
		for i := range hits {
			hits[i].Library = lib
		}
	}
	if outside > 0 {
		if s.outside == 0 {
			rt.logf("%s: a hit outside the corpus %s was kept as a non-matching hit (see Warnings)", rt.name, s.m.dirs[0])
		}
		s.outside += outside
	}
	return hits, nil
}

// taskName names q's task in an error: its id, else its query.
func taskName(q systems.Query) string {
	if q.Task != "" {
		return "task " + q.Task
	}
	return fmt.Sprintf("query %q", snippetN(q.Text, 80))
}

// Warnings returns what went wrong without failing a query, as data for
// the caller's report: hits outside the corpus.
func (s *System) Warnings() []string {
	if s.outside == 0 {
		return s.retryWarnings()
	}
	return append([]string{fmt.Sprintf("%s: %d hits named a path outside the corpus and matched nothing", s.cfg.Name(), s.outside)}, s.retryWarnings()...)
}

// retryWarnings is the retries' line of Warnings, if any were made.
func (s *System) retryWarnings() []string {
	if s.rt == nil || s.cfg.Retry == nil {
		return nil
	}
	if w := s.rt.retries.warning(s.cfg.Name(), s.cfg.Retry.Attempts); w != "" {
		return []string{w}
	}
	return nil
}

// Close stops every process the system started (their whole process
// groups) and waits for them.
func (s *System) Close() error {
	if s.t != nil {
		s.t.close()
	}
	return nil
}

// callTimeout wraps a call error from a context that ended with which one:
// the per-call timeout, or the caller's context.
func callTimeout(ctx, callCtx context.Context, what string, d time.Duration, err error) error {
	if ctx.Err() == nil && errors.Is(callCtx.Err(), context.DeadlineExceeded) {
		return fmt.Errorf("%s: timed out after %s (timeout): %w", what, d, err)
	}
	return fmt.Errorf("%s: %w", what, err)
}
