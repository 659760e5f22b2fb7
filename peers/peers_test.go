package peers_test

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/cache"
)

// readLock returns the name==version pins of a pip lock file, names
// normalized as pip does (lowercase, "_" → "-").
func readLock(t *testing.T, file string) map[string]string {
	t.Helper()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	pins := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, version, ok := strings.Cut(line, "==")
		if !ok || version == "" || strings.ContainsAny(version, "<>=~*, ") {
			t.Errorf("%s:%d: %q is not an exact pin name==version", file, n, line)
			continue
		}
		pins[strings.ReplaceAll(strings.ToLower(name), "_", "-")] = version
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return pins
}

func TestLocksPinThePeers(t *testing.T) {
	for _, tc := range []struct {
		lock   string
		want   map[string]string
		reason string
	}{
		{"pydocs-mcp.lock", map[string]string{"pydocs-mcp": "0.8.1", "fastembed": "0.9.1", "onnxruntime": "1.32.0", "mcp": "1.30.0"},
			"the version issue 11 measured, and the libraries its offline setup depends on"},
		{"codira.lock", map[string]string{"codira": "1.55.0", "codira-analyzer-python": "1.55.0", "codira-analyzer-markdown": "1.55.0",
			"codira-analyzer-text": "1.55.0", "codira-backend-sqlite": "1.55.0", "codira-embedding-onnx": "1.55.0",
			"codira-vector-store-duckdb": "1.55.0", "pyarrow": "26.0.1", "onnxruntime": "1.32.0", "duckdb": "1.5.6"},
			"the lean set (no torch/CUDA bundle) at one release"},
	} {
		pins := readLock(t, tc.lock)
		got := map[string]string{}
		for k := range tc.want {
			got[k] = pins[k]
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s pins (-want +got):\n%s\n(%s)", tc.lock, diff, tc.reason)
		}
		for _, heavy := range []string{"torch", "nvidia-cublas-cu12", "sentence-transformers"} {
			if v, ok := pins[heavy]; ok {
				t.Errorf("%s pins %s==%s: the lean install must not pull it", tc.lock, heavy, v)
			}
		}
	}
}

func TestNPMLockIsComplete(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("context7", "package-lock.json"))
	if err != nil {
		t.Fatal(err)
	}
	var lock struct {
		LockfileVersion int `json:"lockfileVersion"`
		Packages        map[string]struct {
			Version   string `json:"version"`
			Integrity string `json:"integrity"`
			Resolved  string `json:"resolved"`
		} `json:"packages"`
	}
	if err := json.Unmarshal(b, &lock); err != nil {
		t.Fatalf("context7/package-lock.json: %v", err)
	}
	if lock.LockfileVersion != 3 {
		t.Errorf("lockfileVersion %d, want 3 (npm ci of npm >= 9)", lock.LockfileVersion)
	}
	if v := lock.Packages["node_modules/@upstash/context7-mcp"].Version; v != "4.1.1" {
		t.Errorf("@upstash/context7-mcp locked at %q, want 4.1.1", v)
	}
	for name, p := range lock.Packages {
		if name == "" {
			continue
		}
		if p.Version == "" || !strings.HasPrefix(p.Integrity, "sha512-") {
			t.Errorf("%s: version %q integrity %q: npm ci needs both to install exactly this", name, p.Version, p.Integrity)
		}
		if p.Resolved != "" {
			t.Errorf("%s: resolved URL kept (%s); the lock must not name a registry host", name, p.Resolved)
		}
	}
}

// TestInstallSkipsLoudlyWithoutInterpreters runs install.sh with a PATH
// that has the shell tools but no python, pyenv or node: every peer must
// say why it is skipped, nothing may be installed, and the exit status is
// 0 (a missing interpreter is not an install failure).
func TestInstallSkipsLoudlyWithoutInterpreters(t *testing.T) {
	bin := shellTools(t)
	dir := t.TempDir()
	fakeModels(dir)
	cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "bash"), "install.sh")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + t.TempDir(), "RETRIEVALBENCH_CACHE=" + dir}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh exited with %v, want 0 when interpreters are missing:\n%s", err, out)
	}
	for _, want := range []string{
		"peers: SKIP pydocs-mcp: no python3.11 interpreter",
		"peers: SKIP codira: no python3.13 interpreter",
		"peers: SKIP context7: node not found",
		"peers: SKIP neuledge: @neuledge/context is not in the npm registry",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("install.sh output lacks %q:\n%s", want, out)
		}
	}
	for _, peer := range []string{"pydocs-mcp", "codira", "context7"} {
		if _, err := os.Stat(filepath.Join(dir, "peers", peer)); err == nil {
			t.Errorf("%s: a skipped peer left a directory in the cache", peer)
		}
	}
}

// TestInstallUsesTheSuitesCacheDir runs install.sh with XDG_CACHE_HOME set
// and RETRIEVALBENCH_CACHE unset: it must work in the directory cache.Dir
// names for the same environment, where the suite looks for the peers (an
// install into ~/.cache while the suite reads $XDG_CACHE_HOME would skip
// every peer cell).
func TestInstallUsesTheSuitesCacheDir(t *testing.T) {
	bin := shellTools(t)
	home, xdg := t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", xdg)
	t.Setenv(cache.EnvDir, "")
	want := cache.Dir()
	if want != filepath.Join(xdg, "retrievalbench") {
		t.Fatalf("cache.Dir() = %s with XDG_CACHE_HOME=%s", want, xdg)
	}
	fakeModels(want)
	cmd := exec.CommandContext(t.Context(), filepath.Join(bin, "bash"), "install.sh", "codira")
	cmd.Env = []string{"PATH=" + bin, "HOME=" + home, "XDG_CACHE_HOME=" + xdg}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("install.sh exited with %v:\n%s", err, out)
	}
	if st, err := os.Stat(filepath.Join(want, "peers")); err != nil || !st.IsDir() {
		t.Errorf("install.sh made no %s/peers (%v):\n%s", want, err, out)
	}
	if _, err := os.Stat(filepath.Join(home, ".cache")); err == nil {
		t.Errorf("install.sh wrote under $HOME/.cache although XDG_CACHE_HOME is set:\n%s", out)
	}
}

// shellTools returns a directory of links to the shell tools install.sh
// uses, and nothing else: no python, pyenv or node.
func shellTools(t *testing.T) string {
	t.Helper()
	bin := t.TempDir()
	for _, tool := range []string{"bash", "cat", "cut", "dirname", "sha256sum", "mkdir", "sort", "tail", "head", "grep", "tr", "diff", "du", "rm", "ln", "cp"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Skipf("%s not on PATH: %v", tool, err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// fakeModels puts empty bge-small-q files under root/models, enough for
// install.sh to get past its model check.
func fakeModels(root string) {
	for _, f := range []string{"models/bge-small-q/model.onnx", "models/bge-small-q/tokenizer.json"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(f)), 0o755)
		os.WriteFile(filepath.Join(root, f), nil, 0o644)
	}
}
