package campaignfmt

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/fileline"
)

func TestSumFile(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "cases.jsonl")
	require.NoError(t, os.WriteFile(p, []byte("abc"), 0o644))
	got, err := SumFile("cases", p)
	require.NoError(t, err)
	// sha256("abc"), FIPS 180-2 appendix B.1.
	want := FileSum{Role: "cases", Path: filepath.ToSlash(p), SHA256: "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("SumFile (-want +got):\n%s", diff)
	}
	if _, err := SumFile("cases", filepath.Join(dir, "absent")); err == nil {
		t.Error("SumFile of a missing file: no error")
	}
}

// runJSON is a run.json written by hand, not by this package: the fields
// score reads, two-space indents, no HTML escaping, a newline at the end.
const runJSON = `{
  "meta": {
    "tool": "retrievalbench",
    "version": "(devel)",
    "commit": "abc",
    "generated": "2026-01-01T00:00:00Z",
    "host": "vm",
    "go_version": "go1.26",
    "dataset": "cases-campaign",
    "split": "all",
    "ks": [
      1,
      10
    ],
    "pool_depth": 5,
    "repos": [
      {
        "name": "flask",
        "source": "datapack",
        "commit": "c0ffee",
        "docs": 3,
        "chunks": 9
      }
    ]
  },
  "systems": [
    {
      "name": "bm25/code-weighted",
      "status": "ok",
      "index_seconds": 0.5,
      "indexed_docs": 9,
      "peak_rss_mb": 12.5,
      "warnings": [
        "w <1>"
      ]
    }
  ],
  "tasks": [
    {
      "id": "t1",
      "repo": "flask",
      "intent": "locate",
      "query": "where is Flask made",
      "gold": [
        {
          "kind": "symbol",
          "id": "flask.app.Flask",
          "grade": 3,
          "path": "src/flask/app.py",
          "spans": [
            {
              "path": "src/flask/app.py",
              "Start": 10,
              "End": 40
            }
          ]
        }
      ]
    }
  ],
  "failures": [
    {
      "kind": "query_failed",
      "system": "bm25/code-weighted",
      "task": "t1",
      "message": "boom"
    }
  ]
}
`

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in", "run.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(in), 0o755))
	require.NoError(t, os.WriteFile(in, []byte(runJSON), 0o644))
	run, err := Read(in)
	require.NoError(t, err)
	if got := run.Tasks[0].Gold[0].Spans; len(got) != 1 || got[0].Start != 10 || got[0].End != 40 {
		t.Errorf("spans = %+v, want src/flask/app.py 10-40", got)
	}
	if got := run.Failures[0].String(); got != "query_failed bm25/code-weighted t1: boom" {
		t.Errorf("Failure.String() = %q", got)
	}
	out := filepath.Join(dir, "out", "run.json")
	require.NoError(t, Write(out, run))
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	if diff := cmp.Diff(runJSON, string(b)); diff != "" {
		t.Errorf("read and written again (-hand-written +written):\n%s", diff)
	}
}

func TestReadError(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, os.WriteFile(bad, []byte("{\n  \"meta\": {\n    \"ks\": \"1,10\"\n  }\n}\n"), 0o644))
	_, err := Read(bad)
	var fe *fileline.Error
	if !errors.As(err, &fe) || fe.File != bad || fe.Line != 3 {
		t.Fatalf("Read(bad) = %v, want a fileline.Error at %s:3", err, bad)
	}
}

// TestRulesRoundTrip: the decision rules and statistics a campaign
// records survive run.json, and a run.json without them reads as nil (an
// older campaign), not as zero rules.
func TestRulesRoundTrip(t *testing.T) {
	file := filepath.Join(t.TempDir(), "run.json")
	want := &Campaign{Meta: Meta{Dataset: "d", Rules: &Rules{Baseline: "bm25/code-weighted", Gains: []Gain{{Measure: "ndcg@10", Threshold: 0.05}},
		Primary: "ndcg@10", Alpha: 0.05, MaxLatencyRatio: 1.25, MaxIndexRatio: 2, InteractiveLatencyRatio: 0.8, NonInferiorityMargin: 0.03,
		MinCases: 20, MinGroupCases: 5, Resamples: 2000, Seed: 7}, Stats: &Stats{Resamples: 1000, Seed: 7, Alpha: 0.05}}}
	require.NoError(t, Write(file, want))
	got, err := Read(file)
	require.NoError(t, err)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("run.json round trip (-want +got):\n%s", diff)
	}
	old := filepath.Join(t.TempDir(), "run.json")
	require.NoError(t, os.WriteFile(old, []byte(`{"meta": {"dataset": "d", "ks": [10]}, "systems": [], "tasks": [], "failures": []}`), 0o644))
	got, err = Read(old)
	require.NoError(t, err)
	if got.Meta.Rules != nil || got.Meta.Stats != nil {
		t.Errorf("older run.json: rules %+v, stats %+v; want nil", got.Meta.Rules, got.Meta.Stats)
	}
}
