// Package systems defines what a retrieval system is to the harness. Each
// implementation lives in a subpackage (bm25, dense, hybrid, graph,
// external) and never imports the harness or the bench package.
package systems

import (
	"context"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// Hit is one ranked result: a doc ID of the indexed corpus and its score
// (higher is better). The harness looks the doc up in the corpus to judge it.
type Hit struct {
	DocID string
	Score float64
}

// System indexes one corpus and answers queries over it.
//
// Index is called once per corpus before any Search. Search returns at most
// k hits ordered best first; an empty result is not an error. A System is
// used by one goroutine at a time.
type System interface {
	Index(ctx context.Context, c *corpus.Corpus) error
	Search(ctx context.Context, query string, k int) ([]Hit, error)
	Close() error
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
