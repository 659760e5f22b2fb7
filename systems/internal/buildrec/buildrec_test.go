package buildrec

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/systems"
)

func TestBuildRecord(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "build.json")
	require.Equal(t, systems.IndexReport{Reused: true}, Read(file), "no record: reused, build time unknown")

	require.NoError(t, Write(file, systems.IndexReport{BuildTime: 1500 * time.Millisecond, CPUClass: "amd64-avx2"}))
	b, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Equal(t, `{"build_seconds":1.5,"cpu_class":"amd64-avx2"}`+"\n", string(b), "the record's format (caches written by earlier versions read back)")
	require.Equal(t, systems.IndexReport{Reused: true, BuildTime: 1500 * time.Millisecond, CPUClass: "amd64-avx2"}, Read(file))

	for _, bad := range []string{"not json", `{"build_seconds":0,"cpu_class":"x"}`, `{"build_seconds":-3}`} {
		require.NoError(t, os.WriteFile(file, []byte(bad), 0o644))
		require.Equal(t, systems.IndexReport{Reused: true}, Read(file), "record %q: build time unknown", bad)
	}
}
