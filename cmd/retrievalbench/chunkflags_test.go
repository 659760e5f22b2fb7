package main

import (
	"bytes"
	"flag"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/campaignfmt"
	"github.com/retrievalbench/retrievalbench/chunk"
)

// TestChunkFlags parses the chunking flags over chunk.RepoOptions: no flag
// keeps the defaults, -exclude replaces the list, -exclude-add appends in
// order, none empties it, the limits and the generated check switch off.
func TestChunkFlags(t *testing.T) {
	def := chunk.RepoOptions()
	for _, tc := range []struct {
		name string
		args []string
		want func(*chunk.Options)
	}{
		{"defaults", nil, func(*chunk.Options) {}},
		{"replace", []string{"-exclude", "vendor/, dist/"}, func(o *chunk.Options) { o.Exclude.Paths = []string{"vendor/", "dist/"} }},
		{"add", []string{"-exclude-add", "!testdata/,docs/api/"}, func(o *chunk.Options) {
			o.Exclude.Paths = append(chunk.DefaultExcludePaths(), "!testdata/", "docs/api/")
		}},
		{"none then add", []string{"-exclude", "none", "-exclude-add", "gen/"}, func(o *chunk.Options) { o.Exclude.Paths = []string{"gen/"} }},
		{"keep functions", []string{"-keep-functions"}, func(o *chunk.Options) { o.KeepFunctions = true }},
		{"limits off", []string{"-max-chunk-lines", "0", "-max-chunk-bytes", "0", "-max-file-bytes", "0", "-exclude-generated=false"}, func(o *chunk.Options) {
			o.MaxChunkLines, o.MaxChunkBytes, o.Exclude.MaxFileBytes, o.Exclude.Generated = 0, 0, 0, false
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := chunk.RepoOptions()
			fs := flag.NewFlagSet("campaign", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			chunkFlags(fs, &got)
			require.NoError(t, fs.Parse(tc.args))
			want := chunk.RepoOptions()
			tc.want(&want)
			require.Equal(t, want, got)
			require.Equal(t, def, chunk.RepoOptions(), "the defaults are not modified")
		})
	}
}

// TestCampaignChunkFlags: the flags reach the campaign (run.json's chunking
// is their options' key), the default is chunk.RepoOptions, and a bad
// pattern is a usage error naming it.
func TestCampaignChunkFlags(t *testing.T) {
	fx := filepath.Join("..", "..", "fixtures", "cases")
	for _, tc := range []struct {
		name  string
		flags []string
		want  func() chunk.Options
	}{
		{"default", nil, chunk.RepoOptions},
		{"catalogue's", []string{"-exclude", "none", "-exclude-generated=false", "-max-file-bytes", "0", "-max-chunk-lines", "0", "-max-chunk-bytes", "0"}, chunk.DefaultOptions},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			var stdout, stderr bytes.Buffer
			args := append([]string{"campaign", "-repos", filepath.Join(fx, "manifest.json"), "-cases", filepath.Join(fx, "cases.jsonl"),
				"-models", "none", "-pool", "3", "-cache", t.TempDir(), "-out", out, "-timestamp", "2026-01-01T00:00:00Z"}, tc.flags...)
			require.NoError(t, run(args, &stdout, &stderr), stderr.String())
			c, err := campaignfmt.Read(filepath.Join(out, "run.json"))
			require.NoError(t, err)
			require.Equal(t, tc.want().Key(), c.Meta.Chunking)
		})
	}
	var stdout, stderr bytes.Buffer
	err := run([]string{"campaign", "-repos", "a", "-cases", "b", "-exclude", "a/[b"}, &stdout, &stderr)
	if err == nil || exitCode(err) != 2 || !strings.Contains(err.Error(), `exclude pattern "a/[b"`) {
		t.Errorf("err = %v (exit %d), want a usage error naming the pattern", err, exitCode(err))
	}
}
