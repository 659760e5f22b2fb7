package external

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

// versionsConfig declares a version; TestVersions adds a version_command.
const versionsConfig = `{"system": "demo", "config": "default", "versions": {"demo": "1.0"},
  "transport": "command", "command": {"search": ["demo", "{query}"]}, "result": {"from": "blob"}}`

// TestVersions runs a real version_command (testdata/fakepeer).
func TestVersions(t *testing.T) {
	c, err := Parse("demo.json", []byte(versionsConfig))
	require.NoError(t, err)
	got, err := c.Versions(t.Context())
	require.NoError(t, err)
	if diff := cmp.Diff(map[string]string{"demo": "1.0"}, got); diff != "" {
		t.Errorf("declared versions (-want +got):\n%s", diff)
	}
	fakepeer(t)
	c.VersionCommand = []string{"${FAKEPEER}", "version"}
	got, err = c.Versions(t.Context())
	require.NoError(t, err)
	if diff := cmp.Diff(map[string]string{"demo": "fakepeer 1.2.3"}, got); diff != "" {
		t.Errorf("version_command (-want +got):\n%s", diff)
	}
	c.VersionCommand = []string{"${FAKEPEER}", "nosuch"}
	if _, err := c.Versions(t.Context()); err == nil || !strings.Contains(err.Error(), `unknown subcommand "nosuch"`) {
		t.Errorf("a failing version_command: err = %v, want its stderr", err)
	}
}
