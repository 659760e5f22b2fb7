package cache

import (
	"os"
	"path/filepath"
)

// Environment variables that place the cache and the data pack.
const (
	EnvDir  = "RETRIEVALBENCH_CACHE"
	EnvData = "RETRIEVALBENCH_DATA"
)

// Dir returns the cache root: $RETRIEVALBENCH_CACHE, else the user cache
// directory + "/retrievalbench", else a directory under the temp dir.
func Dir() string {
	if dir := os.Getenv(EnvDir); dir != "" {
		return dir
	}
	if dir, err := os.UserCacheDir(); err == nil {
		return filepath.Join(dir, "retrievalbench")
	}
	return filepath.Join(os.TempDir(), "retrievalbench-cache")
}

// DefaultDataDir is the cache's data directory, Dir()/data: where
// `retrievalbench data fetch` writes by default and where DataDir looks
// when RETRIEVALBENCH_DATA is unset.
func DefaultDataDir() string { return filepath.Join(Dir(), "data") }

// DataDir returns the data directory and whether it exists:
// $RETRIEVALBENCH_DATA when set, else DefaultDataDir — so the data that
// `retrievalbench data fetch` put there is the data the tests use.
func DataDir() (string, bool) {
	dir := os.Getenv(EnvData)
	if dir == "" {
		dir = DefaultDataDir()
	}
	st, err := os.Stat(dir)
	return dir, err == nil && st.IsDir()
}
