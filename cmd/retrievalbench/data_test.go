package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

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
