// Command fakepeer is a real external retrieval system for the tests of
// package external: a word-count search over a directory, served as
//
//	fakepeer search [-k N] [-abs] DIR QUERY   print JSON results and exit
//	fakepeer searchjsonl [-k N] FILE QUERY    the same over the docs of a docs.jsonl; results {"id", "score"}
//	fakepeer replay FILE QUERY                print {"results": R} where FILE is a JSON object {QUERY: R, …}:
//	                                          hits of any shape, written by a test
//	fakepeer index DIR OUT                    write an index file (a file list) to OUT
//	fakepeer mcp DIR                          an MCP server over stdio (official Go SDK)
//	fakepeer mcphttp [-sse] -addr HOST:PORT DIR  the same over Streamable HTTP (/mcp) or HTTP+SSE (/sse)
//	fakepeer http -addr HOST:PORT DIR         an HTTP server: POST /search {"q": …, "k": …}
//	fakepeer version [-echo VAR]              print a version line (ending VAR=$VAR)
//	fakepeer sleep                            sleep for a long time (a grandchild)
//
// A query word selects a fault, so one server can fail one call and serve
// the next: HANG blocks, CRASH exits 3, GARBAGE writes non-JSON, OVERSIZE
// returns a million items, SECRET echoes $API_KEY to stderr and into the
// error, SPAWN starts a grandchild that sleeps (its pid is appended to
// $FAKEPEER_PIDFILE, as is the server's own), WORKER one that sleeps
// holding the stderr it inherited, SETSID one in a session of its own
// (setsid: out of reach of any process group), ALLOC makes 96 MiB resident and HOLD
// waits 200 ms before answering; $FAKEPEER_LINGER keeps every process alive
// that long after its work (linger). The HTTP server has two more:
// TRUNCATED answers with half of its JSON, HALFCRASH sends half of the
// body it announced and exits 3. LEAK (every transport's JSON search)
// answers normally but echoes $API_KEY to stderr and into every hit's
// snippet, LEAKSYM into every hit's name.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	err := run(os.Args[1:])
	linger()
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakepeer:", err)
		os.Exit(1)
	}
}

// linger keeps the process alive for $FAKEPEER_LINGER (a Go duration)
// after its work, so that a test of PeakRSS sees a command that answers in
// a few milliseconds sampled, whatever the load: the kernel's own figure
// for it cannot be told from its runner's when the runner is larger.
func linger() {
	if d, err := time.ParseDuration(os.Getenv("FAKEPEER_LINGER")); err == nil {
		time.Sleep(d)
	}
}

func run(args []string) error {
	if len(args) == 0 {
		return fmt.Errorf("usage: fakepeer search|index|mcp|http|version|sleep …")
	}
	fmt.Fprintf(os.Stderr, "fakepeer %s starting\n", args[0])
	switch args[0] {
	case "version":
		if len(args) == 3 && args[1] == "-echo" {
			fmt.Printf("fakepeer 1.2.3 %s=%s\n", args[2], os.Getenv(args[2]))
			return nil
		}
		fmt.Println("fakepeer 1.2.3")
		return nil
	case "sleep":
		time.Sleep(time.Hour)
		return nil
	case "index":
		return index(args[1:])
	case "search":
		return search(args[1:])
	case "searchjsonl":
		return searchJSONL(args[1:])
	case "replay":
		return replay(args[1:])
	case "mcp":
		return serveMCP(args[1:])
	case "mcphttp":
		return serveMCPHTTP(args[1:])
	case "http":
		return serveHTTP(args[1:])
	}
	return fmt.Errorf("unknown subcommand %q", args[0])
}

// Result is one hit in the shape the tests' configs map.
type Result struct {
	File    string `json:"file"`
	Lines   Lines  `json:"lines"`
	Name    string `json:"name,omitempty"`
	Score   int    `json:"score"`
	Snippet string `json:"snippet"`
}

type Lines struct {
	Start int `json:"start"`
	End   int `json:"end"`
}

type Results struct {
	Results []Result `json:"results"`
}

// fault performs the fault a query asks for; it returns a non-empty
// error text for SECRET, and reports whether the query was OVERSIZE.
func fault(query string) (errText string, oversize bool) {
	words := strings.Fields(query)
	for _, w := range words {
		switch w {
		case "HANG":
			fmt.Fprintln(os.Stderr, "fakepeer: hanging")
			select {}
		case "CRASH":
			fmt.Fprintln(os.Stderr, "fakepeer: crashing on purpose")
			os.Exit(3)
		case "GARBAGE":
			fmt.Fprintln(os.Stderr, "fakepeer: writing garbage")
			os.Stdout.WriteString("this is not JSON <<<\n")
		case "SECRET":
			fmt.Fprintf(os.Stderr, "fakepeer: my key is %s (leaked)\n", os.Getenv("API_KEY"))
			return "bad key " + os.Getenv("API_KEY"), false
		case "SPAWN":
			spawn()
		case "WORKER":
			spawnWorker()
		case "SETSID":
			spawnSetsid()
		case "OVERSIZE":
			return "", true
		case "ALLOC":
			alloc(allocMiB)
		case "HOLD":
			time.Sleep(holdFor)
		}
	}
	return "", false
}

// leak echoes $API_KEY into r as the query's LEAK and LEAKSYM words ask,
// and to stderr.
func leak(query string, r Results) Results {
	key := os.Getenv("API_KEY")
	snippet, name := hasWord(query, "LEAK"), hasWord(query, "LEAKSYM")
	if snippet || name {
		fmt.Fprintf(os.Stderr, "fakepeer: answering with my key %s in it\n", key)
	}
	for i := range r.Results {
		if snippet {
			r.Results[i].Snippet += " (key " + key + ")"
		}
		if name {
			r.Results[i].Name += "_" + key
		}
	}
	return r
}

// allocMiB is how much ALLOC makes resident, for the peak RSS tests.
const allocMiB = 96

// holdFor is how long HOLD waits before answering: ten of PeakRSS's
// sampling periods, so that the sampler sees a short-lived command's
// peak even when the kernel's figure cannot be told from the runner's.
const holdFor = 200 * time.Millisecond

// alloc makes n MiB resident (every page written) and keeps it until the
// answer is written.
func alloc(n int) {
	b := make([]byte, n<<20)
	for i := range b {
		b[i] = byte(i)
	}
	held = b
}

var held []byte

func spawn() {
	self, _ := os.Executable()
	cmd := exec.Command(self, "sleep")
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fakepeer: spawn:", err)
		return
	}
	writePid("child", cmd.Process.Pid)
}

// spawnWorker starts a grandchild that sleeps holding the server's stderr,
// as the worker processes of a Python web server do.
func spawnWorker() {
	self, _ := os.Executable()
	cmd := exec.Command(self, "sleep")
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fakepeer: worker:", err)
		return
	}
	writePid("child", cmd.Process.Pid)
}

// spawnSetsid starts a grandchild that sleeps in a session of its own
// (setsid), as a daemonizing worker does: no signal to the server's
// process group reaches it. Its pid is appended as "setsid PID".
func spawnSetsid() {
	self, _ := os.Executable()
	cmd := exec.Command(self, "sleep")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "fakepeer: setsid worker:", err)
		return
	}
	writePid("setsid", cmd.Process.Pid)
}

func writePid(what string, pid int) {
	name := os.Getenv("FAKEPEER_PIDFILE")
	if name == "" {
		return
	}
	f, err := os.OpenFile(name, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return
	}
	fmt.Fprintf(f, "%s %d\n", what, pid)
	f.Close()
}

// writeOversize writes a million results as JSON, directly (the SDK's
// output validation of a million structs would take seconds), stopping at
// the first write error.
func writeOversize(w io.Writer) error {
	bw := bufio.NewWriter(w)
	bw.WriteString(`{"results":[`)
	for i := range 1_000_000 {
		if _, err := fmt.Fprintf(bw, `{"file":"f%d.py","score":1},`, i); err != nil {
			return err
		}
	}
	bw.WriteString(`{"file":"last.py"}]}`)
	return bw.Flush()
}

// grep scores every file under dir by how often the query's words occur
// in it, best first (ties by path), and reports each file's first matching
// line, the def/func/class enclosing it and that line as a snippet.
func grep(dir, query string, k int, abs bool) (Results, error) {
	var words []string
	for _, w := range strings.Fields(strings.ToLower(query)) {
		words = append(words, strings.Trim(w, ".,?!()"))
	}
	var out []Result
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		lines := strings.Split(string(b), "\n")
		r := Result{}
		name := ""
		for i, line := range lines {
			t := strings.TrimSpace(line)
			for _, kw := range []string{"def ", "func ", "class "} {
				if rest, ok := strings.CutPrefix(t, kw); ok {
					name = strings.FieldsFunc(rest, func(r rune) bool { return r == '(' || r == ':' || r == ' ' })[0]
				}
			}
			low := strings.ToLower(line)
			n := 0
			for _, w := range words {
				if w != "" {
					n += strings.Count(low, w)
				}
			}
			if n > 0 && r.Score == 0 {
				r.Lines = Lines{Start: i + 1, End: min(i+2, len(lines))}
				r.Name, r.Snippet = name, t
			}
			r.Score += n
		}
		if r.Score == 0 {
			return nil
		}
		r.File = p
		if !abs {
			r.File, _ = filepath.Rel(dir, p)
		}
		out = append(out, r)
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].File < out[j].File
	})
	if len(out) > k {
		out = out[:k]
	}
	return Results{Results: out}, err
}

func index(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: fakepeer index DIR OUT")
	}
	var names []string
	filepath.WalkDir(args[0], func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			names = append(names, p)
		}
		return err
	})
	fmt.Printf("indexed %d files\n", len(names))
	return os.WriteFile(args[1], []byte(strings.Join(names, "\n")), 0o644)
}

func search(args []string) error {
	fl := flag.NewFlagSet("search", flag.ContinueOnError)
	k := fl.Int("k", 10, "results")
	abs := fl.Bool("abs", false, "absolute paths")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 2 {
		return fmt.Errorf("usage: fakepeer search [-k N] [-abs] DIR QUERY")
	}
	errText, big := fault(fl.Arg(1))
	if errText != "" {
		return fmt.Errorf("%s", errText)
	}
	if big {
		return writeOversize(os.Stdout)
	}
	r, err := grep(fl.Arg(0), fl.Arg(1), *k, *abs)
	if err != nil {
		return err
	}
	return json.NewEncoder(os.Stdout).Encode(leak(fl.Arg(1), r))
}

type searchIn struct {
	Query string `json:"query"`
	Limit int    `json:"limit"`
}

func serveMCP(args []string) error {
	if len(args) != 1 {
		return fmt.Errorf("usage: fakepeer mcp DIR")
	}
	writePid("server", os.Getpid())
	return newMCPServer(args[0]).Run(context.Background(), &mcp.StdioTransport{})
}

// serveMCPHTTP serves the MCP server of serveMCP over Streamable HTTP at
// /mcp, or over HTTP+SSE at /sse with -sse. With $FAKEPEER_MCP_TOKEN set,
// a request must carry "Authorization: Bearer $FAKEPEER_MCP_TOKEN"; any
// other is refused with 401 and the header it had in the body.
func serveMCPHTTP(args []string) error {
	fl := flag.NewFlagSet("mcphttp", flag.ContinueOnError)
	addr := fl.String("addr", "127.0.0.1:0", "listen address")
	sse := fl.Bool("sse", false, "HTTP+SSE instead of Streamable HTTP")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return fmt.Errorf("usage: fakepeer mcphttp [-sse] -addr HOST:PORT DIR")
	}
	writePid("server", os.Getpid())
	s := newMCPServer(fl.Arg(0))
	var h http.Handler
	if *sse {
		h = mcp.NewSSEHandler(func(*http.Request) *mcp.Server { return s }, nil)
	} else {
		h = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, nil)
	}
	token := os.Getenv("FAKEPEER_MCP_TOKEN")
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	mux.Handle("/sse", h)
	mux.HandleFunc("/ready", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	return http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("Authorization"); token != "" && r.URL.Path != "/ready" && got != "Bearer "+token {
			http.Error(w, "unauthorized: got "+got, http.StatusUnauthorized)
			return
		}
		mux.ServeHTTP(w, r)
	}))
}

// newMCPServer is the MCP server over dir: the tools search (structured),
// search_text (JSON text), search_md (markdown), resolve and docs.
func newMCPServer(dir string) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "fakepeer", Version: "1.2.3"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "search", Description: "search the corpus; structured results"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, Results, error) {
			if errText, big := fault(in.Query); errText != "" {
				return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: errText}}}, Results{}, nil
			} else if big {
				var b strings.Builder
				writeOversize(&b)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, Results{}, nil
			}
			r, err := grep(dir, in.Query, in.Limit, true)
			return nil, leak(in.Query, r), err
		})
	mcp.AddTool(s, &mcp.Tool{Name: "search_text", Description: "search the corpus; JSON as text"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
			r, err := grep(dir, in.Query, in.Limit, false)
			if err != nil {
				return nil, nil, err
			}
			b, _ := json.Marshal(r)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}}, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "search_md", Description: "search the corpus; markdown sections"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in searchIn) (*mcp.CallToolResult, any, error) {
			r, err := grep(dir, in.Query, in.Limit, true)
			if err != nil {
				return nil, nil, err
			}
			var b strings.Builder
			b.WriteString("[index: 3 files]\n\n")
			for _, x := range r.Results {
				name := x.Name
				if name == "" {
					name = "-"
				}
				fmt.Fprintf(&b, "## %s — %s:%d-%d (score %d)\n%s\n\n", name, x.File, x.Lines.Start, x.Lines.End, x.Score, x.Snippet)
			}
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: b.String()}}}, nil, nil
		})
	type resolveIn struct {
		Name string `json:"name"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "resolve", Description: "resolve a library name to an id (text)"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in resolveIn) (*mcp.CallToolResult, any, error) {
			text := fmt.Sprintf("Libraries:\n- Title: %s\n- Library ID: /lib/%s-docs\n", in.Name, in.Name)
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil, nil
		})
	type docsIn struct {
		ID    string `json:"id"`
		Topic string `json:"topic"`
	}
	mcp.AddTool(s, &mcp.Tool{Name: "docs", Description: "documentation of a library id about a topic (one text blob)"},
		func(ctx context.Context, _ *mcp.CallToolRequest, in docsIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{
				&mcp.TextContent{Text: "# Docs of " + in.ID},
				&mcp.TextContent{Text: "About " + in.Topic + ": call frobnicate(x)."},
			}}, nil, nil
		})
	return s
}

func serveHTTP(args []string) error {
	fl := flag.NewFlagSet("http", flag.ContinueOnError)
	addr := fl.String("addr", "127.0.0.1:0", "listen address")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 1 {
		return fmt.Errorf("usage: fakepeer http -addr HOST:PORT DIR")
	}
	dir := fl.Arg(0)
	writePid("server", os.Getpid())
	l, err := net.Listen("tcp", *addr)
	if err != nil {
		return err
	}
	return http.Serve(l, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var in struct {
			Q string `json:"q"`
			K int    `json:"k"`
		}
		if err := json.NewDecoder(r.Body).Decode(&in); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if errText, big := fault(in.Q); errText != "" {
			http.Error(w, errText, http.StatusInternalServerError)
			return
		} else if big {
			writeOversize(w)
			return
		}
		if hasWord(in.Q, "GARBAGE") {
			io.WriteString(w, "this is not JSON <<<\n")
			return
		}
		res, err := grep(dir, in.Q, in.K, true)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		b, _ := json.Marshal(leak(in.Q, res))
		b = append(b, '\n')
		switch {
		case hasWord(in.Q, "TRUNCATED"):
			fmt.Fprintln(os.Stderr, "fakepeer: truncating the answer")
			w.Write(b[:len(b)/2])
			return
		case hasWord(in.Q, "HALFCRASH"):
			fmt.Fprintln(os.Stderr, "fakepeer: dying mid-answer")
			w.Header().Set("Content-Length", fmt.Sprint(len(b)))
			w.Write(b[:len(b)/2])
			w.(http.Flusher).Flush()
			os.Exit(3)
		}
		w.Write(b)
	}))
}

// hasWord reports whether word is one of the query's words.
func hasWord(query, word string) bool {
	for _, w := range strings.Fields(query) {
		if w == word {
			return true
		}
	}
	return false
}

// searchJSONL scores the docs of a docs.jsonl ({"_id", "title", "text"}
// lines) by how often the query's words occur in title and text, best
// first (ties by id), and prints {"results": [{"id", "score"}]}.
func searchJSONL(args []string) error {
	fl := flag.NewFlagSet("searchjsonl", flag.ContinueOnError)
	k := fl.Int("k", 10, "results")
	if err := fl.Parse(args); err != nil {
		return err
	}
	if fl.NArg() != 2 {
		return fmt.Errorf("usage: fakepeer searchjsonl [-k N] FILE QUERY")
	}
	b, err := os.ReadFile(fl.Arg(0))
	if err != nil {
		return err
	}
	type hit struct {
		ID    string `json:"id"`
		Score int    `json:"score"`
	}
	var out []hit
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var d struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			return err
		}
		text := strings.ToLower(d.Title + " " + d.Text)
		n := 0
		for _, w := range strings.Fields(strings.ToLower(fl.Arg(1))) {
			n += strings.Count(text, w)
		}
		if n > 0 {
			out = append(out, hit{d.ID, n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
	if len(out) > *k {
		out = out[:*k]
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"results": out})
}

// replay prints the results FILE lists for QUERY (a JSON object from query
// to a list of result objects, any fields), so that a test can hand a
// system's hits of every shape to the code that judges them; a query FILE
// does not list is an error.
func replay(args []string) error {
	if len(args) != 2 {
		return fmt.Errorf("usage: fakepeer replay FILE QUERY")
	}
	b, err := os.ReadFile(args[0])
	if err != nil {
		return err
	}
	var all map[string][]json.RawMessage
	if err := json.Unmarshal(b, &all); err != nil {
		return fmt.Errorf("%s: %w", args[0], err)
	}
	r, ok := all[args[1]]
	if !ok {
		return fmt.Errorf("%s: no results for query %q", args[0], args[1])
	}
	return json.NewEncoder(os.Stdout).Encode(map[string]any{"results": r})
}
