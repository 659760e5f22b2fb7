package cache

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// now is the reference of every test time stamp: real now, because the
// symbolic link of buildCache gets the real clock.
var now = time.Now()

// file creates root/rel with n bytes, every time stamp daysAgo days before
// now.
func file(t *testing.T, root, rel string, n int, daysAgo int) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(rel))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, make([]byte, n), 0o644); err != nil {
		t.Fatal(err)
	}
	ts := now.Add(-time.Duration(daysAgo) * 24 * time.Hour)
	if err := os.Chtimes(p, ts, ts); err != nil {
		t.Fatal(err)
	}
	// Directories take the same age so that only files decide.
	for d := filepath.Dir(p); d != root; d = filepath.Dir(d) {
		if err := os.Chtimes(d, ts, ts); err != nil {
			t.Fatal(err)
		}
	}
}

// buildCache makes a cache of every kind, and a file outside it that a
// symbolic link inside points to.
func buildCache(t *testing.T) (root, outside string) {
	dir := t.TempDir()
	root = filepath.Join(dir, "cache")
	outside = filepath.Join(dir, "models-pack", "model.onnx")
	file(t, dir, "models-pack/model.onnx", 5000, 1)
	file(t, root, "onnxruntime/1.22.0/libonnxruntime.so.1", 400, 60)
	file(t, root, "models/minilm-l6-q/model.onnx", 300, 2)
	file(t, root, "models/minilm-l6-q/tokenizer.json", 30, 40)
	file(t, root, "bm25/aaaa-1111/index.db", 100, 45)
	file(t, root, "bm25/bbbb-2222/index.db", 200, 3)
	file(t, root, "dense/minilm-l6-q/vectors.db", 1000, 35)
	file(t, root, "peers/codira/index/x.bin", 70, 50)
	file(t, root, "peers/context7/package.json", 7, 5)
	file(t, root, "data/swe-qa/a.jsonl", 11, 90)
	file(t, root, "repoqa/repoqa-2024-06-23.json", 13, 90)
	file(t, root, "stray.txt", 3, 100)
	file(t, root, ".evict-123/bm25/old/index.db", 9, 1)
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, "peers-linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Dir(outside), filepath.Join(root, "external")); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(root, "models", "linked"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(root, "models", "linked", "model.onnx")); err != nil {
		t.Fatal(err)
	}
	return root, outside
}

type row struct {
	Kind, Path   string
	Bytes        int64
	Files, DaysU int // days since last use
}

func rows(es []Entry) []row {
	var out []row
	for _, e := range es {
		out = append(out, row{e.Kind, e.Path, e.Bytes, e.Files, int(now.Sub(e.LastUse()).Hours() / 24)})
	}
	return out
}

func TestScan(t *testing.T) {
	root, _ := buildCache(t)
	es, err := Scan(root)
	if err != nil {
		t.Fatal(err)
	}
	want := []row{
		{KindONNXRuntime, "onnxruntime/1.22.0", 400, 1, 60},
		{KindModels, "models/linked", 0, 0, 0}, // the link is not followed; its own time stamp is real "now"
		{KindModels, "models/minilm-l6-q", 330, 2, 2},
		{KindBM25, "bm25/aaaa-1111", 100, 1, 45},
		{KindBM25, "bm25/bbbb-2222", 200, 1, 3},
		{KindVectors, "dense/minilm-l6-q", 1000, 1, 35},
		{KindExternal, "external", 0, 0, 0}, // a linked input: the link, not what it points to
		{KindPeers, "peers/codira", 70, 1, 50},
		{KindPeers, "peers/context7", 7, 1, 5},
		{KindData, "data/swe-qa", 11, 1, 90},
		{KindData, "repoqa/repoqa-2024-06-23.json", 13, 1, 90},
		{KindOther, "peers-linked", 0, 0, 0},
		{KindOther, "stray.txt", 3, 1, 100},
		{KindTrash, ".evict-123", 9, 1, 1},
	}
	if diff := cmp.Diff(want, rows(es)); diff != "" {
		t.Errorf("Scan (-want +got):\n%s", diff)
	}
	if es, err := Scan(filepath.Join(root, "absent")); err != nil || len(es) != 0 {
		t.Errorf("Scan of a missing root = %v, %v; want an empty cache", es, err)
	}
}

func TestSelectAndEvict(t *testing.T) {
	tests := []struct {
		name string
		sel  Selector
		want []string // evicted paths
	}{
		{"kind", Selector{Kinds: []string{KindBM25}}, []string{"bm25/aaaa-1111", "bm25/bbbb-2222"}},
		{"age", Selector{OlderThan: 30 * 24 * time.Hour}, []string{"onnxruntime/1.22.0", "bm25/aaaa-1111", "dense/minilm-l6-q", "peers/codira", "data/swe-qa", "repoqa/repoqa-2024-06-23.json", "stray.txt"}},
		{"kind and age", Selector{Kinds: []string{KindBM25, KindVectors}, OlderThan: 40 * 24 * time.Hour}, []string{"bm25/aaaa-1111"}},
		{"trash", Selector{Kinds: []string{KindTrash}}, []string{".evict-123"}},
		{"all", Selector{All: true}, []string{"onnxruntime/1.22.0", "models/linked", "models/minilm-l6-q", "bm25/aaaa-1111", "bm25/bbbb-2222", "dense/minilm-l6-q", "external", "peers/codira", "peers/context7", "data/swe-qa", "repoqa/repoqa-2024-06-23.json", "peers-linked", "stray.txt", ".evict-123"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root, outside := buildCache(t)
			before, err := Scan(root)
			if err != nil {
				t.Fatal(err)
			}
			tt.sel.Now = now
			if err := tt.sel.Validate(); err != nil {
				t.Fatal(err)
			}
			chosen := tt.sel.Select(before)
			var paths []string
			var wantFreed int64
			for _, e := range chosen {
				paths = append(paths, e.Path)
				wantFreed += e.Bytes
			}
			if diff := cmp.Diff(tt.want, paths); diff != "" {
				t.Fatalf("Select (-want +got):\n%s", diff)
			}
			freed, err := Evict(root, chosen)
			if err != nil {
				t.Fatal(err)
			}
			if freed != wantFreed {
				t.Errorf("freed %d bytes, want %d", freed, wantFreed)
			}
			after, err := Scan(root)
			if err != nil {
				t.Fatal(err)
			}
			// Exactly the chosen entries are gone, no trash is left, and
			// the symlink's target outside the cache survives.
			var left []string
			for _, e := range before {
				if !contains(tt.want, e.Path) {
					left = append(left, e.Path)
				}
			}
			var got []string
			for _, e := range after {
				got = append(got, e.Path)
			}
			if diff := cmp.Diff(left, got); diff != "" {
				t.Errorf("left after eviction (-want +got):\n%s", diff)
			}
			if _, err := os.Stat(outside); err != nil {
				t.Errorf("eviction followed a symbolic link out of the cache: %v", err)
			}
		})
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

func TestSelectorValidate(t *testing.T) {
	for _, tt := range []struct {
		sel  Selector
		want string
	}{
		{Selector{}, "nothing selected"},
		{Selector{Kinds: []string{"indexes"}}, `unknown cache kind "indexes"`},
		{Selector{OlderThan: -time.Hour}, "negative age"},
	} {
		if err := tt.sel.Validate(); err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Validate(%+v) = %v, want %q", tt.sel, err, tt.want)
		}
	}
}

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"30d": 30 * 24 * time.Hour, "2w": 14 * 24 * time.Hour, "12h": 12 * time.Hour, "1.5d": 36 * time.Hour} {
		if got, err := ParseAge(in); err != nil || got != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "d", "-3d", "30 days", "-1h"} {
		if _, err := ParseAge(in); err == nil {
			t.Errorf("ParseAge(%q) accepted a bad age", in)
		}
	}
}
