package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets/fetch"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func TestDataUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"data"}, 2, "no subcommand"},
		{[]string{"data", "pull"}, 2, `unknown subcommand "pull"`},
		{[]string{"data", "fetch", "-dir", t.TempDir(), "nope"}, 2, `unknown dataset "nope"`},
		{[]string{"data", "ls", "extra"}, 2, "unexpected arguments"},
		{[]string{"data", "ls", "-dir", filepath.Join(t.TempDir(), "absent")}, 1, "does not exist"},
	} {
		var out, errb bytes.Buffer
		err := run(tc.args, &out, &errb)
		if err == nil || exitCode(err) != tc.code || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run(%q) = %v (exit %d), want exit %d and %q", tc.args, err, exitCode(err), tc.code, tc.want)
		}
	}
}

func TestDataLsMismatch(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "cosqa"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cosqa", "LICENSE"), []byte("not the MIT text\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "cosqa", "notes.txt"), []byte("mine\n"), 0o644))
	var out, errb bytes.Buffer
	err := run([]string{"data", "ls", "-dir", dir}, &out, &errb)
	if err == nil || exitCode(err) != 1 || !strings.Contains(err.Error(), "1 files differ") {
		t.Errorf("ls over a tampered file: %v, want exit 1", err)
	}
	for _, want := range []string{"MISMATCH  cosqa/LICENSE", "unpinned  cosqa/notes.txt", "2 files, 22 bytes"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestDataFetchMirror(t *testing.T) {
	testenv.MustHaveData(t, "SHA256SUMS")
	pack, _ := testenv.DataDir()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"data", "fetch", "-mirror", pack, "-dir", dir, "vaswani", "coderag"}, &out, &errb), errb.String())
	for _, want := range []string{"vaswani: 4 fetched, 0 already present", "coderag: 5 fetched"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("fetch output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	require.NoError(t, run([]string{"data", "fetch", "-mirror", pack, "-dir", dir, "vaswani"}, &out, &errb))
	if !strings.Contains(out.String(), "vaswani: 0 fetched, 4 already present") {
		t.Errorf("second fetch:\n%s", out.String())
	}
	out.Reset()
	require.NoError(t, run([]string{"data", "ls", "-dir", dir}, &out, &errb))
	if strings.Count(out.String(), "  ok  ") != 9 || !strings.Contains(out.String(), "9 files") {
		t.Errorf("ls: want 9 ok files:\n%s", out.String())
	}
}

// TestDataFetchDownload serves the pack's CoSQA files at their source URLs
// (the code map uncompressed, as published) and downloads them.
func TestDataFetchDownload(t *testing.T) {
	testenv.MustHaveData(t, "cosqa/LICENSE")
	pack, _ := testenv.DataDir()
	bodies := map[string][]byte{}
	for _, f := range fetch.Files("cosqa") {
		if f.URL == "" {
			continue
		}
		b, err := os.ReadFile(filepath.Join(pack, f.Mirror))
		require.NoError(t, err)
		if strings.HasSuffix(f.Mirror, ".gz") {
			gz, err := gzip.NewReader(bytes.NewReader(b))
			require.NoError(t, err)
			b, err = io.ReadAll(gz)
			require.NoError(t, err)
		}
		bodies["/"+f.URL] = b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, ok := bodies[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Write(b)
	}))
	defer srv.Close()
	dir := t.TempDir()
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"data", "fetch", "-base-url", srv.URL + "/", "-dir", dir, "cosqa"}, &out, &errb), errb.String())
	if !strings.Contains(out.String(), "cosqa: 4 fetched, 0 already present, 1 mirror-only") {
		t.Errorf("fetch output:\n%s", out.String())
	}
	out.Reset()
	require.NoError(t, run([]string{"data", "ls", "-dir", dir}, &out, &errb))
	if strings.Count(out.String(), "  ok  ") != 4 {
		t.Errorf("ls: want 4 ok files:\n%s", out.String())
	}
}

func TestDataHelp(t *testing.T) {
	for _, arg := range []string{"-h", "--help", "help"} {
		var out, errb bytes.Buffer
		if err := run([]string{"data", arg}, &out, &errb); err != nil {
			t.Errorf("data %s: %v (exit %d), want exit 0", arg, err, exitCode(err))
		}
		for _, want := range []string{"usage: retrievalbench data fetch", "retrievalbench data ls", testenv.EnvData} {
			if !strings.Contains(out.String(), want) {
				t.Errorf("data %s: stdout lacks %q:\n%s", arg, want, out.String())
			}
		}
	}
}

// TestDataFetchDefaultIsTestData: what `data fetch` writes without -dir is
// what the tests find without RETRIEVALBENCH_DATA.
func TestDataFetchDefaultIsTestData(t *testing.T) {
	testenv.MustHaveData(t, "SHA256SUMS")
	pack, _ := testenv.DataDir()
	cache := t.TempDir()
	t.Setenv(testenv.EnvCache, cache)
	t.Setenv(testenv.EnvData, "")
	if dir, ok := testenv.DataDir(); ok {
		t.Fatalf("DataDir = %s before any fetch into an empty cache", dir)
	}
	var out, errb bytes.Buffer
	require.NoError(t, run([]string{"data", "fetch", "-mirror", pack, "vaswani"}, &out, &errb), errb.String())
	dir, ok := testenv.DataDir()
	if !ok {
		t.Fatalf("DataDir after data fetch: %s does not exist", dir)
	}
	if want := filepath.Join(cache, "data"); dir != want || !strings.Contains(out.String(), "data directory: "+want) {
		t.Errorf("DataDir = %s; want %s, the directory fetch reported:\n%s", dir, want, out.String())
	}
	if _, err := os.Stat(filepath.Join(dir, "vaswani")); err != nil {
		t.Errorf("the fetched dataset is not where the tests look: %v", err)
	}
}
