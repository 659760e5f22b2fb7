// Package systems defines what a retrieval system is to the harness. Each
// implementation lives in a subpackage (bm25, dense, hybrid, graph,
// external) and never imports the harness or the bench package.
package systems

import (
	"context"
	"time"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// Hit is one ranked result, best first.
//
// A built-in system names a doc of the indexed corpus by DocID. A system that
// does not know our doc ids (an external one: an MCP server, a command-line
// tool, an HTTP service) leaves DocID empty and says where its hit is instead:
// a corpus-relative Path, maybe a line range and a Symbol, maybe the Text it
// returned. The harness judges both kinds by the same rules (see package
// judge): a hit by DocID is judged as the doc it names.
type Hit struct {
	DocID string
	Score float64 // higher is better; informational (the order is the ranking)

	// Location of a hit that has no DocID.
	Path      string // slash-separated, relative to the corpus root
	StartLine int    // 1-based, inclusive; 0 when unknown
	EndLine   int    // 1-based, inclusive; 0 when unknown (or same as StartLine)
	Symbol    string // qualified name as the system reports it ("pkg.mod.Class.method")
	Text      string // the text the system returned, if any
	// Library is the library the system resolved the query to (hosted
	// documentation systems such as Context7); "" if it resolves none.
	Library string
}

// System indexes one corpus and answers queries over it.
//
// Index is called once per corpus before any Search. Search returns at most
// k hits ordered best first; an empty result is not an error. A System is
// used by one goroutine at a time, and Close is called only after every
// Search has returned (the harness waits for an abandoned call first).
type System interface {
	Index(ctx context.Context, c *corpus.Corpus) error
	Search(ctx context.Context, query string, k int) ([]Hit, error)
	Close() error
}

// Query is a search request with the task facts that some systems take as
// parameters (a hosted documentation system is asked about one library).
type Query struct {
	Text    string
	Library string // the task's library, "" if none (datasets.Meta.Library)
	Repo    string // the task's repository, "" if none (datasets.Meta.Repo)
	// Task is the task's id, for error messages that name it ("" outside
	// the harness).
	Task string
}

// ModelInfo describes a model a system embeds with.
type ModelInfo struct {
	ID string
	// Source says where the model was described: "built-in", "user
	// manifest", "folder" or "endpoint" (embed/models.Model.Source).
	Source    string
	Dimension int
	// Parameters is the count of the ONNX graph's weights
	// (embed/models.Parameters); 0 when unknown (a server's model).
	Parameters int64
	// Engine is EngineInProcess (ONNX Runtime in this process) or
	// EngineServer (an OpenAI-compatible embeddings server).
	Engine string
	// Served is the server's model name and declared revision
	// ("model@revision"), for EngineServer; never its URL or key.
	Served string
	// What the model manifest says of how it embeds (embed/models.Model),
	// for a campaign's run.json: its Fingerprint (its files' hashes), pooling,
	// token limit and prefixes.
	Fingerprint, Pooling       string
	MaxTokens                  int
	QueryPrefix, PassagePrefix string
}

// Engines of ModelInfo.
const (
	EngineInProcess = "in-process"
	EngineServer    = "server"
)

// IndexReport is how the last Index call came by its index.
type IndexReport struct {
	// Reused is true when an index an earlier run built was used.
	Reused bool
	// BuildTime is how long building the index took: the earlier run's
	// when Reused (0 when that run did not record it), else this call's.
	BuildTime time.Duration
	// CPUClass is the internal/cpuclass of the machine that built it, as
	// recorded with the cache entry ("" when unknown).
	CPUClass string
}

// Options are what every system constructor receives from the harness.
type Options struct {
	// CacheDir is the root of on-disk caches; a system keeps its indexes in
	// a subdirectory named after itself, keyed by corpus hash and config.
	CacheDir string
	// NoCache asks the system to build from scratch (index benchmarks).
	NoCache bool
	// Logf receives progress lines (indexing rate); nil means silent.
	Logf func(format string, args ...any)
}
