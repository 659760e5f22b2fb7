package external

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

// TestSpecUnsupported: a config's "unsupported" list reaches the Schedule,
// so the bench has the cell and skips it with the reason; without the list
// the config's Only alone decides.
func TestSpecUnsupported(t *testing.T) {
	cfg, err := Parse("peer.json", []byte(commandConfig(`,
	"only": ["repoqa/*"],
	"unsupported": [{"datasets": "repoqa-langs/go-*", "reason": "reads no .go files"}]`)))
	require.NoError(t, err)
	s := Spec(cfg)
	require.NoError(t, s.Validate())
	want := []systems.Unsupported{{Datasets: "repoqa-langs/go-*", Reason: "reads no .go files"}}
	if diff := cmp.Diff(want, s.Bench.Unsupported); diff != "" {
		t.Errorf("Bench.Unsupported (-want +got):\n%s", diff)
	}
	if why, ok := s.Bench.UnsupportedOn("repoqa-langs", "go-doc"); !ok || why != "reads no .go files" || s.Bench.RunsOn("repoqa-langs", "go-doc") || !s.Bench.HasCell("repoqa-langs", "go-doc") {
		t.Errorf("repoqa-langs/go-doc: UnsupportedOn = %q, %v; RunsOn %v; HasCell %v; want the reason, a cell, no run", why, ok, s.Bench.RunsOn("repoqa-langs", "go-doc"), s.Bench.HasCell("repoqa-langs", "go-doc"))
	}
	if !s.Bench.RunsOn("repoqa", "docstring") || s.Bench.HasCell("repoqa-langs", "java-doc") {
		t.Error("only: repoqa/docstring must run, repoqa-langs/java-doc have no cell")
	}
}
