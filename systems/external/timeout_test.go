package external

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

// TestSearchTimeoutFollowsTheConfig: the bound the harness raises its task
// timeout to (60 s by default) follows the config's "timeout", so a
// server given 65 s is not cut at 60 s by a timeout naming no field
// (issue 39 item 4).
func TestSearchTimeoutFollowsTheConfig(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       time.Duration
	}{
		{"command 65s", commandConfig(`, "timeout": "65s"`), 65*time.Second + searchGrace},
		{"command default", commandConfig(``), DefaultTimeout + searchGrace},
		{"http server 90s", `{"system": "s", "config": "c", "transport": "http",
			"http": {"command": ["srv", "{port}"], "url": "http://127.0.0.1:{port}/q?q={query}"},
			"result": {"from": "json", "items": "hits", "path": "path"},
			"timeout": "90s", "start_timeout": "30s"}`, 90*time.Second + 30*time.Second + searchGrace},
	} {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "peer.json")
			require.NoError(t, os.WriteFile(file, []byte(tc.text), 0o644))
			t.Setenv("FAKEPEER", "/bin/true")
			cfg, err := Load(file)
			require.NoError(t, err)
			s, err := New(cfg, systems.Options{CacheDir: t.TempDir()})
			require.NoError(t, err)
			require.Equal(t, tc.want, s.SearchTimeout())
			require.Greater(t, s.SearchTimeout(), 60*time.Second, "above the harness's default task timeout")
		})
	}
}
