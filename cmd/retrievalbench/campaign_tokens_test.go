package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/internal/cpuclass"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
	"github.com/retrievalbench/retrievalbench/resultfmt"
	"github.com/retrievalbench/retrievalbench/tokens"
)

// TestCampaignTokenBudget: a token budget is a decision rule a campaign
// records and score decides with, as the latency budget. On the hermetic
// case fixture, real BM25 (FTS5) against a baseline that answers one word
// (and takes a second to index, so that only the token budget can bind)
// gains significantly on every gate measure but hands an agent far more
// context (tokens@10 under the real Qwen3 tokenizer): over a 2x token
// budget it is a quality_profile; score reads the budget back from
// run.json and, with -max-tokens-ratio 0 given, decides default.
func TestCampaignTokenBudget(t *testing.T) {
	tok := tokens.Known()[tokens.Default].Path(testenv.CacheDir())
	if _, err := os.Stat(tok); err != nil {
		testenv.Missing(t, testenv.Tokenizer, "the pinned tokenizer: "+err.Error()+" (make tokenizer)")
	}
	fx := filepath.Join("..", "..", "fixtures", "cases")
	word := filepath.Join(t.TempDir(), "word.json")
	require.NoError(t, os.WriteFile(word, []byte(`{
  "system": "word", "config": "x", "transport": "command",
  "index": {"command": ["sleep", "1"]},
  "command": {"search": ["sh", "-c", "echo '{\"hits\": [{\"text\": \"nothing\"}]}'"]},
  "result": {"from": "json", "items": "hits", "text": "text"}
}`), 0o644))
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-models", "none", "-bm25", "code-weighted", "-systems", word, "-baseline", "word/x", "-min-cases", "5",
		"-tokenizer", tok, "-max-tokens-ratio", "2", "-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr)
	require.NoError(t, err, stderr.String())
	require.Regexp(t, `bm25/code-weighted +quality_profile +\(significant_gain_over_budget`, stdout.String())

	run1, err := campaignfmt.Read(filepath.Join(out, "run.json"))
	require.NoError(t, err)
	require.NotNil(t, run1.Meta.Rules)
	require.Equal(t, 2.0, run1.Meta.Rules.MaxTokensRatio, "the token budget is recorded with the rules")
	require.True(t, strings.HasPrefix(run1.Meta.Tokenizer, tok+" sha256:"), "tokenizer recorded: %q", run1.Meta.Tokenizer)
	for _, sc := range run1.Systems {
		require.Equal(t, []string{cpuclass.Current()}, sc.IndexBuildCPUClasses, "%s: every index built now, timed on this machine's CPU class", sc.Name)
	}
	recs, err := resultfmt.ReadRecords(filepath.Join(out, "results"))
	require.NoError(t, err)
	tokensOf := map[string]float64{}
	for _, r := range recs {
		v, ok := r.Values["tokens@10"]
		require.True(t, ok, "%s %s: no tokens@10", r.Model(), r.Task)
		tokensOf[r.Model()] += v / 10
	}
	require.InDelta(t, 1.0, tokensOf["word/x"], 1e-9, `"nothing" is one Qwen3 token`)
	require.Greater(t, tokensOf["bm25/code-weighted"], 100.0)

	var sum struct {
		Decisions []struct {
			Model, Outcome, Rule, Detail string
			Tokens                       *struct {
				Ratio float64 `json:"ratio"`
				Low   float64 `json:"ci_low"`
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(out, "quality-summary.json"))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(b, &sum))
	dec := sum.Decisions
	var bm25 = -1
	for i, d := range dec {
		if d.Model == "bm25/code-weighted" {
			bm25 = i
		}
	}
	require.GreaterOrEqual(t, bm25, 0, "no decision on bm25: %s", b)
	require.NotNil(t, dec[bm25].Tokens, "the paired token ratio is in the decision")
	require.Greater(t, dec[bm25].Tokens.Low, 2.0)
	require.Regexp(t, `over budget: tokens@10 [0-9.]+x \(95% CI`, dec[bm25].Detail, "the token budget, and nothing else, is over")
	md, err := os.ReadFile(filepath.Join(out, "quality-summary.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "Token budget: a gain is `default` only if")

	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	require.NoError(t, os.WriteFile(labels, nil, 0o644))
	stdout.Reset()
	require.NoError(t, run([]string{"score", "-run", out, "-labels", labels, "-out", t.TempDir()}, &stdout, &stderr), stderr.String())
	require.Contains(t, stdout.String(), "decision rules and statistics: the campaign's (run.json); baseline word/x\n")
	require.Regexp(t, `bm25/code-weighted +quality_profile +\(significant_gain_over_budget\)`, stdout.String())
	stdout.Reset()
	require.NoError(t, run([]string{"score", "-run", out, "-labels", labels, "-out", t.TempDir(), "-max-tokens-ratio", "0"}, &stdout, &stderr), stderr.String())
	require.Contains(t, stdout.String(), "overridden by -max-tokens-ratio")
	require.Regexp(t, `bm25/code-weighted +default +\(significant_gain_within_budget\)`, stdout.String())

	// campaign-gate: the same campaign with a baseline that answers forty
	// words (41 tokens with the trailing space): its context grew 41x
	// against the old run's, past the recorded budget; BM25's did not.
	require.NoError(t, os.WriteFile(word, []byte(`{
  "system": "word", "config": "x", "transport": "command",
  "index": {"command": ["sleep", "1"]},
  "command": {"search": ["sh", "-c", "echo '{\"hits\": [{\"text\": \"`+strings.Repeat("nothing ", 40)+`\"}]}'"]},
  "result": {"from": "json", "items": "hits", "text": "text"}
}`), 0o644))
	out2 := t.TempDir()
	stdout.Reset()
	require.NoError(t, run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-models", "none", "-bm25", "code-weighted", "-systems", word, "-baseline", "word/x", "-min-cases", "5",
		"-tokenizer", tok, "-max-tokens-ratio", "2", "-pool", "3", "-cache", t.TempDir(), "-out", out2, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr), stderr.String())
	stdout.Reset()
	err = run([]string{"campaign-gate", out, out2}, &stdout, &stderr)
	require.Error(t, err, stdout.String())
	require.Equal(t, 1, exitCode(err))
	require.Regexp(t, `(?m)^word/x +compared +REGRESSED`, stdout.String())
	require.Regexp(t, `regression: tokens@10 41\.00x .* new/old > 2\.00x \(the token budget\)`, stdout.String())
	require.Regexp(t, `(?m)^bm25/code-weighted +compared +ok`, stdout.String())
	stdout.Reset()
	require.NoError(t, run([]string{"campaign-gate", "-max-tokens-ratio", "0", out, out2}, &stdout, &stderr), "no token budget: nothing regressed\n%s", stdout.String())
}

// TestCampaignTokenizerUsage: a token budget without a tokenizer, and a
// tokenizer asked for by name that is not there, are usage errors; the
// default one missing leaves the token measures off, said on stderr.
func TestCampaignTokenizerUsage(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	args := func(extra ...string) []string {
		return append([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
			"-models", "none", "-pool", "3", "-cache", t.TempDir(), "-out", t.TempDir(), "-timestamp", "2026-01-01T00:00:00Z"}, extra...)
	}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"budget without tokenizer", args("-tokenizer", "none", "-max-tokens-ratio", "2"), "-max-tokens-ratio needs a tokenizer"},
		{"named tokenizer missing", args("-tokenizer", "qwen3"), "-tokenizer: tokenizer qwen3"},
		{"budget with the default missing", args("-max-tokens-ratio", "2"), "not in the cache"},
		{"negative budget", args("-max-tokens-ratio", "-1"), "token budget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(tc.args, &stdout, &stderr)
			if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v (exit %d), want usage error with %q", err, exitCode(err), tc.want)
			}
		})
	}
	var stdout, stderr bytes.Buffer
	require.NoError(t, run(args(), &stdout, &stderr), stderr.String())
	require.Contains(t, stderr.String(), "campaign: token measures off: tokenizer qwen3")
}

// TestScoreTokenBudgetWithoutCounts: a token budget asked of score over a
// campaign that counted no tokens (-tokenizer none) is not checked, and
// the reports say so; it neither fails nor writes an undefined number.
func TestScoreTokenBudgetWithoutCounts(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	require.NoError(t, run([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
		"-models", "none", "-bm25", "code-weighted,porter", "-tokenizer", "none", "-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, &stdout, &stderr), stderr.String())
	labels := filepath.Join(t.TempDir(), "labels.jsonl")
	require.NoError(t, os.WriteFile(labels, nil, 0o644))
	dir := t.TempDir()
	require.NoError(t, run([]string{"score", "-run", out, "-labels", labels, "-out", dir, "-max-tokens-ratio", "2", "-min-cases", "5"}, &stdout, &stderr), stderr.String())
	b, err := os.ReadFile(filepath.Join(dir, "quality-summary.json"))
	require.NoError(t, err)
	require.True(t, json.Valid(b), "quality-summary.json is not valid JSON")
	md, err := os.ReadFile(filepath.Join(dir, "quality-summary.md"))
	require.NoError(t, err)
	require.Contains(t, string(md), "| bm25/porter |")
	require.Contains(t, string(md), "not compared (no token counts) |")
}
