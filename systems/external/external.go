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
	"slices"
	"strconv"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/corpusdir"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/mapping"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/redact"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
)

var (
	_ systems.QuerySearcher = (*System)(nil)
	_ systems.FileIndexer   = (*System)(nil)
	_ systems.Warner        = (*System)(nil)
	_ systems.IndexReporter = (*System)(nil)
)

// System is an external retrieval system driven by a Config.
type System struct {
	cfg *Config
	opt systems.Options
	rt  *runtime
	t   transport
	m   *mapping.Mapping

	outside  int         // hits whose path was outside the corpus, in all
	retried  retryCounts // the retries' counts when Warnings last reported them
	warnings []string    // noticed since the last Warnings call
	index    systems.IndexReport
	peak     proc.PeakRSS // of the child processes, for PeakRSS
	unlock   func()       // releases the work directory (lockWork)
}

// runtime is what a transport needs once the corpus is handed over.
type runtime struct {
	cfg  *Config
	name string
	env  []string // the process environment plus the config's env
	work string   // the work directory, cwd of every child
	red  *redact.Redactor
	base template.Vars // {corpus} {work} {cache} {port}
	life context.Context
	logf func(format string, args ...any)
	peak *proc.PeakRSS

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
	call(ctx context.Context, v template.Vars) (mapping.Payload, template.Vars, error)
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
// (ru_maxrss, Linux) where that figure is the child's own, and as sampled
// from /proc while it ran where it is not (proc.PeakRSS says when). A server
// counts once Close has stopped it; 0 before any process exited. This is
// the peer's memory, not the caller's.
func (s *System) PeakRSS() uint64 { return s.peak.Bytes() }

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
			dir, err = corpusdir.JSONL(cache, c, chash)
		} else {
			dir, err = corpusdir.Tree(ctx, cache, c, chash, cfg.Corpus.Git)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", cfg.Name(), err)
		}
	}
	hash := cfg.Hash()
	work := filepath.Join(cache, "external", "work", cfg.System, cfg.Config+"-"+hash[:12], chash[:16])
	// The work directory is this process's until Close (worklock.go).
	unlock, err := lockWork(ctx, work, logf)
	if err != nil {
		return fmt.Errorf("%s: %w", cfg.Name(), err)
	}
	if s.unlock != nil { // an earlier Index that failed
		s.unlock()
	}
	s.unlock = unlock
	base := map[string]string{template.PhCorpus: dir, template.PhWork: work, template.PhCache: cache}
	tool := ""
	if cfg.Index != nil {
		var err error
		if tool, err = toolKey(ctx, cfg, template.Vars{Values: base, Getenv: os.LookupEnv}); err != nil {
			// Without the tool's version no index can be trusted: build one.
			logf("%s: the index will not be reused: %v", cfg.Name(), err)
		}
	}
	clear := s.opt.NoCache
	if m, ok := readMarker(work); ok && !clear && (m.ConfigHash != hash || m.Tool != tool || tool == "") {
		// Another tool version's state is not the input of this one's.
		logf("%s: the index in %s was built by %q, the tool now is %q: building a new one", cfg.Name(), work, m.Tool, tool)
		clear = true
	}
	if clear {
		if err := os.RemoveAll(work); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	if cfg.HasPort() {
		port, err := freePort()
		if err != nil {
			return fmt.Errorf("%s: choosing a port: %w", cfg.Name(), err)
		}
		base[template.PhPort] = strconv.Itoa(port)
	}
	v := template.Vars{Values: base, Getenv: os.LookupEnv}
	env := cfg.BaseEnv()
	set := map[string]string{}
	for _, k := range slices.Sorted(maps.Keys(cfg.Env)) {
		x, err := v.Expand(cfg.Env[k])
		if err != nil {
			return fmt.Errorf("%s: env %s: %w", cfg.Name(), k, err)
		}
		set[k] = x
		env = append(env, k+"="+x)
	}
	red := redact.New(cfg.SecretValues(func(name string) (string, bool) {
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
	rep, err := runIndex(ctx, rt, indexMarker{ConfigHash: hash, Tool: tool})
	if err != nil {
		return err
	}
	s.index = rep
	strip, err := v.Expand(cfg.Result.StripPrefix)
	if err != nil {
		return fmt.Errorf("%s: result.strip_prefix: %w", cfg.Name(), err)
	}
	dirs := []string{dir}
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		dirs = append(dirs, real)
	}
	s.m = mapping.New(cfg.Result, strip, dirs, red)
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
	sctx, scancel := context.WithTimeout(ctx, cfg.StartWait())
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
	v := rt.base.With(template.PhQuery, q.Text, template.PhK, strconv.Itoa(k), template.PhLibrary, q.Library, template.PhRepo, q.Repo)
	release, err := acquire(ctx, s.cfg.Name(), s.cfg.MaxConcurrency)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", rt.name, err)
	}
	p, v, err := s.t.call(ctx, v)
	release()
	if err != nil {
		return nil, rt.red.Error(fmt.Errorf("%s: %w", rt.name, err))
	}
	hits, outside, err := s.m.Hits(p, k)
	if err != nil {
		err = fmt.Errorf("%s: %s: mapping the result: %w", rt.name, taskName(q), err)
		if p.Stderr != "" {
			err = fmt.Errorf("%w\nstderr (last %d bytes):\n%s", err, proc.StderrTail, p.Stderr)
		}
		return nil, rt.red.Error(err)
	}
	if s.cfg.Result.Library != "" {
		lib, err := v.Expand(s.cfg.Result.Library)
		if err != nil {
			return nil, rt.red.Error(fmt.Errorf("%s: result.library: %w", rt.name, err))
		}
		for i := range hits {
			hits[i].Library = lib
		}
	}
	if outside > 0 {
		if s.outside == 0 {
			rt.logf("%s: a hit outside the corpus %s was kept as a non-matching hit (see Warnings)", rt.name, s.m.Dir())
		}
		s.outside += outside
		s.warnings = append(s.warnings, fmt.Sprintf("%s: %d of %d hits named a path outside the corpus and match nothing (kept at their ranks)", rt.name, outside, len(hits)))
	}
	if n := repeats(hits); n > 0 {
		s.warnings = append(s.warnings, fmt.Sprintf("%s: %d of %d hits repeat an earlier hit of the same answer (path, lines and symbol)", rt.name, n, len(hits)))
	}
	return hits, nil
}

// repeats counts the hits that name the same place (path, lines, symbol)
// as an earlier one; hits without a path or symbol (outside the corpus, a
// text blob) are not compared.
func repeats(hits []systems.Hit) int {
	type place struct {
		path, symbol string
		start, end   int
	}
	seen := map[place]bool{}
	n := 0
	for _, h := range hits {
		if h.Path == "" && h.Symbol == "" {
			continue
		}
		p := place{h.Path, h.Symbol, h.StartLine, h.EndLine}
		if seen[p] {
			n++
		}
		seen[p] = true
	}
	return n
}

// taskName names q's task in an error: its id, else its query.
func taskName(q systems.Query) string {
	if q.Task != "" {
		return "task " + q.Task
	}
	return fmt.Sprintf("query %q", mapping.SnippetN(q.Text, 80))
}

// retryWarnings is the retries' line of Warnings: the retries made since
// Warnings was last called (so one task's line counts that task's).
func (s *System) retryWarnings() []string {
	if s.rt == nil || s.cfg.Retry == nil {
		return nil
	}
	now := s.rt.retries.load()
	w := now.warning(s.retried, s.cfg.Name(), s.cfg.Retry.Attempts)
	s.retried = now
	if w == "" {
		return nil
	}
	return []string{w}
}

// Warnings returns what went wrong without failing a query since the last
// call (systems.Warner), as data for the caller's report: hits outside the
// corpus and hits repeated within one answer, one sentence per answer, and
// the retries made since the last call, if any.
func (s *System) Warnings() []string {
	w := append(s.warnings, s.retryWarnings()...)
	s.warnings = nil
	return w
}

// IndexReport says whether Index reused an index an earlier run built
// with the same config and tool version, and how long building it took
// (systems.IndexReporter). A config without an index command builds
// nothing: its report is zero.
func (s *System) IndexReport() systems.IndexReport { return s.index }

// Close stops every process the system started (their whole process
// groups) and waits for them.
func (s *System) Close() error {
	if s.t != nil {
		s.t.close()
	}
	if s.unlock != nil {
		s.unlock()
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

// searchGrace is what SearchTimeout adds to the config's limits: the time
// to kill a process group and read its stderr once a limit is hit, so the
// config's own limit, which names its field, fires first.
const searchGrace = 10 * time.Second

var _ systems.SearchBounder = (*System)(nil)

// SearchTimeout is the most one Search may take by the config: "timeout"
// for each call of the query (each MCP call of mcp.calls), plus
// "start_timeout" for a server that is restarted first, plus searchGrace.
// The harness raises its task timeout to it, so a config's "timeout"
// above the task timeout (60 s by default) is the one that applies.
func (s *System) SearchTimeout() time.Duration {
	calls := 1
	if s.cfg.MCP != nil && len(s.cfg.MCP.Calls) > 1 {
		calls = len(s.cfg.MCP.Calls)
	}
	d := time.Duration(calls)*s.cfg.CallTimeout() + searchGrace
	if s.cfg.Transport != "command" {
		d += s.cfg.StartWait()
	}
	return d
}
