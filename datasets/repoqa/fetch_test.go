package repoqa

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
)

func gz(t *testing.T, s string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, err := zw.Write([]byte(s))
	require.NoError(t, err)
	require.NoError(t, zw.Close())
	return b.Bytes()
}

func pins(json string, compressed []byte) (string, string) {
	s := sha256.Sum256([]byte(json))
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(compressed)) + "\x00"))
	h.Write(compressed)
	return hex.EncodeToString(s[:]), hex.EncodeToString(h.Sum(nil))
}

func TestFetch(t *testing.T) {
	json := `{"python": [` + goodRepo + `]}`
	body := gz(t, json)
	jsonSHA, blob := pins(json, body)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path != "/download/"+ReleaseAsset {
			http.NotFound(w, r)
			return
		}
		w.Write(body)
	}))
	defer srv.Close()

	cfgFor := func(cache string) FetchConfig {
		cfg := DefaultFetchConfig(cache)
		cfg.URL = srv.URL + "/download/" + ReleaseAsset
		cfg.JSONSHA256, cfg.GitBlob = jsonSHA, blob
		cfg.Client = srv.Client()
		return cfg
	}

	t.Run("download then cache", func(t *testing.T) {
		cache := t.TempDir()
		hits.Store(0)
		p, err := Fetch(t.Context(), cfgFor(cache))
		require.NoError(t, err)
		if want := filepath.Join(cache, "repoqa", ReleaseAsset); p != want {
			t.Errorf("path %s, want %s", p, want)
		}
		rel, err := ReadRelease(p)
		require.NoError(t, err)
		if len(rel.Repos) != 1 {
			t.Errorf("fetched release has %d repos, want 1", len(rel.Repos))
		}
		if _, err := Fetch(t.Context(), cfgFor(cache)); err != nil || hits.Load() != 1 {
			t.Errorf("second fetch: err %v, %d requests; want the cached copy and 1 request", err, hits.Load())
		}
	})

	tests := []struct {
		name    string
		mutate  func(*FetchConfig)
		wantErr string
		reason  string
	}{
		{"wrong sha256", func(c *FetchConfig) { c.JSONSHA256 = strings.Repeat("0", 64) }, "sha256 of the JSON", "a changed release must not be used"},
		{"wrong git blob", func(c *FetchConfig) { c.GitBlob = strings.Repeat("0", 40) }, "git blob id", "the compressed bytes are pinned too"},
		{"not found", func(c *FetchConfig) { c.URL = srv.URL + "/nope/" + ReleaseAsset }, "404", "HTTP errors are reported"},
		{"too large", func(c *FetchConfig) { c.MaxBytes = 10 }, "exceeds 10 bytes", "the download is bounded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cache := t.TempDir()
			cfg := cfgFor(cache)
			tc.mutate(&cfg)
			_, err := Fetch(t.Context(), cfg)
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("%s: Fetch error = %v, want containing %q", tc.reason, err, tc.wantErr)
			}
			entries, _ := os.ReadDir(filepath.Join(cache, "repoqa"))
			if len(entries) != 0 {
				t.Errorf("%s: cache holds %d files after a failed fetch", tc.reason, len(entries))
			}
		})
	}

	t.Run("mirror without network", func(t *testing.T) {
		mirror := t.TempDir()
		require.NoError(t, os.WriteFile(filepath.Join(mirror, ReleaseAsset), body, 0o644))
		cfg := cfgFor(t.TempDir())
		cfg.URL = "http://127.0.0.1:1/" + ReleaseAsset // unreachable
		cfg.Mirror = mirror
		if _, err := Fetch(t.Context(), cfg); err != nil {
			t.Errorf("fetch from mirror: %v", err)
		}
	})

	t.Run("corrupt cache is an error", func(t *testing.T) {
		cache := t.TempDir()
		dst := filepath.Join(cache, "repoqa", ReleaseAsset)
		require.NoError(t, os.MkdirAll(filepath.Dir(dst), 0o755))
		require.NoError(t, os.WriteFile(dst, gz(t, `{"python": []}`), 0o644))
		if _, err := Fetch(t.Context(), cfgFor(cache)); err == nil || !strings.Contains(err.Error(), "cached") {
			t.Errorf("Fetch over a corrupt cache: err %v, want an error naming the cached file", err)
		}
	})
}
