package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestCacheCommand(t *testing.T) {
	root := t.TempDir()
	old := time.Now().Add(-40 * 24 * time.Hour)
	mk := func(rel string, n int, ts time.Time) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, make([]byte, n), 0o644))
		require.NoError(t, os.Chtimes(p, ts, ts))
	}
	mk("bm25/aaaa-1111/index.db", 2048, old)
	mk("bm25/bbbb-2222/index.db", 1024, time.Now())
	mk("dense/minilm-l6-q/vectors.db", 4096, old)
	mk("models/minilm-l6-q/model.onnx", 100, old)

	cmd := func(args ...string) (string, error) {
		var out, errb bytes.Buffer
		err := run(append([]string{"cache"}, args...), &out, &errb)
		return out.String() + errb.String(), err
	}
	out, err := cmd("info", "-cache", root)
	require.NoError(t, err)
	for _, w := range []string{"4 entries", "bm25/aaaa-1111", "2.0 KiB", "40d ago", "dense/minilm-l6-q", "4.0 KiB", "total 7.1 KiB (models 100 B, bm25 3.0 KiB, vectors 4.0 KiB)"} {
		if !strings.Contains(out, w) {
			t.Errorf("info lacks %q:\n%s", w, out)
		}
	}
	out, err = cmd("info", "-cache", root, "-json")
	require.NoError(t, err)
	if !strings.Contains(out, `"Path": "bm25/aaaa-1111"`) || !strings.Contains(out, `"Bytes": 2048`) {
		t.Errorf("info -json:\n%s", out)
	}

	out, err = cmd("evict", "-cache", root, "-older-than", "30d", "-kind", "bm25,vectors", "-dry-run")
	require.NoError(t, err)
	if !strings.Contains(out, "would evict bm25 bm25/aaaa-1111") || !strings.Contains(out, "would evict vectors dense/minilm-l6-q") ||
		strings.Contains(out, "bbbb") || strings.Contains(out, "models/") || !strings.Contains(out, "dry run: 2 of 4 entries, 6.0 KiB") {
		t.Errorf("dry run:\n%s", out)
	}
	for _, p := range []string{"bm25/aaaa-1111/index.db", "dense/minilm-l6-q/vectors.db"} {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("dry run removed %s", p)
		}
	}
	out, err = cmd("evict", "-cache", root, "-older-than", "30d", "-kind", "bm25,vectors")
	require.NoError(t, err)
	if !strings.Contains(out, "evicted 2 of 4 entries, 6.0 KiB freed") {
		t.Errorf("evict:\n%s", out)
	}
	for p, want := range map[string]bool{"bm25/aaaa-1111": false, "dense/minilm-l6-q": false, "bm25/bbbb-2222": true, "models/minilm-l6-q": true} {
		if _, err := os.Stat(filepath.Join(root, p)); (err == nil) != want {
			t.Errorf("after evict, %s exists = %v, want %v", p, err == nil, want)
		}
	}
	ents, _ := filepath.Glob(filepath.Join(root, ".evict-*"))
	if len(ents) != 0 {
		t.Errorf("evict left trash: %q", ents)
	}
	out, err = cmd("evict", "-cache", root, "-all")
	require.NoError(t, err)
	if !strings.Contains(out, "evicted 2 of 2 entries") {
		t.Errorf("evict -all:\n%s", out)
	}

	for _, bad := range [][]string{{"evict", "-cache", root}, {"evict", "-kind", "indexes"}, {"evict", "-older-than", "soon"}, {"info", "-all"}, {"purge"}} {
		if _, err := cmd(bad...); err == nil || exitCode(err) != 2 {
			t.Errorf("cache %q = %v, want a usage error", bad, err)
		}
	}
}
