package cases

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

type archiveEntry struct {
	name, body string
	symlink    bool
}

func writeZip(t *testing.T, file string, es []archiveEntry) {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range es {
		h := &zip.FileHeader{Name: e.name, Method: zip.Store}
		h.SetMode(0o644)
		if e.symlink {
			h.SetMode(fs.ModeSymlink | 0o777)
		}
		w, err := zw.CreateHeader(h)
		require.NoError(t, err)
		_, err = w.Write([]byte(e.body))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
}

func writeTar(t *testing.T, file string, es []archiveEntry) {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range es {
		h := &tar.Header{Typeflag: tar.TypeReg, Name: e.name, Mode: 0o644, Size: int64(len(e.body))}
		if e.symlink {
			h.Typeflag, h.Linkname, h.Size = tar.TypeSymlink, e.body, 0
		}
		require.NoError(t, tw.WriteHeader(h))
		if !e.symlink {
			_, err := tw.Write([]byte(e.body))
			require.NoError(t, err)
		}
	}
	require.NoError(t, tw.Close())
	require.NoError(t, os.WriteFile(file, buf.Bytes(), 0o644))
}

// TestArchiveHostile feeds repository archives with symlinks, escaping
// names and NUL bytes: each is skipped or refused with the archive's name,
// and nothing is read from (or written to) outside the archive.
func TestArchiveHostile(t *testing.T) {
	tests := []struct {
		name    string
		entries []archiveEntry
		want    []string // corpus paths
		wantErr string
		reason  string
	}{
		{"symlink", []archiveEntry{{"r/a.py", "x = 1\n", false}, {"r/link.py", "../../../etc/passwd", true}}, []string{"a.py"}, "",
			"a symlink is no file: zip stores its target as content, which must not become a corpus file"},
		{"dotdot", []archiveEntry{{"r/a.py", "x\n", false}, {"r/../../evil.py", "x\n", false}}, nil, "escapes the archive root", "a path above the root"},
		{"parent-only", []archiveEntry{{"a.py", "x\n", false}, {"..", "x\n", false}}, nil, "escapes the archive root", "the entry named .. itself"},
		{"absolute", []archiveEntry{{"/etc/passwd", "root\n", false}, {"b.py", "x\n", false}}, nil, "escapes the archive root", "an absolute path"},
		{"nul", []archiveEntry{{"r/a\x00.py", "x\n", false}, {"r/b.py", "x\n", false}}, nil, "NUL byte", "a NUL byte in a name"},
	}
	for _, tc := range tests {
		for _, kind := range []string{"zip", "tar"} {
			if kind == "tar" && tc.name == "nul" {
				continue // tar ends a name at its first NUL: not representable
			}
			t.Run(tc.name+"/"+kind, func(t *testing.T) {
				file := filepath.Join(t.TempDir(), "repo."+kind)
				if kind == "zip" {
					writeZip(t, file, tc.entries)
				} else {
					writeTar(t, file, tc.entries)
				}
				var got []string
				_, err := walkArchive(file, func(p string, b []byte) { got = append(got, p) })
				if tc.wantErr != "" {
					if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), file) {
						t.Fatalf("walkArchive = %v, %v; want an error naming %s and %q (%s)", got, err, file, tc.wantErr, tc.reason)
					}
					return
				}
				require.NoError(t, err)
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("corpus paths (-want +got):\n%s\n%s", diff, tc.reason)
				}
			})
		}
	}
}

// TestDirSymlink checks that a repository directory's symlinks — to a file
// outside it, or to a directory — are not read into the corpus.
func TestDirSymlink(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.py")
	require.NoError(t, os.WriteFile(outside, []byte("TOKEN = 1\n"), 0o644))
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.py"), []byte("x = 1\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "leak.py")))
	require.NoError(t, os.Symlink(filepath.Dir(outside), filepath.Join(root, "dir")))
	var got []string
	require.NoError(t, walkDir(root, func(p string, b []byte) { got = append(got, p) }))
	if diff := cmp.Diff([]string{"a.py"}, got); diff != "" {
		t.Errorf("corpus paths (-want +got):\n%s", diff)
	}
}

// TestRootSymlink: a manifest path that is itself a symbolic link to the
// checkout (relative, without a trailing slash) is read as that checkout;
// before, WalkDir did not follow the root and the repository had "no text
// files".
func TestRootSymlink(t *testing.T) {
	real := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(real, "a.py"), []byte("x = 1\n"), 0o644))
	base := t.TempDir()
	require.NoError(t, os.Symlink(real, filepath.Join(base, "linked")))
	c, _, err := LoadRepo("linked", RepoSpec{Path: "linked", Commit: "x"}, base)
	require.NoError(t, err)
	var got []string
	for _, d := range c.Docs {
		got = append(got, d.Path)
	}
	if diff := cmp.Diff([]string{"a.py"}, got); diff != "" {
		t.Errorf("corpus paths (-want +got):\n%s", diff)
	}
}
