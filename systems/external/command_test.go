package external

import (
	"fmt"
	"os"
	"path/filepath"
	goruntime "runtime"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

func commandConfig(extra string) string {
	return `{
	"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE", "FAKEPEER_LINGER"], "config": "cmd",
	"env": {"API_KEY": "${FAKEPEER_TEST_KEY:-none}"},
	"secrets": ["API_KEY"],
	"files": {"notes/hello.txt": "zanzibar at {corpus}\n"},
	"index": {"command": ["${FAKEPEER}", "index", "{corpus}", "{work}/files.txt"], "timeout": "1m"},
	"transport": "command",
	"command": {"search": ["${FAKEPEER}", "search", "-abs", "-k", "{k}", "{corpus}", "{query}"]},
	` + fmt.Sprintf(mapAll, FromJSON) + extra + `
}`
}

func TestCommandHits(t *testing.T) {
	s, cache := setup(t, commandConfig(`, "timeout": "20s"`))
	got, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err)
	diffHits(t, "widget", wantWidget, got)
	got, err = s.SearchQuery(t.Context(), systems.Query{Text: "frobnicate", Library: "ignored"}, 10)
	require.NoError(t, err)
	diffHits(t, "frobnicate", wantFrob, got)
	got, err = s.Search(t.Context(), "frobnicate", 1)
	require.NoError(t, err)
	diffHits(t, "frobnicate k=1", wantFrob[:1], got)
	got, err = s.Search(t.Context(), "nowhere", 10)
	require.NoError(t, err)
	diffHits(t, "no match", nil, got)

	// The index command ran in the work directory over the handed-over
	// corpus, and the templated file was written there first.
	work := s.rt.work
	if !strings.HasPrefix(work, filepath.Join(cache, "external", "work", "fakepeer")) {
		t.Errorf("work dir %s is not under the cache's external/work/fakepeer", work)
	}
	b, err := os.ReadFile(filepath.Join(work, "files.txt"))
	require.NoError(t, err)
	if n := len(strings.Split(string(b), "\n")); n != 3 {
		t.Errorf("index listed %d files, want the corpus's 3:\n%s", n, b)
	}
	b, err = os.ReadFile(filepath.Join(work, "notes", "hello.txt"))
	require.NoError(t, err)
	if want := "zanzibar at " + s.m.Dir() + "\n"; string(b) != want {
		t.Errorf("files: got %q, want %q", b, want)
	}
}

func TestCommandIndexReused(t *testing.T) {
	s, cache := setup(t, commandConfig(""))
	require.NoError(t, s.Close())
	list := filepath.Join(s.rt.work, "files.txt")
	require.NoError(t, os.Remove(list))
	again := func(noCache bool) {
		t.Helper()
		cfg := s.cfg
		s2, err := New(cfg, systems.Options{CacheDir: cache, NoCache: noCache})
		require.NoError(t, err)
		defer s2.Close()
		require.NoError(t, s2.Index(t.Context(), testCorpus()))
	}
	again(false)
	if _, err := os.Stat(list); err == nil {
		t.Errorf("the index command ran again although the work dir holds a completed index")
	}
	again(true)
	if _, err := os.Stat(list); err != nil {
		t.Errorf("NoCache did not rerun the index command: %v", err)
	}
}

func TestCommandFaults(t *testing.T) {
	const canary = "canary-8f3a1c"
	t.Setenv("FAKEPEER_TEST_KEY", canary)
	s, _ := setup(t, commandConfig(`, "timeout": "2s", "max_output_bytes": 1048576`))
	for _, tc := range []struct {
		query  string
		want   []string
		reason string
	}{
		{"HANG", []string{"timed out after 2s", "fakepeer: hanging"}, "a hung command is killed at the call's timeout"},
		{"CRASH", []string{"exit status 3", "crashing on purpose"}, "a crash names its status and shows the stderr tail"},
		{"GARBAGE", []string{"not JSON", "this is not JSON", "writing garbage"}, "non-JSON stdout is an error with a snippet and the stderr tail"},
		{"OVERSIZE", []string{"stdout exceeds 1048576 bytes"}, "a million items hit the output cap"},
		{"SECRET", []string{"bad key ***", "my key is *** (leaked)"}, "the secret is redacted from the error and the stderr tail"},
	} {
		t.Run(tc.query, func(t *testing.T) {
			_, err := s.Search(t.Context(), tc.query, 10)
			require.Error(t, err, tc.reason)
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error lacks %q:\n%v", tc.reason, w, err)
				}
			}
			if strings.Contains(err.Error(), canary) {
				t.Errorf("the secret leaked into the error:\n%v", err)
			}
			// The fault failed this call only.
			got, err := s.Search(t.Context(), "widget", 10)
			require.NoError(t, err, "the call after a fault")
			diffHits(t, "after "+tc.query, wantWidget, got)
		})
	}
}

func TestCommandKillsWhatItLeaves(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("FAKEPEER_PIDFILE", pidfile)
	s, _ := setup(t, commandConfig(""))
	got, err := s.Search(t.Context(), "widget SPAWN", 10)
	require.NoError(t, err)
	diffHits(t, "widget SPAWN", wantWidget, got)
	child := pids(t, pidfile)["child"]
	require.Len(t, child, 1, "fakepeer search SPAWN starts one grandchild")
	waitDead(t, "the grandchild a search command left running", child[0])
}

func TestCommandOutsideCorpus(t *testing.T) {
	// Searching the work dir instead of the corpus finds notes/hello.txt,
	// a file outside the corpus.
	s, _ := setup(t, strings.Replace(commandConfig(""), `"{k}", "{corpus}"`, `"{k}", "{work}"`, 1))
	got, err := s.Search(t.Context(), "zanzibar", 10)
	require.NoError(t, err)
	// Kept at its rank, matching nothing: no path, lines or symbol.
	diffHits(t, "outside", []systems.Hit{{Score: 1, Text: "zanzibar at " + s.m.Dir()}}, got)
	if w := s.Warnings(); len(w) != 1 || !strings.Contains(w[0], "1 hits named a path outside the corpus") {
		t.Errorf("Warnings = %q, want one counting 1 hit outside the corpus", w)
	}
}

func TestCommandTimeoutKillsGroup(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	t.Setenv("FAKEPEER_PIDFILE", pidfile)
	s, _ := setup(t, commandConfig(`, "timeout": "1s"`))
	_, err := s.Search(t.Context(), "SPAWN HANG", 10)
	if err == nil || !strings.Contains(err.Error(), "timed out after 1s") {
		t.Fatalf("err = %v, want a timeout", err)
	}
	child := pids(t, pidfile)["child"]
	require.Len(t, child, 1)
	waitDead(t, "the grandchild of a command killed at its timeout", child[0])
}

func TestIndexFailures(t *testing.T) {
	for _, tc := range []struct {
		name, index, want string
	}{
		{"timeout", `["${FAKEPEER}", "sleep"], "timeout": "1s"`, "index: timed out after 1s (index.timeout)"},
		{"failure", `["${FAKEPEER}", "index", "{corpus}"]`, "usage: fakepeer index DIR OUT"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := strings.Replace(commandConfig(""), `["${FAKEPEER}", "index", "{corpus}", "{work}/files.txt"], "timeout": "1m"`, tc.index, 1)
			_, _, err := trySetup(t, cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Index err = %v, want %q", err, tc.want)
			}
			if tc.name == "timeout" && !strings.Contains(err.Error(), "context deadline exceeded") {
				t.Errorf("Index err = %v, want the index timeout", err)
			}
		})
	}
}

func TestMisuse(t *testing.T) {
	fakepeer(t)
	cfg, err := Parse("peer.json", []byte(commandConfig("")))
	require.NoError(t, err)
	_, err = New(cfg, systems.Options{})
	if err == nil || !strings.Contains(err.Error(), "CacheDir is empty") {
		t.Errorf("New without a cache: err = %v", err)
	}
	s, err := New(cfg, systems.Options{CacheDir: t.TempDir()})
	require.NoError(t, err)
	if _, err := s.Search(t.Context(), "widget", 5); err == nil || !strings.Contains(err.Error(), "Search before Index") {
		t.Errorf("Search before Index: err = %v", err)
	}
	require.NoError(t, s.Close(), "Close before Index")

	cfg.Files = map[string]string{"../escape.txt": "x"}
	s, err = New(cfg, systems.Options{CacheDir: t.TempDir()})
	require.NoError(t, err)
	defer s.Close()
	if err := s.Index(t.Context(), testCorpus()); err == nil || !strings.Contains(err.Error(), "outside the work directory") {
		t.Errorf("a file outside {work}: err = %v", err)
	}
}

// TestPeakRSS checks that PeakRSS reports the child processes' memory, as
// the kernel measured it: a query that makes 96 MiB resident in the peer
// (ALLOC) raises it past 96 MiB; the index command and plain queries of the
// small fakepeer stay far below.
func TestPeakRSS(t *testing.T) {
	t.Setenv("FAKEPEER_LINGER", "100ms") // seen however fast it answers
	s, _ := setup(t, commandConfig(""))
	_, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err)
	plain := s.PeakRSS()
	if plain == 0 || plain >= 64<<20 {
		t.Fatalf("PeakRSS after the index and one plain query = %d bytes, want > 0 and < 64 MiB (a small Go program)", plain)
	}
	// HOLD: the command lives long enough to be sampled, so the check
	// holds whatever this test process's own peak is (-count, -shuffle).
	_, err = s.Search(t.Context(), "widget ALLOC HOLD", 10)
	require.NoError(t, err)
	if got := s.PeakRSS(); got < 96<<20 {
		t.Errorf("PeakRSS after a query that made 96 MiB resident = %.1f MiB, want ≥ 96", float64(got)/(1<<20))
	}
}

// TestPeakRSSNotTheRunners: the test process itself holds 160 MiB while a
// small peer runs; Linux's exec hands that high-water mark to every child
// Go starts (ru_maxrss), and PeakRSS must not report it as the peer's.
func TestPeakRSSNotTheRunners(t *testing.T) {
	held := make([]byte, 160<<20)
	for i := range held {
		held[i] = byte(i) | 1
	}
	t.Setenv("FAKEPEER_LINGER", "100ms")
	s, _ := setup(t, commandConfig(""))
	_, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err)
	if got := s.PeakRSS(); got == 0 || got >= 64<<20 {
		t.Errorf("PeakRSS of a small peer started by a 160 MiB process = %.1f MiB, want > 0 and < 64 (its own, not the runner's)", float64(got)/(1<<20))
	}
	goruntime.KeepAlive(held)
}

// TestPeakRSSServer: an MCP server's peak counts once Close has reaped it,
// though closing the session lets it exit before Stop looks (no HOLD: the
// answer comes the moment the memory is written, so only the look before
// the session closes sees the peak once this process's own is higher).
func TestPeakRSSServer(t *testing.T) {
	s, _ := setup(t, mcpConfig("search", FromStructured, ""))
	_, err := s.Search(t.Context(), "widget ALLOC", 10)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	if got := s.PeakRSS(); got < 96<<20 {
		t.Errorf("PeakRSS after Close of a server that made 96 MiB resident = %.1f MiB, want ≥ 96", float64(got)/(1<<20))
	}
}

// TestCommandIndexReport: a reused index says so and carries the build
// time its first run recorded; a new build reports its own.
func TestCommandIndexReport(t *testing.T) {
	s, cache := setup(t, commandConfig(""))
	first := s.IndexReport()
	require.False(t, first.Reused, "a fresh cache builds")
	require.Positive(t, first.BuildTime, "the build was timed")
	require.NoError(t, s.Close())
	s2, err := New(s.cfg, systems.Options{CacheDir: cache})
	require.NoError(t, err)
	defer s2.Close()
	require.NoError(t, s2.Index(t.Context(), testCorpus()))
	got := s2.IndexReport()
	if !got.Reused || (got.BuildTime-first.BuildTime).Abs() > time.Microsecond {
		t.Errorf("second Index: %+v, want reused with the first build time %v", got, first.BuildTime)
	}
}

// TestCommandIndexToolChanged: the index cache key covers the tool — the
// output of version_command when there is one, else the files the config
// names (here the index program) — so a changed tool builds a new index
// instead of reading the one an older version built.
func TestCommandIndexToolChanged(t *testing.T) {
	// indexAgain indexes testCorpus with cfg in cache and reports whether
	// the index command ran.
	indexAgain := func(t *testing.T, cfg *Config, cache string) (systems.IndexReport, bool) {
		t.Helper()
		s, err := New(cfg, systems.Options{CacheDir: cache})
		require.NoError(t, err)
		defer s.Close()
		require.NoError(t, s.Index(t.Context(), testCorpus()))
		// The index command writes files.txt: there is one when it ran.
		_, statErr := os.Stat(filepath.Join(s.rt.work, "files.txt"))
		return s.IndexReport(), statErr == nil
	}
	removeList := func(t *testing.T, s *System) {
		t.Helper()
		require.NoError(t, os.Remove(filepath.Join(s.rt.work, "files.txt")))
	}
	t.Run("program file", func(t *testing.T) {
		s, cache := setup(t, commandConfig(""))
		require.NoError(t, s.Close())
		removeList(t, s)
		if rep, ran := indexAgain(t, s.cfg, cache); !rep.Reused || ran {
			t.Fatalf("same program: report %+v, index command ran %v; want reused", rep, ran)
		}
		// The same program, one byte longer: an upgrade as the cache sees it.
		b, err := os.ReadFile(os.Getenv("FAKEPEER"))
		require.NoError(t, err)
		upgraded := filepath.Join(t.TempDir(), "fakepeer")
		require.NoError(t, os.WriteFile(upgraded, append(b, 0), 0o755))
		t.Setenv("FAKEPEER", upgraded)
		if rep, ran := indexAgain(t, s.cfg, cache); rep.Reused || !ran {
			t.Errorf("changed program: report %+v, index command ran %v; want a new index", rep, ran)
		}
	})
	t.Run("version command", func(t *testing.T) {
		t.Setenv("FAKEPEER_TOOL_VERSION", "1.0")
		s, cache := setup(t, commandConfig(`, "version_command": ["sh", "-c", "echo fakepeer ${FAKEPEER_TOOL_VERSION}"]`))
		require.NoError(t, s.Close())
		removeList(t, s)
		if rep, ran := indexAgain(t, s.cfg, cache); !rep.Reused || ran {
			t.Fatalf("same version: report %+v, index command ran %v; want reused", rep, ran)
		}
		t.Setenv("FAKEPEER_TOOL_VERSION", "2.0")
		if rep, ran := indexAgain(t, s.cfg, cache); rep.Reused || !ran {
			t.Errorf("version 2.0 after 1.0: report %+v, index command ran %v; want a new index", rep, ran)
		}
	})
}

// TestCommandWarnings: Warnings holds what was noticed since the last
// call — an answer with a hit outside the corpus, an answer that names one
// place twice — one sentence per answer, and forgets it once read.
func TestCommandWarnings(t *testing.T) {
	s, _ := setup(t, strings.Replace(commandConfig(""), `"{k}", "{corpus}"`, `"{k}", "{work}"`, 1))
	_, err := s.Search(t.Context(), "zanzibar", 10)
	require.NoError(t, err)
	_, err = s.Search(t.Context(), "zanzibar", 10)
	require.NoError(t, err)
	w := s.Warnings()
	want := "fakepeer/cmd: 1 of 1 hits named a path outside the corpus and match nothing (kept at their ranks)"
	if diff := cmp.Diff([]string{want, want}, w); diff != "" {
		t.Errorf("Warnings after two answers (-want +got):\n%s", diff)
	}
	if w := s.Warnings(); w != nil {
		t.Errorf("Warnings read twice: %q, want none the second time", w)
	}
	if n := repeats([]systems.Hit{{Path: "a.py", StartLine: 1, EndLine: 2}, {Path: "a.py", StartLine: 1, EndLine: 2}, {Path: "a.py", StartLine: 3, EndLine: 4},
		{Text: "outside"}, {Text: "outside"}, {Path: "a.py", StartLine: 1, EndLine: 2}}); n != 2 {
		t.Errorf("repeats = %d, want 2: the third and sixth hit name the first's place; hits without a path are not compared", n)
	}
}
