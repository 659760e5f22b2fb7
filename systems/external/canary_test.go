package external

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/benchtest"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/datasets/catalogue"
	"github.com/retrievalbench/retrievalbench/systems"
)

// The secret canary end to end: whole benchmark cells (benchtest.Test with
// -update and -results, in a child test binary whose whole output is
// captured) of fakepeer over each transport, with an API key that fakepeer
// echoes into its version line, its hits' text, its stderr and its errors.
// The key must appear in no file the cells wrote — golden files, results
// JSONL, cell files, the cache's corpus trees and work directories — and in
// no line the run printed.

const (
	envCanaryChild   = "RETRIEVALBENCH_CANARY_CHILD"
	envCanaryGolden  = "RETRIEVALBENCH_CANARY_GOLDEN"
	envCanaryResults = "RETRIEVALBENCH_CANARY_RESULTS"
	canaryKey        = "canary-e2e-9c41f7d3"
)

// canaryConfigs are fakepeer over each transport with the key as API_KEY
// and a version command that prints the key.
func canaryConfigs() map[string]string {
	common := `"system": "fakepeer", "env_pass": ["FAKEPEER_PIDFILE", "FAKEPEER_TEST_KEY"],
	"version_command": ["${FAKEPEER}", "version", "-echo", "FAKEPEER_TEST_KEY"],
	"env": {"API_KEY": "${FAKEPEER_TEST_KEY}"},
	"secrets": ["API_KEY"],`
	return map[string]string{
		"canary-command": `{` + common + ` "config": "canary-command", "transport": "command",
	"command": {"search": ["${FAKEPEER}", "search", "-abs", "-k", "{k}", "{corpus}", "{query}"]},
	` + fmt.Sprintf(mapAll, FromJSON) + `}`,
		"canary-mcp": `{` + common + ` "config": "canary-mcp", "transport": "mcp",
	"mcp": {"command": ["${FAKEPEER}", "mcp", "{corpus}"],
	        "calls": [{"tool": "search", "arguments": {"query": "{query}", "limit": "{k}"}}]},
	` + fmt.Sprintf(mapAll, FromStructured) + `}`,
		"canary-http": `{` + common + ` "config": "canary-http", "transport": "http",
	"http": {"command": ["${FAKEPEER}", "http", "-addr", "127.0.0.1:{port}", "{corpus}"],
	         "url": "http://127.0.0.1:{port}/search", "body": {"q": "{query}", "k": "{k}"}},
	` + fmt.Sprintf(mapAll, FromJSON) + `}`,
	}
}

var canaryOrder = []string{"canary-command", "canary-mcp", "canary-http"}

// canaryFamily has a dataset whose tasks succeed while fakepeer echoes the
// key into its hits and stderr (LEAK), so that its golden files are
// written, and one with a task that fails with the key in its error
// (SECRET), so that the run prints and records that error.
func canaryFamily() catalogue.Family {
	gold := func(path string) []datasets.Relevant {
		return []datasets.Relevant{{Kind: "file", ID: path, Grade: 1}}
	}
	ds := func(name string, tasks ...datasets.Task) catalogue.Dataset {
		return catalogue.Dataset{Name: name, Hermetic: true, Load: func(string, string) (*datasets.Dataset, error) {
			c := testCorpus()
			for i := range tasks {
				tasks[i].CorpusID = c.ID
			}
			return &datasets.Dataset{Name: "canary-" + name, Split: datasets.SplitAll,
				Corpora: map[string]*corpus.Corpus{c.ID: c}, Tasks: tasks}, nil
		}}
	}
	// LEAKSYM puts the key in the hits' symbols (the result mapping once
	// redacted only a hit's text, so -results held "frobnicate_<key>").
	leaks := []datasets.Task{
		{ID: "widget", Query: "widget LEAK", Gold: gold("pkg/b.py")},
		{ID: "frobnicate", Query: "frobnicate LEAK", Gold: gold("pkg/a.py")},
		{ID: "symbol", Query: "frobnicate LEAKSYM", Gold: gold("pkg/a.py")},
	}
	return catalogue.Family{Name: "canary", Datasets: []catalogue.Dataset{
		ds("leaks", leaks...),
		ds("fails",
			datasets.Task{ID: "secret", Query: "widget SECRET", Gold: gold("pkg/b.py")},
			datasets.Task{ID: "widget", Query: "widget LEAK", Gold: gold("pkg/b.py")}),
	}}
}

func TestSecretNeverWritten(t *testing.T) {
	if os.Getenv(envCanaryChild) != "" {
		t.Skip("in the child run")
	}
	fakepeer(t)
	golden, results, cache := t.TempDir(), t.TempDir(), t.TempDir()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestSecretNeverWrittenChild$", "-test.v", "-test.count=1")
	cmd.Env = append(os.Environ(), envCanaryChild+"=1", envCanaryGolden+"="+golden, envCanaryResults+"="+results,
		"RETRIEVALBENCH_CACHE="+cache, "FAKEPEER_TEST_KEY="+canaryKey)
	out, err := cmd.CombinedOutput()
	if err == nil {
		t.Errorf("the child run passed; its fails cells should have failed it")
	}
	defer func() {
		if t.Failed() {
			t.Logf("child output:\n%s", bytes.ReplaceAll(out, []byte(canaryKey), []byte("<CANARY>")))
		}
	}()

	// The run went as planned, so the scan below is not vacuous: the
	// leaks cells wrote their baselines, the fails cells failed with the
	// redacted error, and the redacted echo reached the harness in hits.
	verdicts, logs := childOutput(out)
	require.Equal(t, "PASS", verdicts["TestSecretNeverWrittenChild/echoes"], "the hits carried the redacted key")
	for _, c := range canaryOrder {
		leaks := "TestSecretNeverWrittenChild/fakepeer/" + c + "/leaks"
		fails := "TestSecretNeverWrittenChild/fakepeer/" + c + "/fails"
		if verdicts[leaks] != "PASS" || !strings.Contains(logs[leaks], "updated ") {
			t.Errorf("%s: %s, want PASS and its golden file updated:\n%s", leaks, verdicts[leaks], logs[leaks])
		}
		if verdicts[fails] != "FAIL" || !strings.Contains(logs[fails], "not writing") || !strings.Contains(logs[fails], "bad key ***") {
			t.Errorf("%s: %s, want FAIL, not writing its golden file, with the redacted error:\n%s", fails, verdicts[fails], logs[fails])
		}
	}
	// A command's stderr is read to its end before its error is made.
	if l := logs["TestSecretNeverWrittenChild/fakepeer/canary-command/fails"]; !strings.Contains(l, "my key is *** (leaked)") {
		t.Errorf("the command's failed task lacks its redacted stderr tail:\n%s", l)
	}
	for _, c := range canaryOrder {
		g, err := os.ReadFile(filepath.Join(golden, "canary-leaks", "all", "fakepeer", c+".json"))
		if err != nil {
			t.Errorf("golden file of %s: %v", c, err)
		} else if want := `"fakepeer": "fakepeer 1.2.3 FAKEPEER_TEST_KEY=***"`; !bytes.Contains(g, []byte(want)) {
			t.Errorf("golden file of %s lacks the redacted version line %s:\n%s", c, want, g)
		}
	}
	var jsonl, cells int
	scanned := 0
	for _, root := range []string{golden, results, cache} {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || !d.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			scanned++
			if bytes.Contains(b, []byte(canaryKey)) {
				t.Errorf("the secret is in %s:\n%s", p, bytes.ReplaceAll(b, []byte(canaryKey), []byte("<CANARY>")))
			}
			switch {
			case strings.HasSuffix(p, ".cell.json"):
				cells++
			case strings.HasSuffix(p, ".jsonl"):
				jsonl++
				if strings.Contains(p, "canary-fails") && !bytes.Contains(b, []byte("bad key ***")) {
					t.Errorf("%s lacks the failed task's redacted error:\n%s", p, b)
				}
			}
			return nil
		})
		require.NoError(t, err)
	}
	if n := 2 * len(canaryOrder); jsonl != n || cells != n {
		t.Errorf("results: %d JSONL and %d cell files, want %d of each (every cell, the failed ones too)", jsonl, cells, n)
	}
	t.Logf("%d files scanned", scanned)
	for i, line := range strings.Split(string(out), "\n") {
		if strings.Contains(line, canaryKey) {
			t.Errorf("the secret is in line %d of the run's output: %s", i+1, strings.ReplaceAll(line, canaryKey, "<CANARY>"))
		}
	}
}

// childOutput splits `go test -v` output into each test's verdict and the
// lines printed under its name (the "=== RUN"/"=== NAME" line before them).
func childOutput(out []byte) (verdicts, logs map[string]string) {
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
		if name, ok := strings.CutPrefix(line, "=== NAME  "); ok {
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

// TestSecretNeverWrittenChild is the child run of TestSecretNeverWritten.
func TestSecretNeverWrittenChild(t *testing.T) {
	if os.Getenv(envCanaryChild) == "" {
		t.Skip("run by TestSecretNeverWritten in a child process")
	}
	var echoes atomic.Int64
	var specs []systems.Spec
	for _, name := range canaryOrder {
		cfg, err := Parse(name+".json", []byte(canaryConfigs()[name]))
		require.NoError(t, err)
		spec := Spec(cfg)
		spec.New = func(opt systems.Options) (systems.System, error) {
			s, err := New(cfg, opt)
			if err != nil {
				return nil, err
			}
			return echoWatch{s, &echoes}, nil
		}
		specs = append(specs, spec)
	}
	suite := benchtest.Suite{Systems: specs, Golden: os.Getenv(envCanaryGolden),
		Flags: &benchtest.Flags{Size: benchtest.SizeFixture, Update: true, Results: os.Getenv(envCanaryResults), Tokenizer: "none"}}
	benchtest.Test(t, suite, canaryFamily())
	t.Run("echoes", func(t *testing.T) {
		// Two LEAK tasks of leaks and one of fails per config, two hits each.
		if n, want := echoes.Load(), int64(3*2*len(canaryOrder)); n < want {
			t.Errorf("%d hits ended in the redacted key, want %d: fakepeer's echo did not reach the harness", n, want)
		}
	})
}

// echoWatch counts the hits whose text ends in fakepeer's echo of the key,
// redacted.
type echoWatch struct {
	*System
	n *atomic.Int64
}

func (w echoWatch) SearchQuery(ctx context.Context, q systems.Query, k int) ([]systems.Hit, error) {
	hits, err := w.System.SearchQuery(ctx, q, k)
	for _, h := range hits {
		if strings.HasSuffix(h.Text, " (key ***)") {
			w.n.Add(1)
		}
	}
	return hits, err
}

func (w echoWatch) Search(ctx context.Context, query string, k int) ([]systems.Hit, error) {
	return w.SearchQuery(ctx, systems.Query{Text: query}, k)
}
