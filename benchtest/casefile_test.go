package benchtest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
)

// TestCaseFileChunksAsACampaign: a case file's go test cells chunk each
// repository as a campaign does (chunk.RepoOptions, then the manifest
// entry's excludes), not with the catalogue's recorded chunking.
func TestCaseFileChunksAsACampaign(t *testing.T) {
	dir := t.TempDir()
	manifest := filepath.Join(dir, "repos.json")
	require.NoError(t, os.WriteFile(manifest, []byte(`{"a": {"path": "a", "commit": "x", "exclude": ["!testdata/"]}, "b": {"path": "b", "commit": "y"}}`), 0o644))
	f := CaseFile(filepath.Join(dir, "cases.jsonl"), manifest)
	require.Len(t, f.Datasets, 1)
	opt := f.Datasets[0].Chunking
	require.NotNil(t, opt, "a case file must not use the catalogue's chunking")
	require.Equal(t, append(chunk.DefaultExcludePaths(), "!testdata/"), opt("a").Exclude.Paths)
	require.Equal(t, chunk.RepoOptions().Key(), opt("b").Key())
	require.NotEqual(t, chunk.DefaultOptions().Key(), opt("b").Key())
}
