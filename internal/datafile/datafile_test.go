package datafile

import (
	"bytes"
	"compress/gzip"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, name string, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	b := []byte(content)
	if strings.HasSuffix(name, ".gz") {
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		_, err := zw.Write(b)
		require.NoError(t, err)
		require.NoError(t, zw.Close())
		b = buf.Bytes()
	}
	require.NoError(t, os.WriteFile(p, b, 0o644))
	return p
}

type line struct {
	N    int
	Text string
}

func TestEachLine(t *testing.T) {
	const content = "a\n\n  \nb\r\nc"
	want := []line{{1, "a\n"}, {4, "b\r\n"}, {5, "c"}}
	for _, tc := range []struct {
		name   string
		file   string
		reason string
	}{
		{"plain", "f.jsonl", "read as is"},
		{"gzip", "f.jsonl.gz", "a .gz name is gunzipped"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, tc.file, content)
			var got []line
			err := EachLine(p, func(n int, b []byte) error {
				got = append(got, line{n, string(b)})
				return nil
			})
			require.NoError(t, err, tc.reason)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("%s: lines (-want +got):\n%s", tc.reason, diff)
			}
			b, err := ReadAll(p)
			require.NoError(t, err, tc.reason)
			if diff := cmp.Diff(content, string(b)); diff != "" {
				t.Errorf("%s: ReadAll (-want +got):\n%s", tc.reason, diff)
			}
		})
	}
}

func TestEachLineStopsAtError(t *testing.T) {
	p := writeFile(t, "f.txt", "a\nb\nc\n")
	stop := errors.New("stop")
	var seen []int
	err := EachLine(p, func(n int, _ []byte) error {
		seen = append(seen, n)
		if n == 2 {
			return stop
		}
		return nil
	})
	if err != stop {
		t.Errorf("err = %v, want fn's error unchanged", err)
	}
	if diff := cmp.Diff([]int{1, 2}, seen); diff != "" {
		t.Errorf("lines seen (-want +got):\n%s", diff)
	}
}

func TestErrors(t *testing.T) {
	dir := t.TempDir()
	notGzip := filepath.Join(dir, "x.json.gz")
	require.NoError(t, os.WriteFile(notGzip, []byte("plain text"), 0o644))
	truncated := writeFile(t, "t.json.gz", strings.Repeat("x", 1000))
	b, err := os.ReadFile(truncated)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(truncated, b[:len(b)-6], 0o644))
	for _, tc := range []struct {
		name   string
		file   string
		want   string
		reason string
	}{
		{"missing", filepath.Join(dir, "absent.json"), "no such file", "the open error names the file"},
		{"not gzip", notGzip, notGzip + ": gzip: invalid header", "a .gz that is not gzip"},
		{"truncated", truncated, truncated + ":", "a gzip stream cut short"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadAll(tc.file)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: ReadAll err = %v, want %q", tc.reason, err, tc.want)
			}
			err = EachLine(tc.file, func(int, []byte) error { return nil })
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("%s: EachLine err = %v, want %q", tc.reason, err, tc.want)
			}
		})
	}
}

func TestFind(t *testing.T) {
	dir := t.TempDir()
	both := filepath.Join(dir, "both.json")
	gzOnly := filepath.Join(dir, "gz.json")
	for _, f := range []string{both, both + ".gz", gzOnly + ".gz"} {
		require.NoError(t, os.WriteFile(f, nil, 0o644))
	}
	for _, tc := range []struct {
		name, want, reason string
	}{
		{both, both, "the plain file wins over its .gz"},
		{gzOnly, gzOnly + ".gz", "the .gz when there is no plain file"},
	} {
		got, err := Find(tc.name)
		require.NoError(t, err, tc.reason)
		if got != tc.want {
			t.Errorf("%s: Find(%s) = %s, want %s", tc.reason, tc.name, got, tc.want)
		}
	}
	_, err := Find(filepath.Join(dir, "none.json"))
	if want := "none.json: not found (nor none.json.gz)"; err == nil || !strings.HasSuffix(err.Error(), want) {
		t.Errorf("Find of a missing file: %v, want ...%q", err, want)
	}
}
