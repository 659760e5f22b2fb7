//go:build !sqlite_fts5 && !fts5 && !libsqlite3

package bm25

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/systems"
)

// TestMain stops a test run built without FTS5 at once, after checking
// that New explains the fix, instead of failing every test on its own.
func TestMain(m *testing.M) {
	_, err := New(DefaultConfig(), systems.Options{})
	if err == nil || !strings.Contains(err.Error(), "-tags=sqlite_fts5") || strings.Contains(err.Error(), "Makefile") {
		fmt.Fprintf(os.Stderr, "built without the sqlite_fts5 tag, New should say so; got error %v\n", err)
		os.Exit(1)
	}
	fmt.Fprintf(os.Stderr, "bm25 tests need FTS5: %v\n", err)
	os.Exit(1)
}
