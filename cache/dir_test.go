package cache

import (
	"os"
	"path/filepath"
	"testing"
)

func TestDirFromEnv(t *testing.T) {
	t.Setenv(EnvDir, "/some/cache")
	if got := Dir(); got != "/some/cache" {
		t.Errorf("Dir = %q, want the %s value", got, EnvDir)
	}
}

func TestDataDirMustExist(t *testing.T) {
	t.Setenv(EnvData, t.TempDir()+"/absent")
	if _, ok := DataDir(); ok {
		t.Error("DataDir reported a missing directory as present")
	}
	dir := t.TempDir()
	t.Setenv(EnvData, dir)
	if got, ok := DataDir(); !ok || got != dir {
		t.Errorf("DataDir = %q, %v; want %q, true", got, ok, dir)
	}
}

func TestDataDirDefault(t *testing.T) {
	root := t.TempDir()
	t.Setenv(EnvDir, root)
	t.Setenv(EnvData, "")
	want := filepath.Join(root, "data")
	if got := DefaultDataDir(); got != want {
		t.Errorf("DefaultDataDir = %q, want %q", got, want)
	}
	if got, ok := DataDir(); ok || got != want {
		t.Errorf("DataDir without data = %q, %v; want %q, false", got, ok, want)
	}
	if err := os.Mkdir(want, 0o755); err != nil {
		t.Fatal(err)
	}
	if got, ok := DataDir(); !ok || got != want {
		t.Errorf("DataDir with the cache's data dir = %q, %v; want %q, true", got, ok, want)
	}
	other := t.TempDir()
	t.Setenv(EnvData, other)
	if got, ok := DataDir(); !ok || got != other {
		t.Errorf("DataDir with %s set = %q, %v; want %q, true (the variable wins)", EnvData, got, ok, other)
	}
}
