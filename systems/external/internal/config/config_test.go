package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

// validConfig is a command config using most fields; tests change one
// thing at a time.
const validConfig = `{
  "system": "demo",
  "config": "default",
  "versions": {"demo": "1.0"},
  "env": {"HOME": "{work}/home", "API_KEY": "${DEMO_KEY:-x}"},
  "secrets": ["API_KEY"],
  "files": {"cfg.yaml": "root: {corpus}\n"},
  "index": {"command": ["demo", "index", "{corpus}"], "timeout": "5m"},
  "transport": "command",
  "command": {"search": ["demo", "search", "{query}", "{k}"]},
  "result": {"from": "json", "items": "hits", "path": "path", "score": "score"},
  "timeout": "30s"
}
`

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "demo.json")
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

func TestLoadValid(t *testing.T) {
	c, err := Load(writeConfig(t, validConfig))
	require.NoError(t, err)
	if c.Name() != "demo/default" || c.Transport != TransportCommand || c.CallTimeout().String() != "30s" || c.IndexWait().String() != "5m0s" {
		t.Errorf("Load = %+v: fields not decoded", c)
	}
	if got := c.StartWait(); got != DefaultStartTimeout {
		t.Errorf("start_timeout default = %s, want %s", got, DefaultStartTimeout)
	}
}

func TestLoadErrors(t *testing.T) {
	for _, tc := range []struct {
		name   string
		text   string
		want   []string // each must appear in the error; ":N:" is the line
		reason string
	}{
		{"bad json", "{\n  \"system\": \"x\",\n  \"config\" \"y\"\n}", []string{":3: bad JSON"}, "a syntax error names its line"},
		{"truncated", "{\n  \"system\": \"x\",\n", []string{":3: bad JSON"}, "a cut-off file names its end"},
		{"trailing", validConfig + "{}\n", []string{":14: bad JSON: data after the top-level object"}, "a second value is not silently ignored"},
		{"unknown top field", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "timeuot": "1s"`, 1),
			[]string{":12: timeuot: unknown field"}, "a misspelt field is an error, not ignored"},
		{"unknown nested field", strings.Replace(validConfig, `"from": "json"`, `"form": "json"`, 1),
			[]string{":11: result.form: unknown field"}, "unknown fields are found at any depth"},
		{"wrong type", strings.Replace(validConfig, `"secrets": ["API_KEY"]`, `"secrets": "API_KEY"`, 1),
			[]string{":6:", "want []string"}, "a type mismatch names the line"},
		{"missing required", strings.Replace(strings.Replace(validConfig, `"system": "demo",`, ``, 1), `"from": "json", `, ``, 1),
			[]string{"system: missing", ":11: result.from: missing"}, "every missing field is reported, with the line of its parent when it has one"},
		{"bad name", strings.Replace(validConfig, `"config": "default"`, `"config": "De fault"`, 1),
			[]string{`:3: config: name "De fault"`}, "names become subtest names"},
		{"bad duration", strings.Replace(validConfig, `"timeout": "5m"`, `"timeout": "5 minutes"`, 1),
			[]string{`:8: index.timeout: "5 minutes": want a positive duration`}, "durations are Go durations"},
		{"unknown placeholder", strings.Replace(validConfig, `"{query}", "{k}"`, `"{qeury}", "{k}"`, 1),
			[]string{`:10: command.search.2: unknown placeholder {qeury}`}, "a misspelt placeholder is caught at load time"},
		{"placeholder out of phase", strings.Replace(validConfig, `"index", "{corpus}"`, `"index", "{query}"`, 1),
			[]string{`:8: index.command.2: placeholder {query} is not available here`}, "the index runs before any query"},
		{"bad env ref", strings.Replace(validConfig, `${DEMO_KEY:-x}`, `${1KEY}`, 1),
			[]string{`:5: env.API_KEY: ${1KEY}`}, "a malformed ${} is caught"},
		{"transport section missing", strings.Replace(validConfig, `"transport": "command"`, `"transport": "mcp"`, 1),
			[]string{`mcp: missing: transport "mcp" needs its section`, `:10: command: section given but transport is "mcp"`}, "the transport and its section must agree"},
		{"structured needs mcp", strings.Replace(validConfig, `"from": "json"`, `"from": "structured"`, 1),
			[]string{`:11: result.from: "structured" needs transport "mcp"`}, "only MCP has structuredContent"},
		{"blob with fields", strings.Replace(validConfig, `"from": "json"`, `"from": "blob"`, 1),
			[]string{`result.items: not used with from "blob"`, `result.path: not used`}, "a blob is one hit; item fields would be ignored silently"},
		{"max_docs negative", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "max_docs": -1, "max_docs_reason": "slow"`, 1),
			[]string{`:12: max_docs: -1: want a positive number`}, "a negative budget is a mistake, not no budget"},
		{"max_docs without reason", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "max_docs": 500`, 1),
			[]string{`max_docs_reason: missing`}, "every skip the budget makes must say why"},
		{"line_base 2", strings.Replace(validConfig, `"score": "score"}`, `"score": "score", "line_base": 2}`, 1),
			[]string{`:11: result.line_base: 2: want 1`}, "lines count from 0 or 1"},
		{"mcp without command or url", mcpValid(`"calls": [{"tool": "t"}]`),
			[]string{`mcp.command: missing`}, "an MCP server is a command (stdio) or a URL (HTTP)"},
		{"mcp headers without url", mcpValid(`"command": ["s"], "headers": {"A": "b"}, "calls": [{"tool": "t"}]`),
			[]string{`mcp.url: missing: http_transport, headers and ready_url are for an MCP server over HTTP`}, "headers would be ignored over stdio"},
		{"mcp bad http_transport", mcpValid(`"url": "http://h/mcp", "http_transport": "websocket", "calls": [{"tool": "t"}]`),
			[]string{`mcp.http_transport: "websocket": want "streamable"`}, "the SDK has two HTTP clients"},
		{"mcp ready_url without command", mcpValid(`"url": "http://h/mcp", "ready_url": "http://h/ready", "calls": [{"tool": "t"}]`),
			[]string{`mcp.ready_url: only with mcp.command`}, "nothing to wait for on a hosted server"},
		{"port without local server", mcpValid(`"url": "http://127.0.0.1:{port}/mcp", "calls": [{"tool": "t"}]`),
			[]string{`mcp.url: placeholder {port} is not available here`}, "{port} is the port of a server the system starts"},
		{"query in mcp headers", mcpValid(`"url": "http://h/mcp", "headers": {"X": "{query}"}, "calls": [{"tool": "t"}]`),
			[]string{`mcp.headers.X: placeholder {query} is not available here`}, "headers are sent from the handshake on"},
		{"retry on command", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "retry": {"attempts": 3}`, 1),
			[]string{`:12: retry: only for transport "http"`}, "a command is not an HTTP request"},
		{"retry attempts 0", `{"system": "d", "config": "c", "transport": "http", "http": {"url": "http://h/s"}, "result": {"from": "blob"}, "retry": {"attempts": 0, "max_delay": "soon"}}`,
			[]string{`retry.attempts: 0: want 1`, `retry.max_delay: "soon"`}, "attempts count the first try; durations are Go durations"},
		{"max_concurrency negative", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "max_concurrency": -1`, 1),
			[]string{`:12: max_concurrency: -1`}, "a bound is positive"},
		{"unsupported without reason", strings.Replace(validConfig, `"timeout": "30s"`, "\"timeout\": \"30s\",\n  \"unsupported\": [\n    {\"datasets\": \"repoqa-langs/go-doc\", \"reason\": \"no .go files\"},\n    {\"datasets\": \"repoqa-langs/cpp-doc\", \"reason\": \" \"}\n  ]", 1),
			[]string{`:15: unsupported.1.reason: missing: say why`}, "every unsupported skip says why, and the error names the entry's line"},
		{"unsupported bad pattern", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "unsupported": [{"datasets": "repoqa-langs/[go", "reason": "r"}, {"datasets": "go-doc", "reason": "r"}]`, 1),
			[]string{`:12: unsupported.0.datasets: "repoqa-langs/[go": syntax error in pattern`, `:12: unsupported.1.datasets: "go-doc": want a "family/dataset" pattern`}, "a pattern that matches nothing is a mistake"},
		{"unsupported unknown field", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "unsupported": [{"dataset": "repoqa-langs/go-doc", "reason": "r"}]`, 1),
			[]string{`:12: unsupported.0.dataset: unknown field`}, "a misspelt key is an error"},
		{"only bad pattern", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "only": ["repoqa/[x"]`, 1),
			[]string{`:12: only.0: "repoqa/[x": syntax error in pattern`}, "a bad pattern would silently match nothing"},
		{"whole_files false", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "30s", "whole_files": false`, 1),
			[]string{`:12: whole_files: false is not supported`}, "external systems always index files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.text)
			_, err := Load(p)
			require.Error(t, err, tc.reason)
			if !errors.Is(err, ErrInvalidConfig) {
				t.Errorf("%s: error does not wrap ErrInvalidConfig: %v", tc.reason, err)
			}
			for _, w := range tc.want {
				if strings.HasPrefix(w, ":") {
					w = p + w
				}
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error lacks %q:\n%v", tc.reason, w, err)
				}
			}
		})
	}
}

// TestConfigErrorPosition checks that a config problem is the module's
// position error: errors.As finds the file and line, errors.Is the kind.
func TestConfigErrorPosition(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int
		reason     string
	}{
		{"validation", strings.Replace(validConfig, `"timeout": "30s"`, `"timeout": "soon"`, 1), 12, "a bad value, at its key's line"},
		{"bad JSON", "{\n\"system\": \"demo\",\n,\n}", 3, "a syntax error, at its offset's line"},
		{"unknown field", strings.Replace(validConfig, `"timeout"`, `"timeuot"`, 1), 8, "an unknown key (index's timeout), at its line"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeConfig(t, tc.text)
			_, err := Load(p)
			require.ErrorIs(t, err, ErrInvalidConfig, tc.reason)
			filelinetest.At(t, err, p, tc.line)
		})
	}
}

func TestLoadMCPCaptures(t *testing.T) {
	base := `{"system": "c7", "config": "d", "transport": "mcp",
  "mcp": {"command": ["srv"], "calls": [
    {"tool": "resolve", "arguments": {"name": "{library}"}, "capture": {"id": "re:ID: (\\S+)"}},
    {"tool": "docs", "arguments": {"id": "{captured.id}", "topic": "{query}", "tokens": "{k}"}}]},
  "result": {"from": "blob", "library": "{captured.id}"}}`
	_, err := Load(writeConfig(t, base))
	require.NoError(t, err)
	_, err = Load(writeConfig(t, strings.Replace(base, `"name": "{library}"`, `"name": "{captured.id}"`, 1)))
	if err == nil || !strings.Contains(err.Error(), `:3: mcp.calls.0.arguments.name: placeholder {captured.id}: no earlier call captures "id"`) {
		t.Errorf("a call using its own capture: err = %v", err)
	}
	_, err = Load(writeConfig(t, strings.Replace(base, `re:ID: (\\S+)`, `re:ID: (\\S+`, 1)))
	if err == nil || !strings.Contains(err.Error(), `mcp.calls.0.capture.id: error parsing regexp`) {
		t.Errorf("a bad capture regexp: err = %v", err)
	}
}

func TestHashPinned(t *testing.T) {
	c, err := Parse("demo.json", []byte(validConfig))
	require.NoError(t, err)
	// Golden files are keyed by this value: it changes only with a
	// deliberate bump of HashVersion or a new result-affecting field.
	const want = "a3c866c98b9b79ca33769717df3bb8ef3a951f8542429a10e2f7d572f4e422c8"
	if got := c.Hash(); got != want {
		t.Errorf("Hash = %s, want %s (pinned)", got, want)
	}
}

func TestHashFields(t *testing.T) {
	base, err := Parse("demo.json", []byte(validConfig))
	require.NoError(t, err)
	want := base.Hash()
	for _, tc := range []struct {
		name    string
		old     string
		new     string
		changes bool
		reason  string
	}{
		{"system", `"system": "demo"`, `"system": "demo2"`, true, "another system"},
		{"config", `"config": "default"`, `"config": "other"`, true, "another config"},
		{"versions", `"demo": "1.0"`, `"demo": "1.1"`, true, "a new version may rank differently"},
		{"env", `"{work}/home"`, `"{work}/home2"`, true, "env changes the tool's behaviour"},
		{"files", `root: {corpus}`, `root: {work}`, true, "a config file of the tool"},
		{"index command", `"index", "{corpus}"`, `"index", "--deep", "{corpus}"`, true, "index flags"},
		{"search command", `"{query}", "{k}"`, `"{k}", "{query}"`, true, "search arguments"},
		{"result mapping", `"path": "path"`, `"path": "file"`, true, "which field is the path"},
		{"git", `"transport"`, `"corpus": {"git": true}, "transport"`, true, "a git handover is another tree"},
		{"version_command", `"transport"`, `"version_command": ["demo", "--version"], "transport"`, true, "how the version is found"},
		{"timeout", `"timeout": "30s"`, `"timeout": "31s"`, false, "limits decide failure, not results"},
		{"index timeout", `"timeout": "5m"`, `"timeout": "6m"`, false, "limits decide failure, not results"},
		{"max output", `"timeout": "30s"`, `"timeout": "30s", "max_output_bytes": 10`, false, "limits decide failure, not results"},
		{"description", `"transport"`, `"description": "words", "transport"`, false, "prose"},
		{"max_docs", `"transport"`, `"max_docs": 100, "max_docs_reason": "slow", "transport"`, false, "which cells run, not what a cell returns"},
		{"fixtures_only", `"transport"`, `"fixtures_only": true, "transport"`, false, "which cells run, not what a cell returns"},
		{"requires", `"transport"`, `"requires": [{"program": "demo"}], "transport"`, false, "where to find it, not what it does"},
		{"secret env value", `${DEMO_KEY:-x}`, `literal-secret-value`, false, "a secret's value never enters the hash"},
		{"env_pass", `"transport"`, `"env_pass": ["JAVA_HOME"], "transport"`, true, "what a child inherits changes what it does"},
		{"jsonl", `"transport"`, `"corpus": {"jsonl": true}, "transport"`, true, "another handover"},
		{"line_base", `"score": "score"}`, `"score": "score", "line_base": 0}`, true, "the same numbers name other lines"},
		{"doc_id", `"score": "score"}`, `"score": "score", "doc_id": "id"}`, true, "hits by id are judged otherwise"},
		{"max_concurrency", `"timeout": "30s"`, `"timeout": "30s", "max_concurrency": 2`, false, "a rate limit, not a result"},
		{"unsupported", `"transport"`, `"unsupported": [{"datasets": "repoqa-langs/go-doc", "reason": "no .go files"}], "transport"`, false, "which cells run, not what a cell returns"},
		{"only", `"transport"`, `"only": ["repoqa/*"], "transport"`, false, "which cells run, not what a cell returns"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := strings.Replace(validConfig, tc.old, tc.new, 1)
			require.NotEqual(t, validConfig, text, "the edit must apply")
			c, err := Parse("demo.json", []byte(text))
			require.NoError(t, err)
			if changed := c.Hash() != want; changed != tc.changes {
				t.Errorf("%s: hash changed = %v, want %v", tc.reason, changed, tc.changes)
			}
		})
	}
	// The secret's value is not in the hashed text at all.
	c, err := Parse("demo.json", []byte(strings.Replace(validConfig, `${DEMO_KEY:-x}`, `canary-77`, 1)))
	require.NoError(t, err)
	if strings.Contains(c.hashText(), "canary-77") {
		t.Errorf("the hashed text holds the secret value: %s", c.hashText())
	}
}

func TestHashFieldsMCPAndHTTP(t *testing.T) {
	const mcpText = `{"system": "m", "config": "c", "transport": "mcp",
  "mcp": {"command": ["srv", "{corpus}"], "calls": [
    {"tool": "resolve", "arguments": {"name": "{library}"}, "capture": {"id": "re:ID: (\\S+)"}},
    {"tool": "docs", "arguments": {"id": "{captured.id}", "q": "{query}"}}]},
  "result": {"from": "json", "items": "r", "path": "p", "strip_prefix": "{corpus}/", "library": "{captured.id}"}}`
	const httpText = `{"system": "h", "config": "c", "transport": "http",
  "http": {"command": ["srv", "{port}"], "method": "POST", "url": "http://127.0.0.1:{port}/s",
           "headers": {"X-Key": "${KEY}"}, "body": {"q": "{query}"}},
  "result": {"from": "blob"}}`
	for _, tc := range []struct{ name, base, old, new string }{
		{"mcp.command", mcpText, `"srv", "{corpus}"`, `"srv", "-v", "{corpus}"`},
		{"tool", mcpText, `"tool": "docs"`, `"tool": "docs2"`},
		{"arguments", mcpText, `"q": "{query}"`, `"query": "{query}"`},
		{"capture", mcpText, `ID: (`, `Id: (`},
		{"items", mcpText, `"items": "r"`, `"items": "rs"`},
		{"strip_prefix", mcpText, `"strip_prefix": "{corpus}/"`, `"strip_prefix": "{corpus}"`},
		{"library", mcpText, `"library": "{captured.id}"`, `"library": "lib:{captured.id}"`},
		{"from", mcpText, `"from": "json"`, `"from": "structured"`},
		{"http.command", httpText, `["srv", "{port}"]`, `["srv2", "{port}"]`},
		{"method", httpText, `"POST"`, `"PUT"`},
		{"url", httpText, `/s"`, `/t"`},
		{"headers", httpText, `"X-Key"`, `"X-Api-Key"`},
		{"body", httpText, `{"q": "{query}"}`, `{"q": "{query}", "n": 1}`},
		{"mcp.url", mcpText, `"command": ["srv", "{corpus}"]`, `"command": ["srv", "{corpus}", "{port}"], "url": "http://127.0.0.1:{port}/mcp"`},
		{"mcp.http_transport", strings.Replace(mcpText, `"calls"`, `"url": "http://h/mcp", "calls"`, 1), `"url": "http://h/mcp"`, `"url": "http://h/mcp", "http_transport": "sse"`},
		{"mcp.headers", strings.Replace(mcpText, `"calls"`, `"url": "http://h/mcp", "calls"`, 1), `"url": "http://h/mcp"`, `"url": "http://h/mcp", "headers": {"A": "${K}"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Parse("a.json", []byte(tc.base))
			require.NoError(t, err)
			text := strings.Replace(tc.base, tc.old, tc.new, 1)
			require.NotEqual(t, tc.base, text, "the edit must apply")
			b, err := Parse("b.json", []byte(text))
			require.NoError(t, err)
			if a.Hash() == b.Hash() {
				t.Errorf("changing %s leaves the hash unchanged", tc.name)
			}
		})
	}
	// Retries and the concurrency bound decide whether a call fails, not
	// what it returns.
	a, err := Parse("a.json", []byte(httpText))
	require.NoError(t, err)
	b, err := Parse("b.json", []byte(strings.Replace(httpText, `"result"`, `"retry": {"attempts": 4, "initial": "1s"}, "max_concurrency": 3, "result"`, 1)))
	require.NoError(t, err)
	if a.Hash() != b.Hash() {
		t.Errorf("retry and max_concurrency change the hash")
	}
}

func TestUnmet(t *testing.T) {
	present := writeConfig(t, "{}")
	c := &Config{System: "demo", Config: "d", Requires: []Requirement{
		{Path: present},
		{Path: "/nonexistent/peer/bin", Hint: "make peers"},
		{Kind: "hosted", Env: "DEMO_UNSET_VARIABLE_42"},
		{Program: "sh"},
	}}
	want := []Unmet{
		{Kind: "peer", Reason: "demo/d: /nonexistent/peer/bin: not found (make peers)"},
		{Kind: "hosted", Reason: "demo/d: environment variable DEMO_UNSET_VARIABLE_42 is not set"},
	}
	if diff := cmp.Diff(want, c.Unmet()); diff != "" {
		t.Errorf("Unmet (-want +got):\n%s", diff)
	}
}

func TestLoadDir(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	write("b.json", strings.Replace(validConfig, `"config": "default"`, `"config": "two"`, 1))
	write("a.json", validConfig)
	write("notes.txt", "not a config")
	cs, err := LoadDir(dir)
	require.NoError(t, err)
	var names []string
	for _, c := range cs {
		names = append(names, c.Name())
	}
	if diff := cmp.Diff([]string{"demo/default", "demo/two"}, names); diff != "" {
		t.Errorf("LoadDir names in file order (-want +got):\n%s", diff)
	}
	write("c.json", validConfig)
	write("d.json", "{")
	_, err = LoadDir(dir)
	for _, want := range []string{"c.json: demo/default is also defined by " + filepath.Join(dir, "a.json"), "d.json:1: bad JSON"} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("LoadDir err = %v, want %q", err, want)
		}
	}
}

// mcpValid is a valid MCP config with the given mcp section's fields.
func mcpValid(fields string) string {
	return `{"system": "demo", "config": "mcp", "transport": "mcp", "mcp": {` + fields + `}, "result": {"from": "blob"}}`
}
