package embed

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/embed/models"
)

// EnvServerPython names a Python with onnxruntime, tokenizers and numpy
// (see testdata/server/serve.py) for TestEndpointServer, which is opt-in.
const EnvServerPython = "RETRIEVALBENCH_EMBED_SERVER_PYTHON"

// TestEndpointServer embeds texts with minilm-l6 twice: in-process, and
// through a real OpenAI-compatible server process (testdata/server/serve.py:
// Python ONNX Runtime and Hugging Face tokenizers over the same files) via
// Endpoint, and wants every pair of vectors at cosine ≥ 0.999.
func TestEndpointServer(t *testing.T) {
	python := os.Getenv(EnvServerPython)
	if python == "" {
		t.Skipf("SKIP (opt-in): set %s to a Python with onnxruntime, tokenizers and numpy (testdata/server/serve.py says which versions) to check a served model against the in-process one", EnvServerPython)
	}
	m, err := models.Lookup("minilm-l6") // float32: vectors do not depend on batch companions
	require.NoError(t, err)
	e := newEmbedder(t, m)
	cache := mustHaveRuntime(t)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	cmd := exec.CommandContext(t.Context(), python, "testdata/server/serve.py", "--dir", models.Dir(cache, m),
		"--name", "minilm", "--port", fmt.Sprint(port), "--pooling", m.Pooling, "--max-tokens", fmt.Sprint(m.MaxTokens))
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	ready := make(chan bool, 1)
	go func() { ready <- bufio.NewScanner(out).Scan() }()
	select {
	case ok := <-ready:
		require.True(t, ok, "serve.py ended before serving")
	case <-time.After(2 * time.Minute):
		t.Fatal("serve.py did not start in 2 minutes")
	}

	mf, _ := m.File(models.ModelFile)
	served := models.Model{ID: "minilm-served", Kind: models.KindEndpoint, Dimension: m.Dimension, Licence: m.Licence,
		Endpoint: &models.Endpoint{BaseURL: fmt.Sprintf("http://127.0.0.1:%d/v1", port), Model: "minilm", Revision: mf.SHA256, BatchSize: 4}}
	require.NoError(t, models.CheckUser(served))
	ep, err := NewEndpoint(served, nil)
	require.NoError(t, err)

	texts := []string{
		"reverse a string", "def reverse(s):\n    return s[::-1]",
		"func Fetch(url string) ([]byte, error) { return http.Get(url) }",
		"public static int add(int a, int b) { return a + b; }",
		"const sum = (xs) => xs.reduce((a, b) => a + b, 0);",
		"fn main() { println!(\"hello\"); }", "std::vector<int> v{1, 2, 3};",
		"Open a PostgreSQL database connection and retry on failure.",
		"naïve café ünïcödé", "x",
		strings.Repeat("a long function body that is cut at the model's max tokens ", 40),
	}
	local, err := e.Embed(t.Context(), texts, "")
	require.NoError(t, err)
	remote, err := ep.Embed(t.Context(), texts, "")
	require.NoError(t, err)
	minCos := 1.0
	for i := range texts {
		c := float64(Dot(local[i], remote[i]))
		minCos = min(minCos, c)
		if c < 0.999 {
			t.Errorf("text %d: cosine %.6f between in-process and served vectors", i, c)
		}
	}
	t.Logf("%d texts, min cosine in-process vs served %.7f (%d requests)", len(texts), minCos, ep.Stats().Requests)
}
