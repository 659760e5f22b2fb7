package bench

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/goldenfmt"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external"
)

// The real peers made to fail, cell by cell: the installed Codira and
// pydocs-mcp (make peers) on the hermetic case fixture, against the
// repository's own golden files. TestRealPeerFaults runs
// TestRealPeerFaultsChild in a child process (a failing cell fails its
// test binary; the parent reads the verdicts) and checks that each broken
// cell fails with the peer's error and stderr tail while the unbroken cells
// of the same peers, run after them in the same binary, pass their
// baselines.

const envPeerFaultsChild = "RETRIEVALBENCH_PEER_FAULTS_CHILD"

// faultCells are the cells of the child run: what each does to the real
// peer, the verdict and the text its output must hold.
var faultCells = []struct {
	name   string // subtest path under the child test
	pass   bool
	want   []string // regexps the cell's output must match
	reason string
}{
	{"codira/lexical-wrong-command/fixture", false, []string{`index: .*codira: exit status 2`, `stderr \(last 4096 bytes\):`, `codira: error: argument .*invalid choice: 'indexx'`},
		"a wrong command fails the cell at indexing, with the real codira's usage error from its stderr"},
	{"codira/lexical-killed/fixture", false, []string{`task \S+ failed: codira/lexical: search: \S+/codira: signal: killed`},
		"the real codira ctx processes killed during their searches fail the tasks, so the cell fails against its baseline"},
	{"codira/lexical-hang/fixture", false, []string{`task \S+ failed`, `timed out after 50ms`},
		"a call timeout below codira's real latency (≥ 0.3 s) fails the searches and the cell"},
	{"codira/lexical/fixture", true, nil, "the unbroken Codira cell after them passes its baseline"},
	{"pydocs-mcp/bge-small-q-killed/fixture", false, []string{`task \S+ failed`, `server signal: killed`, `stderr \(last 4096 bytes\):`},
		"the real pydocs-mcp server killed during a search fails that task with its stderr tail (and is restarted for the next)"},
	{"pydocs-mcp/bge-small-q-hang/fixture", false, []string{`task \S+ failed`, `timed out after 20ms`, `stderr \(last 4096 bytes\):`},
		"a call timeout below pydocs-mcp's real latency (≥ 0.15 s) fails the cell with the server's stderr tail"},
	{"pydocs-mcp/bge-small-q/fixture", true, nil, "the unbroken pydocs-mcp cell after them passes its baseline"},
}

func TestRealPeerFaults(t *testing.T) {
	if os.Getenv(envPeerFaultsChild) != "" {
		t.Skip("in the child run")
	}
	if testing.Short() {
		t.Skip("-short: runs the real peers")
	}
	if raceEnabled {
		t.Skip("SKIP (by design): under -race; the same cells run in the plain test run (a minute or two of real peers)")
	}
	for _, f := range []string{"codira-lexical.json", "pydocs-mcp.json"} {
		cfg, err := external.Load(filepath.Join(peersDir, f))
		require.NoError(t, err)
		if u := cfg.Unmet(); len(u) > 0 {
			testenv.Missing(t, u[0].Kind, u[0].Reason)
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestRealPeerFaultsChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envPeerFaultsChild+"=1")
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("the child run passed; its broken cells should have failed it:\n%s", out)
	}
	verdicts, logs := cellOutput(out)
	for _, c := range faultCells {
		name := "TestRealPeerFaultsChild/" + c.name
		want := "FAIL"
		if c.pass {
			want = "PASS"
		}
		if got := verdicts[name]; got != want {
			t.Errorf("%s: %q, want %s (%s)\n%s", name, got, want, c.reason, logs[name])
			continue
		}
		for _, re := range c.want {
			if !regexp.MustCompile(re).MatchString(logs[name]) {
				t.Errorf("%s: output lacks %q (%s):\n%s", name, re, c.reason, logs[name])
			}
		}
	}
	if t.Failed() {
		t.Logf("child output:\n%s", out)
	}
}

// cellOutput splits `go test -v` output into each test's verdict (PASS,
// FAIL, SKIP) and the lines printed while it ran (from its "=== RUN" line
// to the next one; subtests here run one after another).
func cellOutput(out []byte) (verdicts, logs map[string]string) {
	verdicts, logs = map[string]string{}, map[string]string{}
	result := regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): (\S+) \(`)
	cur := ""
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 1<<16), 1<<22)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "=== RUN   "); ok {
			cur = strings.TrimSpace(name)
			continue
		}
		if m := result.FindStringSubmatch(line); m != nil {
			verdicts[m[2]] = m[1]
			continue
		}
		if cur != "" {
			logs[cur] += line + "\n"
		}
	}
	return verdicts, logs
}

// TestRealPeerFaultsChild is the child run of TestRealPeerFaults.
func TestRealPeerFaultsChild(t *testing.T) {
	if os.Getenv(envPeerFaultsChild) == "" {
		t.Skip("run by TestRealPeerFaults in a child process")
	}
	load := func(file string) *external.Config {
		cfg, err := external.Load(filepath.Join(peersDir, file))
		require.NoError(t, err)
		return cfg
	}
	codira, pydocs := load("codira-lexical.json"), load("pydocs-mcp.json")

	wrong := *load("codira-lexical.json")
	ix := *wrong.Index
	ix.Command = append([]string(nil), ix.Command...)
	ix.Command[1] = "indexx" // not a codira subcommand
	wrong.Index = &ix
	hangCodira := *load("codira-lexical.json")
	hangCodira.Timeout = "50ms" // its searches take 0.3 s and more
	hangPydocs := *load("pydocs-mcp.json")
	hangPydocs.Timeout = "20ms" // its searches take 0.15 s and more

	named := func(s systems.Spec, config string) systems.Spec { s.Config = config; return s }
	golden := t.TempDir()
	specs := []systems.Spec{
		named(external.Spec(&wrong), "lexical-wrong-command"),
		named(killSearches(external.Spec(codira), "ctx", true), "lexical-killed"),
		named(external.Spec(&hangCodira), "lexical-hang"),
		external.Spec(codira),
		named(killSearches(external.Spec(pydocs), "serve", false), "bge-small-q-killed"),
		named(external.Spec(&hangPydocs), "bge-small-q-hang"),
		external.Spec(pydocs),
	}
	// Every cell is checked against the real baseline of its peer's config (the
	// broken ones under their own names), so a broken cell fails because
	// of what was done to it, not for want of a baseline.
	fixture := catalogue.Cases().Datasets[0]
	require.True(t, fixture.Hermetic)
	for _, s := range specs {
		real := "lexical"
		if s.System == "pydocs-mcp" {
			real = "bge-small-q"
		}
		g, err := goldenfmt.Read(goldenfmt.Path(goldenDir, "cases-cases", "all", s.System, real))
		require.NoError(t, err)
		g.Config = s.Config
		require.NoError(t, goldenfmt.Write(goldenfmt.Path(golden, "cases-cases", "all", s.System, s.Config), g))
	}
	suite := benchtest.Suite{Systems: specs, Golden: golden, Flags: &benchtest.Flags{Size: benchtest.SizeFixture}}
	benchtest.Test(t, suite, catalogue.Family{Name: "cases", Datasets: []catalogue.Dataset{fixture}})
}

// killSearches wraps spec so that during its first search (every search,
// if every) the test SIGKILLs the real peer process doing it: a direct
// child of this process whose command line holds marker ("ctx": Codira's
// one process per query, found while it runs; "serve": pydocs-mcp's MCP
// server, killed 20 ms into the call, which the adapter then restarts).
func killSearches(spec systems.Spec, marker string, every bool) systems.Spec {
	newSys := spec.New
	var once sync.Once
	spec.New = func(opt systems.Options) (systems.System, error) {
		s, err := newSys(opt)
		if err != nil {
			return nil, err
		}
		return &killer{System: s.(*external.System), marker: marker, every: every, once: &once}, nil
	}
	return spec
}

// killer is an external.System (every method promoted: WholeFiles,
// Versions, PeakRSS) whose searches have their process killed.
type killer struct {
	*external.System
	marker string
	every  bool
	once   *sync.Once
}

func (k *killer) SearchQuery(ctx context.Context, q systems.Query, n int) ([]systems.Hit, error) {
	var killed chan error
	kill := func() {
		killed = make(chan error, 1)
		go func() { killed <- killChild(ctx, k.marker) }()
	}
	if k.every {
		kill()
	} else {
		k.once.Do(kill)
	}
	hits, err := k.System.SearchQuery(ctx, q, n)
	if killed != nil {
		if kerr := <-killed; kerr != nil {
			return nil, fmt.Errorf("the test could not kill the peer: %w (search: %v)", kerr, err)
		}
	}
	return hits, err
}

func (k *killer) Search(ctx context.Context, query string, n int) ([]systems.Hit, error) {
	return k.SearchQuery(ctx, systems.Query{Text: query}, n)
}

// killChild SIGKILLs the first direct child of this process whose command
// line holds marker, waiting up to 30 s for one to appear (20 ms after it
// is found, for a server that was already running).
func killChild(ctx context.Context, marker string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) && ctx.Err() == nil {
		if pid := childWith(marker); pid > 0 {
			if marker == "serve" {
				time.Sleep(20 * time.Millisecond)
			}
			return syscall.Kill(pid, syscall.SIGKILL)
		}
		time.Sleep(5 * time.Millisecond)
	}
	return fmt.Errorf("no child process with %q in its command line", marker)
}

func childWith(marker string) int {
	self := strconv.Itoa(os.Getpid())
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces, so split after ')'.
		rest := string(stat[bytes.LastIndexByte(stat, ')')+1:])
		f := strings.Fields(rest)
		if len(f) < 2 || f[1] != self || f[0] == "Z" {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		for _, arg := range bytes.Split(cmdline, []byte{0}) {
			if string(arg) == marker {
				return pid
			}
		}
	}
	return 0
}
