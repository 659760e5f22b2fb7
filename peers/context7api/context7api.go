// Package context7api is a loopback server that speaks the two endpoints of
// the Context7 HTTP API that the real @upstash/context7-mcp server calls, so
// that server can run offline against documentation entries we give it.
//
// The real MCP server (4.1.1, dist/lib/api.js) reads its API base from
// CONTEXT7_API_URL and sends, with headers X-Context7-Source: mcp-server,
// X-Context7-Server-Version, X-Context7-Transport: stdio, mcp-session-id,
// X-Context7-Client-IDE/-Version when the client named itself, and
// Authorization: Bearer KEY when CONTEXT7_API_KEY is set:
//
//	GET {base}/v2/libs/search?query=Q&libraryName=NAME
//	    → 200 JSON {"results":[{"id","title","description","totalSnippets","trustScore","benchmarkScore","versions","source"}]}
//	      (it formats each result as text; no result → "No libraries found …")
//	GET {base}/v2/context?query=Q&libraryId=/org/project
//	    → 200 text, passed through whole as the tool's one text content;
//	      an empty body → "Documentation not found …"; non-2xx → the JSON
//	      body's "message", else a message chosen by status (404: unknown library)
//
// What this server answers is our own ranking, not Context7's: libraries are
// matched by name (exact, then substring), and a library's docs are ranked
// by BM25 over the query. A cell that drives the real MCP server through it
// measures the adapter and the protocol, not Context7's retrieval.
package context7api

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"unicode"
)

// Doc is one documentation entry.
type Doc struct {
	ID     string // stable id, e.g. "pandas.reference.api.pandas.dataframe.where"
	Title  string // heading of its section in the returned text ("" = ID)
	Text   string
	Source string // shown as "Source:" ("" = ID)
}

// Library is one library the server knows, with its docs.
type Library struct {
	ID          string   // Context7-style "/org/project"
	Title       string   // e.g. "pandas"
	Description string   // one line
	Aliases     []string // other names it is found by ("sklearn", "torch")
	Docs        []Doc
}

// Options are the server's tunables.
type Options struct {
	// MaxDocs is how many of a library's best docs /v2/context returns.
	MaxDocs int
}

// DefaultOptions returns the options New uses for a zero field.
func DefaultOptions() Options { return Options{MaxDocs: 5} }

// Request is one request the server received, for tests and reports. The
// Authorization header's value is never kept, only whether it was set.
type Request struct {
	Path    string
	Query   map[string]string // first value of each parameter
	Headers map[string]string // X-Context7-*, mcp-session-id; "Authorization": "set" when present
}

// Server answers the Context7 API endpoints from a fixed set of libraries.
// It is an http.Handler; Listen serves it on a loopback port.
type Server struct {
	libs  []*library
	byID  map[string]*library
	opt   Options
	mu    sync.Mutex
	reqs  []Request
	httpS *http.Server
	ln    net.Listener
}

type library struct {
	Library
	names []string // normalized title and aliases
	index *bm25
}

// New builds a server over libs. Library ids must be unique, start with "/"
// and name at least one doc; doc ids must be unique within a library.
func New(libs []Library, opt Options) (*Server, error) {
	if opt.MaxDocs <= 0 {
		opt.MaxDocs = DefaultOptions().MaxDocs
	}
	s := &Server{byID: map[string]*library{}, opt: opt}
	for i, l := range libs {
		switch {
		case !strings.HasPrefix(l.ID, "/") || len(l.ID) < 2:
			return nil, fmt.Errorf("context7api: library %d (%q): id must look like /org/project", i, l.ID)
		case l.Title == "":
			return nil, fmt.Errorf("context7api: library %s: empty title", l.ID)
		case s.byID[l.ID] != nil:
			return nil, fmt.Errorf("context7api: library %s: duplicate id", l.ID)
		case len(l.Docs) == 0:
			return nil, fmt.Errorf("context7api: library %s: no docs", l.ID)
		}
		seen := map[string]bool{}
		for _, d := range l.Docs {
			if d.ID == "" || seen[d.ID] {
				return nil, fmt.Errorf("context7api: library %s: empty or duplicate doc id %q", l.ID, d.ID)
			}
			seen[d.ID] = true
		}
		lib := &library{Library: l, index: newBM25(l.Docs)}
		for _, n := range append([]string{l.Title}, l.Aliases...) {
			lib.names = append(lib.names, normalize(n))
		}
		s.libs = append(s.libs, lib)
		s.byID[l.ID] = lib
	}
	return s, nil
}

// Listen serves s on 127.0.0.1 at a free port and returns the base URL to
// put in CONTEXT7_API_URL (no trailing slash). Close stops it.
func (s *Server) Listen() (string, error) {
	if s.ln != nil {
		return "", errors.New("context7api: already listening")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("context7api: %w", err)
	}
	s.ln = ln
	s.httpS = &http.Server{Handler: s}
	go s.httpS.Serve(ln)
	return "http://" + ln.Addr().String(), nil
}

// Close stops a server started by Listen.
func (s *Server) Close() error {
	if s.httpS == nil {
		return nil
	}
	return s.httpS.Close()
}

// Requests returns a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

// SearchResult is one entry of the /v2/libs/search response.
type SearchResult struct {
	ID             string   `json:"id"`
	Title          string   `json:"title"`
	Description    string   `json:"description"`
	TotalSnippets  int      `json:"totalSnippets"`
	TrustScore     float64  `json:"trustScore"`
	BenchmarkScore float64  `json:"benchmarkScore"`
	Versions       []string `json:"versions"`
	Source         string   `json:"source,omitempty"`
}

// SearchResponse is the /v2/libs/search response body.
type SearchResponse struct {
	Results []SearchResult `json:"results"`
}

// ServeHTTP implements the two endpoints; anything else is 404 with a JSON
// message, as the real API's errors are.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.record(r)
	if r.Method != http.MethodGet {
		writeError(w, http.StatusMethodNotAllowed, "only GET is served")
		return
	}
	q := r.URL.Query()
	switch r.URL.Path {
	case "/v2/libs/search":
		name := q.Get("libraryName")
		if name == "" {
			writeError(w, http.StatusBadRequest, "libraryName is required")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(SearchResponse{Results: s.Search(name)})
	case "/v2/context":
		id := q.Get("libraryId")
		if _, ok := s.byID[id]; !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("library %q not found", id))
			return
		}
		text, _ := s.Context(id, q.Get("query"))
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprint(w, text)
	default:
		writeError(w, http.StatusNotFound, "no such endpoint: "+r.URL.Path)
	}
}

// Search returns the libraries matching name: exact matches of the title or
// an alias first, then those where one contains the other; ties in id order.
func (s *Server) Search(name string) []SearchResult {
	n := normalize(name)
	type scored struct {
		lib   *library
		score int
	}
	var hits []scored
	for _, l := range s.libs {
		best := 0
		for _, ln := range l.names {
			switch {
			case n == ln:
				best = max(best, 2)
			case n != "" && (strings.Contains(ln, n) || strings.Contains(n, ln)):
				best = max(best, 1)
			}
		}
		if best > 0 {
			hits = append(hits, scored{l, best})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].lib.ID < hits[j].lib.ID
	})
	out := make([]SearchResult, 0, len(hits))
	for _, h := range hits {
		out = append(out, SearchResult{
			ID: h.lib.ID, Title: h.lib.Title, Description: h.lib.Description,
			TotalSnippets: len(h.lib.Docs), TrustScore: 7, BenchmarkScore: 0, Versions: []string{},
		})
	}
	return out
}

// Context returns the /v2/context text for a library and query: its best
// MaxDocs docs by BM25, each as a titled section with its full text, and the
// ids of those docs in order. An unknown library is an error.
func (s *Server) Context(libraryID, query string) (string, []string) {
	l, ok := s.byID[libraryID]
	if !ok {
		return "", nil
	}
	var b strings.Builder
	var ids []string
	for _, i := range l.index.top(query, s.opt.MaxDocs) {
		d := l.Docs[i]
		title, src := d.Title, d.Source
		if title == "" {
			title = d.ID
		}
		if src == "" {
			src = d.ID
		}
		if b.Len() > 0 {
			b.WriteString("\n--------------------------------\n\n")
		}
		fmt.Fprintf(&b, "### %s\n\nSource: %s\n\n%s\n", title, src, strings.TrimSpace(d.Text))
		ids = append(ids, d.ID)
	}
	return b.String(), ids
}

func (s *Server) record(r *http.Request) {
	req := Request{Path: r.URL.Path, Query: map[string]string{}, Headers: map[string]string{}}
	for k, v := range r.URL.Query() {
		req.Query[k] = v[0]
	}
	for k, v := range r.Header {
		lk := strings.ToLower(k)
		switch {
		case lk == "authorization":
			req.Headers["Authorization"] = "set"
		case strings.HasPrefix(lk, "x-context7-") || lk == "mcp-session-id" || lk == "mcp-client-ip-assertion":
			req.Headers[http.CanonicalHeaderKey(k)] = v[0]
		}
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
}

func writeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"message": msg})
}

// normalize lowercases and keeps letters and digits only, so "Scikit-Learn",
// "scikit_learn" and "scikitlearn" are one name.
func normalize(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteRune(r)
		}
	}
	return b.String()
}
