package external

import (
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestSetsidWorkerDiesWithTheCell: a server's worker that left the
// server's process group and session (setsid, as daemonizing workers do)
// is killed when the system is closed — the cell ends — as the server is
// (issue 39 item 3: it survived every signal). The package is a child
// subreaper, so the orphaned worker is ours to find and kill; a command
// per query (command transport) leaves none either.
func TestSetsidWorkerDiesWithTheCell(t *testing.T) {
	for _, tc := range []struct{ name, cfg string }{
		{"http-server", `{
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE"], "config": "http", "transport": "http",
	"http": {"command": ["${FAKEPEER}", "http", "-addr", "127.0.0.1:{port}", "{corpus}"],
	         "url": "http://127.0.0.1:{port}/search", "body": {"q": "{query}", "k": "{k}"}},
	` + fmt.Sprintf(mapAll, FromJSON) + `
}`},
		{"command", commandConfig(`, "timeout": "20s"`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pidfile := filepath.Join(t.TempDir(), "pids")
			t.Setenv("FAKEPEER_PIDFILE", pidfile)
			s, _ := setup(t, tc.cfg)
			_, err := s.Search(t.Context(), "SETSID widget", 10)
			require.NoError(t, err)
			worker := pids(t, pidfile)["setsid"]
			require.Len(t, worker, 1)
			require.NoError(t, s.Close())
			waitDead(t, "the setsid worker", worker[0])
		})
	}
}
