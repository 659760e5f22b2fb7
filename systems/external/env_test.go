package external

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestEnvAllowlist: a child sees DefaultEnvPass, what env_pass names and
// what env sets — not the rest of the benchmark's environment (a user's
// other keys).
func TestEnvAllowlist(t *testing.T) {
	t.Setenv("BENCH_OTHER_TOKEN", "tok-1")
	t.Setenv("PASSME", "passed")
	t.Setenv("LANG", "C.UTF-8")
	cfg := func(pass string) string {
		return `{"system": "envcheck", "config": "c", "transport": "command"` + pass + `,
	"env": {"FROMCFG": "set-{work}"},
	"command": {"search": ["${FAKEPEER}", "version", "-echo", "{query}"]},
	"result": {"from": "blob"}}`
	}
	echo := func(s *System, name string) string {
		t.Helper()
		hits, err := s.Search(t.Context(), name, 1)
		require.NoError(t, err)
		require.Len(t, hits, 1)
		_, v, _ := strings.Cut(strings.TrimSpace(hits[0].Text), name+"=")
		return v
	}
	s, _ := setup(t, cfg(`, "env_pass": ["PASSME"]`))
	for name, want := range map[string]string{"BENCH_OTHER_TOKEN": "", "PASSME": "passed", "LANG": "C.UTF-8", "PATH": os.Getenv("PATH")} {
		if got := echo(s, name); got != want {
			t.Errorf("the child sees %s=%q, want %q", name, got, want)
		}
	}
	if got := echo(s, "FROMCFG"); !strings.HasPrefix(got, "set-/") {
		t.Errorf("the child sees FROMCFG=%q, want env's value", got)
	}
	all, _ := setup(t, cfg(`, "env_pass": ["*"]`))
	if got := echo(all, "BENCH_OTHER_TOKEN"); got != "tok-1" {
		t.Errorf(`with env_pass ["*"] the child sees BENCH_OTHER_TOKEN=%q, want the whole environment`, got)
	}
}
