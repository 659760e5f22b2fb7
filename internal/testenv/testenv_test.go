package testenv

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

func TestRequired(t *testing.T) {
	tests := []struct {
		env    string
		kind   string
		want   bool
		reason string
	}{
		{"", Data, false, "nothing required by default"},
		{"data", Data, true, "named kind"},
		{"data, onnx", ONNX, true, "comma list with spaces"},
		{"data", Models, false, "other kinds stay optional"},
		{"all", Models, true, "all means every kind"},
		{"all", Chromium, true, "all includes the browser"},
		{"all,-mlflow", MLflow, false, "a minus takes one kind out of all"},
		{"all,-mlflow", Chromium, true, "the minus takes out only its kind"},
		{"-data,data", Data, false, "a minus wins wherever it stands"},
	}
	for _, tt := range tests {
		t.Run(tt.env+"/"+tt.kind, func(t *testing.T) {
			t.Setenv(EnvRequire, tt.env)
			if got := Required(tt.kind); got != tt.want {
				t.Errorf("Required(%q) with %s=%q = %v, want %v (%s)", tt.kind, EnvRequire, tt.env, got, tt.want, tt.reason)
			}
		})
	}
}

func TestCacheDirFromEnv(t *testing.T) {
	t.Setenv(EnvCache, "/some/cache")
	if got := CacheDir(); got != "/some/cache" {
		t.Errorf("CacheDir = %q, want the %s value", got, EnvCache)
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
	cache := t.TempDir()
	t.Setenv(EnvCache, cache)
	t.Setenv(EnvData, "")
	want := filepath.Join(cache, "data")
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

// TestMLflowVersionMatchesMakefile: make mlflow installs the release the
// tests look for.
func TestMLflowVersionMatchesMakefile(t *testing.T) {
	mk, err := os.ReadFile("../../Makefile")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^MLFLOW_VERSION \?= (\S+)$`).FindSubmatch(mk)
	if m == nil {
		t.Fatal("Makefile has no MLFLOW_VERSION ?= line")
	}
	if string(m[1]) != MLflowVersion {
		t.Errorf("Makefile installs MLflow %s, testenv.MLflowVersion is %s", m[1], MLflowVersion)
	}
}
