package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestWriteFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "out.txt")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	require.NoError(t, WriteFile(p, []byte("new\n")))
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	if string(b) != "new\n" {
		t.Errorf("content %q, want %q", b, "new\n")
	}
	st, err := os.Stat(p)
	require.NoError(t, err)
	if st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644 (readable like os.WriteFile's usual files)", st.Mode().Perm())
	}
	assertOnly(t, filepath.Dir(p), "out.txt")
}

func TestWriteFailureKeepsOld(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.txt")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o644))
	boom := errors.New("boom")
	err := Write(p, func(w io.Writer) error {
		io.WriteString(w, "half")
		return boom
	})
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "writing "+p) {
		t.Errorf("err = %v, want writing %s: boom", err, p)
	}
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	if string(b) != "old" {
		t.Errorf("a failed write replaced the file: %q", b)
	}
	assertOnly(t, dir, "out.txt")
}

func TestWriteCreatesDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "absent", "deeper")
	require.NoError(t, WriteFile(filepath.Join(dir, "out.txt"), []byte("x")))
	assertOnly(t, dir, "out.txt")
}

func TestWriteDirIsAFile(t *testing.T) {
	parent := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(parent, nil, 0o644))
	if err := WriteFile(filepath.Join(parent, "out.txt"), nil); err == nil {
		t.Error("writing under a regular file succeeded, want an error")
	}
}

// assertOnly checks that dir holds exactly name: no temporary file is left.
func assertOnly(t *testing.T, dir, name string) {
	t.Helper()
	es, err := os.ReadDir(dir)
	require.NoError(t, err)
	if len(es) != 1 || es[0].Name() != name {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("dir holds %v, want only %s", names, name)
	}
}
