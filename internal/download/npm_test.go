package download

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeTgz(t *testing.T, files map[string]string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "pkg.tgz")
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	zw := gzip.NewWriter(f)
	tw := tar.NewWriter(zw)
	for _, name := range []string{"package/README.md", "package/lib/x.bin"} {
		body, ok := files[name]
		if !ok {
			continue
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []interface{ Close() error }{tw, zw, f} {
		if err := c.Close(); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestTarGzEntry(t *testing.T) {
	tgz := writeTgz(t, map[string]string{"package/README.md": "readme", "package/lib/x.bin": "payload"})
	dst := filepath.Join(t.TempDir(), "x.bin")

	err := TarGzEntry(tgz, "package/lib/missing", dst, Pin{SHA256: sum("payload")})
	if err == nil || !strings.Contains(err.Error(), "no entry package/lib/missing") {
		t.Fatalf("missing entry: err = %v, want one naming the entry", err)
	}
	err = TarGzEntry(tgz, "package/lib/x.bin", dst, Pin{SHA256: sum("other")})
	if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "x.bin from "+tgz+":package/lib/x.bin") {
		t.Fatalf("wrong bytes: err = %v, want ErrCorrupt naming the tarball and entry", err)
	}
	if _, statErr := os.Stat(dst); !os.IsNotExist(statErr) {
		t.Fatalf("wrong bytes left %s behind (stat: %v)", dst, statErr)
	}
	if err := TarGzEntry(tgz, "package/lib/x.bin", dst, Pin{SHA256: sum("payload"), Size: 7}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(dst); string(got) != "payload" {
		t.Fatalf("installed %q, want %q", got, "payload")
	}
}

func TestNpmEntryClientFails(t *testing.T) {
	dst := filepath.Join(t.TempDir(), "x.bin")
	// "false" stands for an npm that cannot pack: the error names the client
	// command and the package, and nothing is installed.
	err := NpmEntry(context.Background(), "false", "pkg@1.0.0", "package/x", t.TempDir(), dst, Pin{})
	if err == nil || !strings.Contains(err.Error(), "false pack --silent pkg@1.0.0") {
		t.Fatalf("err = %v, want one naming the client command", err)
	}
	if _, statErr := os.Stat(dst); !os.IsNotExist(statErr) {
		t.Fatalf("failed pack left %s behind", dst)
	}
}
