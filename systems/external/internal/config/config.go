// Package config is the language of an external system's JSON config: its
// types (Config and its sections), Load/Parse with every problem reported as
// file:line: field: message, Validate, Hash (what can change results, no
// secret values), Versions, Unmet requirements and the environment a child
// sees. Package external re-exports it; docs/external-systems.md describes
// every field.
package config

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/retrievalbench/retrievalbench/cache"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/mapping"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/redact"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
	"github.com/retrievalbench/retrievalbench/systems/internal/sysconfig"
)

// HashVersion is part of every Config hash: bump it when this package
// changes how a config turns into hits (mapping, templating, corpus layout),
// so golden files made by the old code are recognised as stale.
const HashVersion = "external-v1"

// Transport names.
const (
	TransportMCP     = "mcp"
	TransportCommand = "command"
	TransportHTTP    = "http"
)

// MCP transports over HTTP (mcp.http_transport).
const (
	MCPStreamable = "streamable" // Streamable HTTP (MCP 2025-03-26 and later)
	MCPSSE        = "sse"        // HTTP+SSE (MCP 2024-11-05)
)

// Defaults of the optional limits.
const (
	DefaultTimeout        = 60 * time.Second
	DefaultIndexTimeout   = 30 * time.Minute
	DefaultStartTimeout   = 2 * time.Minute
	DefaultMaxOutputBytes = 8 << 20
)

// ErrInvalidConfig is wrapped by every error Load and Validate return.
var ErrInvalidConfig = errors.New("invalid external config")

// Config is one external system configuration, read from a JSON file by
// Load. docs/external-systems.md describes every field.
type Config struct {
	System      string `json:"system"`
	Config      string `json:"config"`
	Description string `json:"description,omitempty"`

	DeclaredVersions map[string]string `json:"versions,omitempty"`
	VersionCommand   []string          `json:"version_command,omitempty"`
	Requires         []Requirement     `json:"requires,omitempty"`

	Env map[string]string `json:"env,omitempty"`
	// EnvPass names the variables of the benchmark's environment a child
	// inherits besides DefaultEnvPass ("*": all of them).
	EnvPass []string          `json:"env_pass,omitempty"`
	Secrets []string          `json:"secrets,omitempty"`
	Corpus  CorpusSpec        `json:"corpus"`
	Files   map[string]string `json:"files,omitempty"`
	Index   *IndexSpec        `json:"index,omitempty"`

	Transport string       `json:"transport"`
	MCP       *MCPSpec     `json:"mcp,omitempty"`
	Command   *CommandSpec `json:"command,omitempty"`
	HTTP      *HTTPSpec    `json:"http,omitempty"`
	Result    ResultSpec   `json:"result"`

	Timeout        string `json:"timeout,omitempty"`       // per search call; default 60s
	StartTimeout   string `json:"start_timeout,omitempty"` // server start and handshake; default 2m
	MaxOutputBytes int    `json:"max_output_bytes,omitempty"`
	WholeFiles     *bool  `json:"whole_files,omitempty"` // accepted for clarity; must be true
	// Retry retries requests to an HTTP service or an MCP server over HTTP
	// (nil: no retries); MaxConcurrency bounds the queries of this config
	// in flight at once in this process (0: no bound). Not hashed: they
	// decide whether a call fails, not what it returns.
	Retry          *RetrySpec `json:"retry,omitempty"`
	MaxConcurrency int        `json:"max_concurrency,omitempty"`

	// How the benchmark checks it (see systems.Schedule): how far below golden a
	// measure may fall and why (0: the tool ranks identically on every
	// run), and whether it is heavy (slow to index: fewer datasets at the CI
	// size). Not hashed: they decide the check, not the results.
	Tolerance       float64 `json:"tolerance,omitempty"`
	ToleranceReason string  `json:"tolerance_reason,omitempty"`
	Heavy           bool    `json:"heavy,omitempty"`
	// FixturesOnly runs the system on the hermetic fixtures alone at the CI
	// size unless -heavy asks for more (systems.Spec.Bench.FixturesOnly):
	// for a config whose every data-pack cell costs a cold index of its own.
	// Not hashed.
	FixturesOnly bool `json:"fixtures_only,omitempty"`
	// Only names the "family/dataset" cells the system runs in (patterns;
	// empty: all), e.g. ["repoqa/*", "sweqa/sweqa"].
	Only []string `json:"only,omitempty"`
	// Unsupported names the cells the system has but cannot do, each
	// with the reason ("the tool reads no .go files"): they skip by design
	// and print it (systems.Schedule.Unsupported). Not hashed.
	Unsupported []UnsupportedSpec `json:"unsupported,omitempty"`
	// MaxDocs holds the system to datasets of at most this many documents
	// (chunks) unless -heavy asks for more; MaxDocsReason says what a bigger
	// corpus costs it (systems.Spec.Bench.MaxDocs). Not hashed.
	MaxDocs       int    `json:"max_docs,omitempty"`
	MaxDocsReason string `json:"max_docs_reason,omitempty"`

	file string   // the file Load read, for messages
	pos  posIndex // field path → line of the file
	// templated is every templated string Validate checked, with its
	// field: what checkEnv reads.
	templated [][2]string
}

// UnsupportedSpec is one "family/dataset" pattern the system cannot do,
// and why (systems.Unsupported).
type UnsupportedSpec struct {
	Datasets string `json:"datasets"`
	Reason   string `json:"reason"`
}

// Requirement is something the system needs on this machine; Unmet
// reports the ones that are missing so a test can skip (or fail) loudly.
type Requirement struct {
	Kind    string `json:"kind,omitempty"`    // testenv requirement kind; default "peer"
	Path    string `json:"path,omitempty"`    // a file that must exist (templated: {cache}, ${ENV})
	Env     string `json:"env,omitempty"`     // an environment variable that must be set
	Program string `json:"program,omitempty"` // a program that must be on PATH
	Hint    string `json:"hint,omitempty"`    // how to get it ("make peers")
}

// ResultSpec maps a result to hits (package mapping).
type ResultSpec = mapping.Spec

// CorpusSpec says how the corpus is handed over.
type CorpusSpec struct {
	Git bool `json:"git,omitempty"` // git init + one commit with a fixed author and date
	// None: the system does not read the corpus (a hosted documentation
	// service answers from its own index), so nothing is handed over and
	// {corpus} is empty; document collections without paths are fine then.
	None bool `json:"none,omitempty"`
	// JSONL: the corpus is handed over as one file, {corpus}/docs.jsonl, a
	// line {"_id", "title", "text", "path"} per doc (BEIR's corpus.jsonl
	// shape): for document collections, whose docs have ids but no paths.
	JSONL bool `json:"jsonl,omitempty"`
}

// IndexSpec is a command run once per corpus before the server starts or
// the first search.
type IndexSpec struct {
	Command []string `json:"command"`
	Timeout string   `json:"timeout,omitempty"` // default 30m
}

// MCPSpec is a server — over stdio, or over HTTP at URL — and the tool
// calls of one query.
type MCPSpec struct {
	// Command is the stdio server, or with URL a local HTTP server started
	// with a free port as {port} (none: a hosted server).
	Command []string  `json:"command,omitempty"`
	Calls   []MCPCall `json:"calls"`
	// URL is the endpoint of an MCP server over HTTP; HTTPTransport says
	// which transport it speaks: "streamable" (Streamable HTTP, the
	// default) or "sse" (the older HTTP+SSE, 2024-11-05). Headers are sent
	// with every request (templates: ${KEY} for a secret).
	URL           string            `json:"url,omitempty"`
	HTTPTransport string            `json:"http_transport,omitempty"`
	Headers       map[string]string `json:"headers,omitempty"`
	// ReadyURL, with Command and URL: polled until it answers 2xx.
	ReadyURL string `json:"ready_url,omitempty"`
	// ProtocolVersion is offered in the handshake; "" lets the SDK offer
	// its latest and fall back (servers that predate it log a rejected
	// server/discover request on stderr first).
	ProtocolVersion string `json:"protocol_version,omitempty"`
}

// MCPCall is one tool call. Capture maps a name to an expression evaluated
// on the call's result: a dotted path into its JSON ("results.0.id"), or
// "re:REGEXP" matched against its text (the first group, else the match).
type MCPCall struct {
	Tool      string            `json:"tool"`
	Arguments map[string]any    `json:"arguments,omitempty"`
	Capture   map[string]string `json:"capture,omitempty"`
}

// CommandSpec is a command run per query; its stdout is the result.
type CommandSpec struct {
	Search []string `json:"search"`
}

// HTTPSpec is one request per query, optionally to a server started by
// Command (which is given a free port as {port}).
type HTTPSpec struct {
	Command []string          `json:"command,omitempty"`
	Method  string            `json:"method,omitempty"` // default GET, or POST with a body
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers,omitempty"`
	Body    any               `json:"body,omitempty"`
	// ReadyURL, with Command, is polled with GET until it answers 2xx
	// before the first query (default: until {port} accepts connections).
	ReadyURL string `json:"ready_url,omitempty"`
}

// configError is one problem of a config file: a *fileline.Error printing
// "file:line: field: msg" (the parts that are unknown left out) and wrapping
// ErrInvalidConfig.
func configError(file string, line int, field, msg string) *fileline.Error {
	if field != "" {
		msg = field + ": " + msg
	}
	return &fileline.Error{File: file, Line: line, Msg: msg, Err: ErrInvalidConfig}
}

// Load reads and validates the config file at path, and checks that every
// ${NAME} without a default is set in this environment (checkEnv). Every
// problem found is reported, each as file:line: field: message.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrInvalidConfig, err)
	}
	c, err := Parse(path, data)
	if err != nil {
		return nil, err
	}
	if err := c.checkEnv(os.LookupEnv); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadDir loads every *.json file of dir in name order. Every bad file is
// reported, and two files naming the same system/config are an error.
func LoadDir(dir string) ([]*Config, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*Config
	var errs []error
	seen := map[string]string{}
	for _, f := range files {
		c, err := Load(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if other, dup := seen[c.Name()]; dup {
			errs = append(errs, configError(f, 0, "", fmt.Sprintf("%s is also defined by %s", c.Name(), other)))
			continue
		}
		seen[c.Name()] = f
		out = append(out, c)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Parse is Load of data read from file (named in messages), without the
// environment check: what the text says, wherever it is read.
func Parse(file string, data []byte) (*Config, error) {
	pos, err := indexPositions(data)
	if err != nil {
		return nil, syntaxError(file, data, err)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return nil, decodeError(file, data, pos, err)
	}
	c.file, c.pos = file, pos
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return &c, nil
}

// checkEnv reports every ${NAME} without a default whose variable is unset
// or empty in getenv, as Load sees the environment: each query (or the
// corpus phase) would fail on it at run time. A variable a requires entry
// names (its env, or a ${NAME} in its path) may be unset: the system is
// then missing (Unmet, a skip with the hint), not broken.
func (c *Config) checkEnv(getenv func(string) (string, bool)) error {
	required := map[string]bool{}
	for _, r := range c.Requires {
		if r.Env != "" {
			required[r.Env] = true
		}
		for _, name := range template.EnvRefs(r.Path) {
			required[name] = true // {"path": "${TOOL}"}: Unmet names it
		}
	}
	var errs []error
	for _, fs := range c.templated {
		field, s := fs[0], fs[1]
		if strings.HasPrefix(field, "requires.") {
			continue
		}
		for _, name := range template.EnvRefs(s) {
			if x, ok := getenv(name); (ok && x != "") || required[name] {
				continue
			}
			errs = append(errs, configError(c.file, c.pos.line(field), field, fmt.Sprintf(
				"environment variable %s is not set (write ${%s:-default} for a default, or name it in requires {\"env\": %q} to skip the system where it is unset)", name, name, name)))
		}
	}
	return errors.Join(errs...)
}

func syntaxError(file string, data []byte, err error) error {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return configError(file, lineAt(data, se.Offset), "", "bad JSON: "+se.Error())
	}
	var dk duplicateKey
	if errors.As(err, &dk) {
		return configError(file, dk.line, dk.path, dk.Error())
	}
	var td trailingData
	if errors.As(err, &td) {
		return configError(file, lineAt(data, td.offset), "", "bad JSON: "+td.Error())
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return configError(file, lineAt(data, int64(len(data))), "", "bad JSON: unexpected end of file")
	}
	return configError(file, 0, "", "bad JSON: "+err.Error())
}

func decodeError(file string, data []byte, pos posIndex, err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return configError(file, lineAt(data, te.Offset), te.Field, fmt.Sprintf("got JSON %s, want %s", te.Value, te.Type))
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, _ = strconv.Unquote(name)
		field, line := pos.findKey(name)
		return configError(file, line, field, "unknown field (see docs/external-systems.md)")
	}
	return syntaxError(file, data, err)
}

// Validate reports every problem of c, each a *fileline.Error wrapping
// ErrInvalidConfig, joined.
func (c *Config) Validate() error {
	var errs []error
	bad := func(field, format string, args ...any) {
		errs = append(errs, configError(c.file, c.pos.line(field), field, fmt.Sprintf(format, args...)))
	}
	c.templated = c.templated[:0]
	tmpl := func(field, s string, p template.Phase, captured map[string]bool) {
		if err := template.Check(s, p, c.HasPort(), captured); err != nil {
			bad(field, "%v", err)
		}
		c.templated = append(c.templated, [2]string{field, s})
	}
	argv := func(field string, a []string, p template.Phase, required bool) {
		if len(a) == 0 {
			if required {
				bad(field, "missing (a command: program and arguments)")
			}
			return
		}
		for i, s := range a {
			tmpl(field+"."+strconv.Itoa(i), s, p, nil)
		}
	}
	for _, f := range []struct{ field, name string }{{"system", c.System}, {"config", c.Config}} {
		if f.name == "" {
			bad(f.field, "missing")
		} else if err := sysconfig.CheckName(ErrInvalidConfig, f.name); err != nil {
			bad(f.field, "%s", strings.TrimPrefix(err.Error(), ErrInvalidConfig.Error()+": "))
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.DeclaredVersions)) {
		if c.DeclaredVersions[k] == "" {
			bad("versions."+k, "empty version")
		}
	}
	argv("version_command", c.VersionCommand, template.PhaseCache, false)
	if c.MaxDocs < 0 {
		bad("max_docs", "%d: want a positive number of documents (or no field)", c.MaxDocs)
	}
	if c.MaxDocs > 0 && c.MaxDocsReason == "" {
		bad("max_docs_reason", "missing: say what a bigger corpus costs the system (it is printed with every cell max_docs skips)")
	}
	for i, p := range c.Only {
		if _, err := path.Match(p, ""); err != nil {
			bad("only."+strconv.Itoa(i), "%q: %v", p, err)
		}
	}
	for i, u := range c.Unsupported {
		field := "unsupported." + strconv.Itoa(i)
		if _, err := path.Match(u.Datasets, ""); err != nil {
			bad(field+".datasets", "%q: %v", u.Datasets, err)
		} else if strings.Count(u.Datasets, "/") != 1 {
			bad(field+".datasets", "%q: want a \"family/dataset\" pattern (\"repoqa-langs/go-*\")", u.Datasets)
		}
		if strings.TrimSpace(u.Reason) == "" {
			bad(field+".reason", "missing: say why the system cannot do these datasets (it is printed with every cell it skips)")
		}
	}
	for i, r := range c.Requires {
		field := "requires." + strconv.Itoa(i)
		n := 0
		for _, s := range []string{r.Path, r.Env, r.Program} {
			if s != "" {
				n++
			}
		}
		if n != 1 {
			bad(field, "want exactly one of path, env, program")
		}
		tmpl(field+".path", r.Path, template.PhaseCache, nil)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		if !template.IsEnvName(k) {
			bad("env."+k, "not an environment variable name")
		}
		tmpl("env."+k, c.Env[k], template.PhaseCorpus, nil)
	}
	for i, name := range c.EnvPass {
		if name != "*" && !template.IsEnvName(name) {
			bad("env_pass."+strconv.Itoa(i), "%q is not an environment variable name (or \"*\" for all)", name)
		}
	}
	for i, s := range c.Secrets {
		if !template.IsEnvName(s) {
			bad("secrets."+strconv.Itoa(i), "%q is not an environment variable name", s)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(c.Files)) {
		tmpl("files."+k, k, template.PhaseCorpus, nil)
		tmpl("files."+k, c.Files[k], template.PhaseCorpus, nil)
	}
	if c.Corpus.JSONL && (c.Corpus.Git || c.Corpus.None) {
		bad("corpus.jsonl", "not with corpus.git or corpus.none (one handover)")
	}
	if c.Index != nil {
		argv("index.command", c.Index.Command, template.PhaseCorpus, true)
		duration(bad, "index.timeout", c.Index.Timeout)
	}
	sections := map[string]bool{TransportMCP: c.MCP != nil, TransportCommand: c.Command != nil, TransportHTTP: c.HTTP != nil}
	switch c.Transport {
	case "":
		bad("transport", "missing (%q, %q or %q)", TransportMCP, TransportCommand, TransportHTTP)
	case TransportMCP, TransportCommand, TransportHTTP:
		if !sections[c.Transport] {
			bad(c.Transport, "missing: transport %q needs its section", c.Transport)
		}
	default:
		bad("transport", "%q: want %q, %q or %q", c.Transport, TransportMCP, TransportCommand, TransportHTTP)
	}
	for _, name := range slices.Sorted(maps.Keys(sections)) {
		if sections[name] && name != c.Transport {
			bad(name, "section given but transport is %q", c.Transport)
		}
	}
	captured := map[string]bool{}
	if c.MCP != nil {
		m := c.MCP
		argv("mcp.command", m.Command, template.PhaseCorpus, m.URL == "")
		tmpl("mcp.url", m.URL, template.PhaseCorpus, nil)
		tmpl("mcp.ready_url", m.ReadyURL, template.PhaseCorpus, nil)
		for _, k := range slices.Sorted(maps.Keys(m.Headers)) {
			tmpl("mcp.headers."+k, m.Headers[k], template.PhaseCorpus, nil)
		}
		switch {
		case m.URL == "" && (m.HTTPTransport != "" || len(m.Headers) > 0 || m.ReadyURL != ""):
			bad("mcp.url", "missing: http_transport, headers and ready_url are for an MCP server over HTTP")
		case m.ReadyURL != "" && len(m.Command) == 0:
			bad("mcp.ready_url", "only with mcp.command (a local server to wait for)")
		}
		switch m.HTTPTransport {
		case "", MCPStreamable, MCPSSE:
		default:
			bad("mcp.http_transport", "%q: want %q (the default) or %q", m.HTTPTransport, MCPStreamable, MCPSSE)
		}
		if v := c.MCP.ProtocolVersion; v != "" && !slices.Contains(mcp.SupportedProtocolVersions(), v) {
			bad("mcp.protocol_version", "%q: want one of %s", v, strings.Join(mcp.SupportedProtocolVersions(), ", "))
		}
		if len(c.MCP.Calls) == 0 {
			bad("mcp.calls", "missing (at least one tool call)")
		}
		for i, call := range c.MCP.Calls {
			field := "mcp.calls." + strconv.Itoa(i)
			if call.Tool == "" {
				bad(field+".tool", "missing")
			}
			template.EachString(field+".arguments", map[string]any(call.Arguments), func(path, s string) {
				tmpl(path, s, template.PhaseQuery, captured)
			})
			for _, name := range slices.Sorted(maps.Keys(call.Capture)) {
				if err := mapping.CheckCapture(call.Capture[name]); err != nil {
					bad(field+".capture."+name, "%v", err)
				}
			}
			for name := range call.Capture {
				captured[name] = true
			}
		}
	}
	if c.Command != nil {
		argv("command.search", c.Command.Search, template.PhaseQuery, true)
	}
	if c.HTTP != nil {
		h := c.HTTP
		argv("http.command", h.Command, template.PhaseCorpus, false)
		switch h.Method {
		case "", "GET", "POST", "PUT":
		default:
			bad("http.method", "%q: want GET, POST or PUT", h.Method)
		}
		if h.Method == "GET" && h.Body != nil {
			bad("http.body", "a GET request has no body")
		}
		if h.URL == "" {
			bad("http.url", "missing")
		}
		tmpl("http.url", h.URL, template.PhaseQuery, nil)
		tmpl("http.ready_url", h.ReadyURL, template.PhaseCorpus, nil)
		if h.ReadyURL != "" && len(h.Command) == 0 {
			bad("http.ready_url", "only with http.command (a local server to wait for)")
		}
		for _, k := range slices.Sorted(maps.Keys(h.Headers)) {
			tmpl("http.headers."+k, h.Headers[k], template.PhaseQuery, nil)
		}
		template.EachString("http.body", h.Body, func(path, s string) { tmpl(path, s, template.PhaseQuery, nil) })
	}
	r := c.Result
	switch r.From {
	case "":
		bad("result.from", "missing (%q, %q, %q or %q)", mapping.FromStructured, mapping.FromJSON, mapping.FromText, mapping.FromBlob)
	case mapping.FromStructured:
		if c.Transport != TransportMCP {
			bad("result.from", "%q needs transport %q", mapping.FromStructured, TransportMCP)
		}
	case mapping.FromJSON, mapping.FromText, mapping.FromBlob:
	default:
		bad("result.from", "%q: want %q, %q, %q or %q", r.From, mapping.FromStructured, mapping.FromJSON, mapping.FromText, mapping.FromBlob)
	}
	fields := []struct{ name, v string }{{"items", r.Items}, {"path", r.Path}, {"start_line", r.StartLine}, {"end_line", r.EndLine}, {"symbol", r.Symbol}, {"score", r.Score}, {"text", r.Text}, {"doc_id", r.DocID}}
	switch {
	case r.From == mapping.FromBlob || r.From == mapping.FromText:
		why := "the whole text is one hit"
		if r.From == mapping.FromText {
			why = "result.item_regex's named groups give the fields"
		}
		for _, f := range fields {
			if f.v != "" {
				bad("result."+f.name, "not used with from %q (%s)", r.From, why)
			}
		}
		if r.From == mapping.FromBlob && r.StripPrefix != "" {
			bad("result.strip_prefix", "not used with from %q (%s)", r.From, why)
		}
	case r.From != "" && r.Path == "" && r.Symbol == "" && r.Text == "" && r.DocID == "":
		bad("result", "maps nothing: set at least one of path, symbol, text, doc_id")
	}
	if r.From == mapping.FromText {
		if err := mapping.CheckItemRegex(r.ItemRegex); err != nil {
			bad("result.item_regex", "%v", err)
		}
	} else if r.ItemRegex != "" {
		bad("result.item_regex", "only used with from %q", mapping.FromText)
	}
	if b := r.LineBase; b != nil && *b != 0 && *b != 1 {
		bad("result.line_base", "%d: want 1 (the first line is line 1, the default) or 0", *b)
	}
	if r.LineBase != nil && r.From == mapping.FromBlob {
		bad("result.line_base", "not used with from %q (the whole text is one hit)", r.From)
	}
	tmpl("result.library", r.Library, template.PhaseQuery, captured)
	tmpl("result.strip_prefix", r.StripPrefix, template.PhaseCorpus, nil)
	duration(bad, "timeout", c.Timeout)
	duration(bad, "start_timeout", c.StartTimeout)
	if c.MaxOutputBytes < 0 {
		bad("max_output_bytes", "%d: want > 0 (or absent for %d)", c.MaxOutputBytes, DefaultMaxOutputBytes)
	}
	if c.Retry != nil {
		if c.Transport != TransportHTTP && (c.MCP == nil || c.MCP.URL == "") {
			bad("retry", "only for transport %q or an MCP server over HTTP (mcp.url)", TransportHTTP)
		}
		c.Retry.validate(bad)
	}
	if c.MaxConcurrency < 0 {
		bad("max_concurrency", "%d: want > 0 (or absent for no bound)", c.MaxConcurrency)
	}
	if c.WholeFiles != nil && !*c.WholeFiles {
		bad("whole_files", "false is not supported: an external system indexes the corpus's files")
	}
	return errors.Join(errs...)
}

func duration(bad func(field, format string, args ...any), field, s string) {
	if s == "" {
		return
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		bad(field, "%q: want a positive duration such as \"90s\" or \"20m\"", s)
	}
}

// dur returns the duration s, or def when s is empty (Validate checked s).
func dur(s string, def time.Duration) time.Duration {
	if d, err := time.ParseDuration(s); err == nil && d > 0 {
		return d
	}
	return def
}

// CallTimeout is timeout (one search call), StartWait start_timeout (a
// server's start and handshake), IndexWait index.timeout and OutputLimit
// max_output_bytes, each with its default.
func (c *Config) CallTimeout() time.Duration { return dur(c.Timeout, DefaultTimeout) }
func (c *Config) StartWait() time.Duration   { return dur(c.StartTimeout, DefaultStartTimeout) }
func (c *Config) IndexWait() time.Duration   { return dur(c.Index.Timeout, DefaultIndexTimeout) }
func (c *Config) OutputLimit() int {
	if c.MaxOutputBytes > 0 {
		return c.MaxOutputBytes
	}
	return DefaultMaxOutputBytes
}

// HasPort reports whether the config starts a local server on a free port
// ({port}): http.command, or mcp.command with mcp.url.
func (c *Config) HasPort() bool {
	return c.HTTP != nil && len(c.HTTP.Command) > 0 || c.MCP != nil && c.MCP.URL != "" && len(c.MCP.Command) > 0
}

// Name is "system/config", as in subtest names.
func (c *Config) Name() string { return c.System + "/" + c.Config }

// Hash returns a hash of every field that can change results: the names,
// the declared versions and version command, the corpus handover, the
// environment, files, commands, calls and result mapping. It leaves out the
// description, requirements and the limits (timeouts, output cap), which
// decide whether a call fails but not what a successful call returns, and
// the value of every variable listed in secrets (only its name counts), so
// rotating a key does not make baselines stale. Templates are hashed, not
// their expansions: ${KEY} hashes as "${KEY}".
func (c *Config) Hash() string {
	return sysconfig.Hash(HashVersion, c.hashText())
}

// hashText is the canonical JSON of the fields Hash covers.
func (c *Config) hashText() string {
	h := *c
	h.Description, h.Requires, h.Secrets = "", nil, nil
	h.Timeout, h.StartTimeout, h.MaxOutputBytes, h.WholeFiles = "", "", 0, nil
	h.Tolerance, h.ToleranceReason, h.Heavy, h.Only, h.Unsupported = 0, "", false, nil, nil
	h.MaxDocs, h.MaxDocsReason, h.FixturesOnly = 0, "", false
	h.Retry, h.MaxConcurrency = nil, 0
	if h.Index != nil {
		ix := *h.Index
		ix.Timeout = ""
		h.Index = &ix
	}
	if len(c.Env) > 0 {
		h.Env = maps.Clone(c.Env)
		for _, s := range c.Secrets {
			if _, ok := h.Env[s]; ok {
				h.Env[s] = "<secret>"
			}
		}
	}
	b, err := json.Marshal(&h) // map keys are sorted: the encoding is canonical
	if err != nil {
		panic(err) // a Config holds only JSON-decoded values
	}
	return string(b)
}

// Versions returns the versions to record with results: the "versions"
// field, plus the trimmed first line of version_command's output under the
// system's name when there is one.
func (c *Config) Versions(ctx context.Context) (map[string]string, error) {
	out := maps.Clone(c.DeclaredVersions)
	if out == nil {
		out = map[string]string{}
	}
	if len(c.VersionCommand) == 0 {
		return out, nil
	}
	v := template.Vars{Values: map[string]string{template.PhCache: cache.Dir()}, Getenv: os.LookupEnv}
	argv, err := v.ExpandAll(c.VersionCommand)
	if err != nil {
		return nil, fmt.Errorf("%s: version_command: %w", c.Name(), err)
	}
	red := redact.New(c.SecretValues(os.LookupEnv))
	ctx, cancel := context.WithTimeout(ctx, c.StartWait())
	defer cancel()
	res, _, err := proc.Run(ctx, argv, c.BaseEnv(), "", 1<<16, red, nil)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return nil, fmt.Errorf("%s: version_command: timed out after %s (start_timeout): %w", c.Name(), c.StartWait(), err)
		}
		return nil, fmt.Errorf("%s: version_command: %w", c.Name(), err)
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(res)), "\n")
	if line == "" {
		return nil, fmt.Errorf("%s: version_command %s printed nothing", c.Name(), argv[0])
	}
	out[c.System] = red.String(strings.TrimSpace(line))
	return out, nil
}

// Unmet returns one line per requirement that is not met on this machine,
// with its kind and hint; nil when all are.
func (c *Config) Unmet() []Unmet {
	var out []Unmet
	v := template.Vars{Values: map[string]string{template.PhCache: cache.Dir()}, Getenv: os.LookupEnv}
	for _, r := range c.Requires {
		kind := r.Kind
		if kind == "" {
			kind = "peer"
		}
		var why string
		switch {
		case r.Path != "":
			p, err := v.Expand(r.Path)
			if err != nil {
				why = err.Error()
			} else if _, err := os.Stat(p); err != nil {
				why = fmt.Sprintf("%s: not found", p)
			}
		case r.Env != "":
			if os.Getenv(r.Env) == "" {
				why = fmt.Sprintf("environment variable %s is not set", r.Env)
			}
		case r.Program != "":
			if _, err := exec.LookPath(r.Program); err != nil {
				why = fmt.Sprintf("program %s is not on PATH", r.Program)
			}
		}
		if why != "" {
			if r.Hint != "" {
				why += " (" + r.Hint + ")"
			}
			out = append(out, Unmet{Kind: kind, Reason: c.Name() + ": " + why})
		}
	}
	return out
}

// Unmet is a requirement that is not met: Kind is the testenv kind that
// decides whether a run may skip it.
type Unmet struct {
	Kind   string
	Reason string
}

// SecretValues returns the values of the variables listed in secrets:
// from env when the config sets them (expanded with getenv), else from
// getenv itself.
func (c *Config) SecretValues(getenv func(string) (string, bool)) []string {
	var out []string
	for _, name := range c.Secrets {
		if t, ok := c.Env[name]; ok {
			v := template.Vars{Values: map[string]string{}, Getenv: getenv}
			// Placeholders other than ${ENV} are not secret; expand what can be.
			if x, err := v.Expand(t); err == nil {
				out = append(out, x)
			} else {
				out = append(out, t)
			}
			continue
		}
		if x, ok := getenv(name); ok {
			out = append(out, x)
		}
	}
	return out
}

// RetrySpec says how a request to an HTTP service (transport "http", or an
// MCP server over HTTP) is retried when the service is overloaded or the
// connection breaks: on HTTP 429 and 5xx answers and on connection resets
// and refusals, at most Attempts times in all, waiting Initial, then twice
// as long each time (at most MaxDelay), each wait scaled by a jitter factor
// in [0.5, 1) from a generator seeded with Seed (default: from the config
// hash), so a run's waits are reproducible. A Retry-After header is
// honoured: the wait is at least what it asks, and a request whose
// Retry-After exceeds MaxDelay fails at once, naming both.
type RetrySpec struct {
	Attempts int    `json:"attempts"`            // in all, first included; >= 1
	Initial  string `json:"initial,omitempty"`   // default 500ms
	MaxDelay string `json:"max_delay,omitempty"` // default 30s
	Seed     uint64 `json:"seed,omitempty"`
}

// Defaults of RetrySpec.
const (
	DefaultRetryInitial  = 500 * time.Millisecond
	DefaultRetryMaxDelay = 30 * time.Second
)

func (r *RetrySpec) validate(bad func(field, format string, args ...any)) {
	if r.Attempts < 1 || r.Attempts > 20 {
		bad("retry.attempts", "%d: want 1 (no retry) to 20 (tries in all)", r.Attempts)
	}
	duration(bad, "retry.initial", r.Initial)
	duration(bad, "retry.max_delay", r.MaxDelay)
}

// InitialWait is retry.initial, default DefaultRetryInitial.
func (r *RetrySpec) InitialWait() time.Duration { return dur(r.Initial, DefaultRetryInitial) }

// MaxWait is retry.max_delay, default DefaultRetryMaxDelay.
func (r *RetrySpec) MaxWait() time.Duration { return dur(r.MaxDelay, DefaultRetryMaxDelay) }

// posIndex maps the dotted path of every object key and array element of a
// JSON document to its 1-based line.
type posIndex struct {
	lines map[string]int
	order []string // paths in document order
}

func (p posIndex) line(field string) int {
	for f := field; f != ""; {
		if l, ok := p.lines[f]; ok {
			return l
		}
		i := strings.LastIndexByte(f, '.')
		if i < 0 {
			break
		}
		f = f[:i]
	}
	return 0
}

// findKey returns the first path whose last element is name.
func (p posIndex) findKey(name string) (string, int) {
	for _, f := range p.order {
		if f == name || strings.HasSuffix(f, "."+name) {
			return f, p.lines[f]
		}
	}
	return "", 0
}

func indexPositions(data []byte) (posIndex, error) {
	p := posIndex{lines: map[string]int{}}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	add := func(path string) {
		if _, dup := p.lines[path]; !dup {
			p.order = append(p.order, path)
		}
		p.lines[path] = lineAt(data, dec.InputOffset())
	}
	join := func(path, k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	// walk reads one value; an array element's line is recorded after its
	// first token (the offset before it may still be on the line before).
	var walk func(path string, element bool) error
	walk = func(path string, element bool) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		if element {
			add(path)
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]int{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				line := lineAt(data, dec.InputOffset())
				if first, dup := seen[k]; dup {
					return duplicateKey{path: join(path, k), line: line, first: first}
				}
				seen[k] = line
				add(join(path, k))
				if err := walk(join(path, k), false); err != nil {
					return err
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				if err := walk(join(path, strconv.Itoa(i)), true); err != nil {
					return err
				}
			}
		default:
			return nil
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	if err := walk("", false); err != nil {
		return p, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return p, trailingData{dec.InputOffset()}
	}
	return p, nil
}

// duplicateKey is a key given twice in one object: encoding/json keeps
// the last, so the first would be ignored without a word.
type duplicateKey struct {
	path        string
	line, first int
}

func (d duplicateKey) Error() string {
	return fmt.Sprintf("duplicate key (first on line %d): JSON keeps only the last, so one of them would be ignored; keep one", d.first)
}

// trailingData is text after the top-level JSON value.
type trailingData struct{ offset int64 }

func (trailingData) Error() string { return "data after the top-level object" }

func lineAt(data []byte, offset int64) int {
	if offset > int64(len(data)) {
		offset = int64(len(data))
	}
	return 1 + bytes.Count(data[:offset], []byte("\n"))
}
