// Package external is one systems.System driven by a declarative JSON
// config, so that a new external retrieval system (an MCP server, a
// command-line tool, an HTTP service) is a file, not Go code.
// docs/external-systems.md describes every field with examples.
//
// # Life of a system
//
//	cfg, err := external.Load("peers/pydocs-mcp.json") // file:line errors
//	sys, err := external.New(cfg, opts)
//	sys.Index(ctx, corpus)   // hand over, write files, index command, start server
//	sys.SearchQuery(ctx, q, k)
//	sys.Close()              // kill every process group it started
//
// Index writes the corpus's files (whole files: the system is a
// systems.FileIndexer) into a content-addressed tree
// <cache>/external/corpora/<corpus hash>[-git]/, written beside and renamed
// into place, shared by every run; with "corpus": {"git": true} it is a git
// repository with one commit whose hash depends only on the files; with
// "corpus": {"jsonl": true} it is one docs.jsonl (a document collection,
// whose hits name doc ids through result.doc_id). Each
// config and corpus also get a work directory
// <cache>/external/work/<system>/<config>-<config hash[:12]>/<corpus hash[:16]>/
// for the tool's index and config files; a completed index command leaves a
// marker there with the config hash, the tool's version (its
// version_command's output, else the SHA-256 of the files the config names:
// requires paths and the programs it starts) and the build time. A later
// Index reuses the index only when hash and version match (else it empties
// the directory and builds anew) and Options.NoCache is not set, and says so
// in IndexReport, with the original build time.
//
// # Transports
//
// "mcp" starts mcp.command over stdio with the official Go SDK
// (github.com/modelcontextprotocol/go-sdk), or connects to mcp.url over
// Streamable HTTP or HTTP+SSE (mcphttp.go: a hosted server, or one
// mcp.command starts on a free {port}), and runs mcp.calls per query in
// order; a call may capture values ("capture") for later calls and for
// result.library. "command" runs command.search per query and reads its
// stdout. "http" sends one request per query, optionally to a server that
// http.command starts on a free {port}. HTTP requests are retried as
// "retry" says (retry.go); "max_concurrency" bounds the queries of a config
// in flight. A child sees only an allowlist of the environment (env.go).
//
// # Results
//
// result.from says what is mapped: "structured" (MCP structuredContent),
// "json" (stdout, the HTTP body or the MCP text content parsed as JSON),
// "text" (the text split into items where result.item_regex matches, its
// named groups giving the fields: markdown answers) or "blob" (the text
// taken whole as one composite hit with Text only). Each
// item of result.items becomes a systems.Hit with a corpus-relative Path
// (absolute paths under the corpus directory and file:// URLs are made
// relative). A hit whose path is outside the corpus keeps its rank but
// loses its path, lines and symbol, so it matches no gold; such hits are
// counted in Warnings rather than silently dropped, which would move the
// system's later hits up.
//
// # Faults
//
// Every call has a timeout; stdout, HTTP bodies and MCP frames are capped
// (max_output_bytes) and at most k items are kept. A call that hangs,
// crashes, prints garbage or returns too much fails that query only, with
// the last 4 KiB of the process's stderr in the error; an MCP or HTTP server
// that failed a call is stopped and restarted for the next query (at most
// maxRestarts times). Every child runs in its own process group, which is
// killed as a whole when its context ends, after a command exits, and on
// Close — and when the program running the benchmark dies, however it dies
// (internal/proc/reaper.go). The values of the variables named in "secrets"
// are replaced by "***" in every error, stderr tail, log line and hit text.
//
// # Layout
//
// This package is the System and its transports, a file each. The config
// language is internal/config (its placeholders internal/template, its
// result section internal/mapping), re-exported here as aliases; process
// supervision is internal/proc, the corpus handover internal/corpusdir and
// secret redaction internal/redact.
package external
