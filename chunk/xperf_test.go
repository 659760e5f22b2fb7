package chunk_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets/cases"
)

// xperfVersion is golang.org/x/perf as go.mod requires it (internal/benchstat
// comes from it), so its source is in the module cache of any machine that
// builds this module.
const xperfVersion = "v0.0.0-20260908200009-22c9c6c9d4da"

// TestRepoOptionsXPerf chunks golang.org/x/perf — a real module nobody here
// wrote, the one issue 37 tried as a new user would — as a campaign does
// (cases.LoadRepo, then Corpus), with DefaultOptions and with RepoOptions,
// and checks what RepoOptions is for: the 22 MB of testdata/ (a 199 KB JSON
// file among them) is not indexed, the 421-line package doc comment of
// cmd/benchstat/main.go is no longer one chunk, and no chunk is over the
// limits. It logs the numbers docs/chunking.md reports.
func TestRepoOptionsXPerf(t *testing.T) {
	if testing.Short() {
		t.Skip("chunks a 24 MB module")
	}
	out, err := exec.Command("go", "env", "GOMODCACHE").Output()
	require.NoError(t, err)
	dir := filepath.Join(strings.TrimSpace(string(out)), "golang.org/x/perf@"+xperfVersion)
	c, _, err := cases.LoadRepo("x/perf", cases.RepoSpec{Path: dir}, "")
	if err != nil {
		t.Skipf("SKIP (x/perf source missing: run `go mod download golang.org/x/perf`): %v", err)
	}

	before, stBefore, err := chunk.Corpus(c, chunk.DefaultOptions())
	require.NoError(t, err)
	opt := chunk.RepoOptions()
	after, stAfter, err := chunk.Corpus(c, opt)
	require.NoError(t, err)
	t.Logf("DefaultOptions: %d docs; %v", len(before.Docs), stBefore)
	t.Logf("RepoOptions:    %d docs; %v", len(after.Docs), stAfter)

	// What the default chunking indexed that RepoOptions does not.
	big := "cmd/benchseries/testdata/"
	require.True(t, hasPrefix(before, big), "precondition: DefaultOptions indexes %s", big)
	require.False(t, hasPrefix(after, big), "RepoOptions indexes %s", big)
	require.Greater(t, stAfter.Excluded.Bytes, 20<<20, "testdata/ alone is over 20 MB")
	require.Positive(t, stAfter.Excluded.By["testdata/"])

	// The package doc of cmd/benchstat: one module chunk before, cut after.
	const main = "cmd/benchstat/main.go"
	mod := func(cc *corpus.Corpus) []corpus.Doc {
		var out []corpus.Doc
		for _, d := range cc.Docs {
			if d.Path == main && d.Kind == chunk.KindModule {
				out = append(out, d)
			}
		}
		return out
	}
	b, a := mod(before), mod(after)
	require.Len(t, b, 1, "precondition: the package doc is one module chunk")
	require.Greater(t, b[0].EndLine-b[0].StartLine+1, 400)
	require.Greater(t, len(a), 1, "the package doc comment is cut")
	t.Logf("%s module chunk: %d lines → %d parts", main, b[0].EndLine-b[0].StartLine+1, len(a))

	for _, d := range after.Docs {
		oneLine := !strings.Contains(d.Text, "\n")
		if (textLines(d) > opt.MaxChunkLines || len(d.Text) > opt.MaxChunkBytes) && !oneLine {
			t.Errorf("%s: %d lines, %d bytes: over the limits %d lines, %d bytes", d.ID, textLines(d), len(d.Text), opt.MaxChunkLines, opt.MaxChunkBytes)
		}
	}
	require.LessOrEqual(t, stAfter.LargestLines, opt.MaxChunkLines)
}

func hasPrefix(c *corpus.Corpus, prefix string) bool {
	for _, d := range c.Docs {
		if strings.HasPrefix(d.Path, prefix) {
			return true
		}
	}
	return false
}

func textLines(d corpus.Doc) int { return strings.Count(d.Text, "\n") + 1 }
