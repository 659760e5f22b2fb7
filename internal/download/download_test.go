package download

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func sum(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}

// files lists what dir holds, temporary files included.
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func TestFile(t *testing.T) {
	const body = "the pinned bytes\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/ok", "/short":
			w.Header().Set("Content-Length", "17")
			if r.URL.Path == "/short" {
				// Promise the whole body, send half, and hang up: the
				// client sees an unexpected EOF mid-stream.
				io.WriteString(w, body[:8])
				w.(http.Flusher).Flush()
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			io.WriteString(w, body)
		case "/tampered":
			io.WriteString(w, strings.ToUpper(body))
		case "/long":
			io.WriteString(w, body+"and more")
		case "/boom":
			http.Error(w, "boom", http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	pin := Pin{SHA256: sum(body), Size: int64(len(body))}

	dir := t.TempDir()
	dst := filepath.Join(dir, "sub", "f.txt")
	require.NoError(t, File(t.Context(), srv.Client(), srv.URL+"/ok", dst, pin))
	got, err := os.ReadFile(dst)
	require.NoError(t, err)
	require.Equal(t, body, string(got))
	st, err := os.Stat(dst)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o644), st.Mode().Perm(), "the default mode")

	tests := []struct {
		name    string
		path    string
		pin     Pin
		corrupt bool
		want    string
		reason  string
	}{
		{"bad sha256", "/tampered", Pin{SHA256: sum(body)}, true, "corrupt: sha256 " + sum(strings.ToUpper(body)) + ", want " + sum(body), "other bytes of an unpinned size"},
		{"truncated body", "/short", pin, false, "unexpected EOF", "the server hangs up mid-body"},
		{"longer than pinned", "/long", pin, true, "corrupt: 18 bytes, want 17", "reading stops one byte past the pinned size"},
		{"server error", "/boom", pin, false, "GET " + srv.URL + "/boom: 500 Internal Server Error", "the status is an error naming the URL"},
		{"not found", "/nope", pin, false, "404 Not Found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			dst := filepath.Join(dir, "f.txt")
			require.NoError(t, os.WriteFile(dst, []byte("old\n"), 0o644))
			err := File(t.Context(), srv.Client(), srv.URL+tt.path, dst, tt.pin)
			require.ErrorContains(t, err, tt.want, tt.reason)
			require.Equal(t, tt.corrupt, errors.Is(err, ErrCorrupt), "errors.Is(err, ErrCorrupt): %v", err)
			if diff := cmp.Diff([]string{"f.txt"}, files(t, dir)); diff != "" {
				t.Errorf("a failed download left files behind (-want +got):\n%s", diff)
			}
			old, err := os.ReadFile(dst)
			require.NoError(t, err)
			require.Equal(t, "old\n", string(old), "a failed download must leave the old file")
		})
	}
}

// failingReader returns some bytes and then an error, like a connection
// that breaks while a file is written.
type failingReader struct{ n int }

func (r *failingReader) Read(p []byte) (int, error) {
	if r.n <= 0 {
		return 0, errors.New("connection reset")
	}
	n := min(len(p), r.n)
	for i := range n {
		p[i] = 'x'
	}
	r.n -= n
	return n, nil
}

func TestInstallInterrupted(t *testing.T) {
	dir := t.TempDir()
	dst := filepath.Join(dir, "model.onnx")
	err := Install(&failingReader{n: 1 << 16}, dst, Pin{SHA256: sum("x"), Size: 1 << 20})
	require.ErrorContains(t, err, "connection reset")
	if diff := cmp.Diff([]string(nil), files(t, dir)); diff != "" {
		t.Errorf("an interrupted write left a partial file (-want +got):\n%s", diff)
	}
}

func TestInstallMode(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "lib.so")
	require.NoError(t, Install(strings.NewReader("elf"), dst, Pin{SHA256: sum("elf"), Size: 3, Mode: 0o755}))
	st, err := os.Stat(dst)
	require.NoError(t, err)
	require.Equal(t, os.FileMode(0o755), st.Mode().Perm())
}

func TestCheck(t *testing.T) {
	pin := Pin{SHA256: sum("abc"), Size: 3}
	tests := []struct {
		name   string
		size   int64
		sum    string
		want   string
		reason string
	}{
		{"match", 3, sum("abc"), "", "size and sum agree"},
		{"short", 2, sum("ab"), "corrupt: truncated: 2 bytes, want 3", "the size is checked before the sum"},
		{"long", 4, sum("abcd"), "corrupt: 4 bytes, want 3", ""},
		{"other bytes", 3, sum("xyz"), "corrupt: sha256 " + sum("xyz") + ", want " + sum("abc"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.size, tt.sum, pin)
			if tt.want == "" {
				require.NoError(t, err, tt.reason)
				return
			}
			require.ErrorIs(t, err, ErrCorrupt)
			require.EqualError(t, err, tt.want, tt.reason)
		})
	}
	require.NoError(t, Check(99, sum("abc"), Pin{SHA256: sum("abc")}), "an unpinned size is not checked")
}

func TestFileSum(t *testing.T) {
	p := filepath.Join(t.TempDir(), "f")
	require.NoError(t, os.WriteFile(p, []byte("hello\n"), 0o644))
	got, n, err := FileSum(p)
	require.NoError(t, err)
	// sha256sum of "hello\n", computed independently.
	require.Equal(t, "5891b5b522d5df086d0ff0b110fbd9d21bb4fc7163af34d08286a2e846f6be03", got)
	require.EqualValues(t, 6, n)
}
