// Package testenv tells tests where the data pack, the cache and the ONNX
// Runtime library are, and turns a missing requirement into a loud skip — or,
// when the run requires it (CI sets RETRIEVALBENCH_REQUIRE), into a failure.
//
// Environment:
//
//	RETRIEVALBENCH_DATA     data pack directory (layout of ../shared/datasets;
//	                        default: cache.DefaultDataDir, where `retrievalbench
//	                        data fetch` puts the data, when it exists)
//	RETRIEVALBENCH_CACHE    cache root (default: the user cache dir + /retrievalbench)
//	RETRIEVALBENCH_TREC_EVAL_SRC  trec_eval's C source (default: trec_eval/src
//	                        next to the data pack; TrecEvalBinary builds it)
//	RETRIEVALBENCH_REQUIRE  comma-separated requirements that must not skip:
//	                        "data", "onnx", "models", "chromium", "mlflow",
//	                        "trec_eval", "gomodules", "tokenizer",
//	                        or "all"; "-kind" takes one out ("all,-mlflow")
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/retrievalbench/retrievalbench/cache"
)

// Environment variable names; the cache and data pack ones are package
// cache's, which the commands use without linking package testing.
const (
	EnvData    = cache.EnvData
	EnvCache   = cache.EnvDir
	EnvRequire = "RETRIEVALBENCH_REQUIRE"
)

// Requirement kinds for Required and Missing.
const (
	Data   = "data"
	ONNX   = "onnx"
	Models = "models"
	// Peers are the external systems make peers installs (pydocs-mcp,
	// Codira, Context7's MCP server).
	Peers = "peers"
	// Blocked is what no machine of this project can have (a peer whose
	// package the registries do not serve): it always skips, with the
	// reason, even when the run requires everything.
	Blocked = "blocked"
	// Chromium is a headless chromium for the leaderboard's HTML check
	// (make chromium).
	Chromium = "chromium"
	// MLflow is an MLflow tracking server install (make mlflow).
	MLflow = "mlflow"
	// GoModules is a Go module cache holding every module of this module's
	// graph (make modules), for the tests that run the go command offline.
	GoModules = "gomodules"
	// Tokenizer is the pinned LLM tokenizer of the token measures (make
	// tokenizer, a prerequisite of make setup).
	Tokenizer = "tokenizer"
	// TrecEval is the trec_eval 10.0 binary built from its C source
	// (make trec-eval; TrecEvalBinary).
	TrecEval = "trec_eval"
)

// DataDir is cache.DataDir: the data pack directory and whether it exists.
func DataDir() (string, bool) { return cache.DataDir() }

// CacheDir is cache.Dir, the cache root.
func CacheDir() string { return cache.Dir() }

// Required reports whether the run requires kind (see the package doc):
// kind or "all" is listed, and "-kind" is not ("all,-mlflow" requires
// everything but MLflow).
func Required(kind string) bool {
	if kind == Blocked {
		return false // nothing on any machine we reach can provide it
	}
	req := false
	for _, r := range strings.Split(os.Getenv(EnvRequire), ",") {
		switch r = strings.TrimSpace(r); r {
		case "-" + kind:
			return false
		case kind, "all":
			req = true
		}
	}
	return req
}

// Missing stops t because a requirement of kind is not met: it skips with
// the reason, or fails when the run requires kind.
func Missing(t testing.TB, kind, reason string) {
	t.Helper()
	if Required(kind) {
		t.Fatalf("required %s missing (%s=%q): %s", kind, EnvRequire, os.Getenv(EnvRequire), reason)
	}
	t.Skipf("SKIP (%s missing): %s", kind, reason)
}

// MustHaveData returns the path of rel inside the data pack, or stops t
// (see Missing) when the data pack or that entry is absent.
func MustHaveData(t testing.TB, rel string) string {
	t.Helper()
	dir, ok := DataDir()
	if !ok {
		Missing(t, Data, "set "+EnvData+" to the data pack directory (e.g. ../shared/datasets), or run `retrievalbench data fetch` to fill "+dir)
		return ""
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	if _, err := os.Stat(p); err != nil {
		Missing(t, Data, p+" not found in the data pack")
		return ""
	}
	return p
}

// EnvChromium names a chromium binary to use instead of the first of
// chromium, chromium-browser, google-chrome on PATH.
const EnvChromium = "RETRIEVALBENCH_CHROMIUM"

// ChromiumPath returns a headless-capable chromium and whether there is
// one.
func ChromiumPath() (string, bool) {
	if p := os.Getenv(EnvChromium); p != "" {
		st, err := os.Stat(p)
		return p, err == nil && !st.IsDir()
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, true
		}
	}
	return "", false
}

// MustHaveChromium returns ChromiumPath or stops t (see Missing).
func MustHaveChromium(t testing.TB) string {
	t.Helper()
	p, ok := ChromiumPath()
	if !ok {
		Missing(t, Chromium, "no chromium on PATH (nor "+EnvChromium+"); install it with `make chromium` (Debian's chromium package)")
		return ""
	}
	return p
}

// MLflowVersion is the MLflow release `make mlflow` installs (the
// Makefile's MLFLOW_VERSION; a test keeps the two equal).
const MLflowVersion = "3.17.2"

// MLflowPath returns the mlflow command of the venv `make mlflow` creates,
// CacheDir()/mlflow/MLflowVersion/venv/bin/mlflow, and whether it is
// installed (the install's marker file, written last, exists).
func MLflowPath() (string, bool) {
	home := filepath.Join(CacheDir(), "mlflow", MLflowVersion)
	_, err := os.Stat(filepath.Join(home, "installed"))
	return filepath.Join(home, "venv", "bin", "mlflow"), err == nil
}

// MustHaveMLflow returns MLflowPath or stops t (see Missing).
func MustHaveMLflow(t testing.TB) string {
	t.Helper()
	p, ok := MLflowPath()
	if !ok {
		Missing(t, MLflow, p+" not found; install MLflow "+MLflowVersion+" with `make mlflow`")
		return ""
	}
	return p
}
