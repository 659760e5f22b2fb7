package cases

import (
	"slices"

	"github.com/retrievalbench/retrievalbench/chunk"
)

// ChunkOptions are the chunking options of repository repo: base with the
// repository's own exclude patterns (RepoSpec.Exclude) after base's, so
// that they can leave more out or, with "!", keep what base leaves out.
// A repository the manifest does not name gets base.
func (m Manifest) ChunkOptions(repo string, base chunk.Options) chunk.Options {
	s, ok := m.Repos[repo]
	if !ok || len(s.Exclude) == 0 {
		return base
	}
	base.Exclude.Paths = append(slices.Clone(base.Exclude.Paths), s.Exclude...)
	return base
}

// validateExclude reports a malformed exclude pattern.
func (s RepoSpec) validateExclude() error {
	return chunk.Exclude{Paths: s.Exclude}.Validate()
}
