package download

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// NpmEntry installs one file of an npm package at dst under pin: the npm
// client (npm, e.g. "npm") packs pkg ("name@version") into a temporary
// directory under tmpRoot, the tarball's entry (e.g. "package/lib/x.so") is
// streamed through Install, and the temporary directory is removed. Errors
// name the package, the tarball and the entry; the client's output is kept
// for the error only.
func NpmEntry(ctx context.Context, npm, pkg, entry, tmpRoot, dst string, pin Pin) error {
	tmp, err := os.MkdirTemp(tmpRoot, ".fetch-npm-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	if err := RunClient(ctx, tmp, npm, "pack", "--silent", pkg); err != nil {
		return err
	}
	tgzs, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgzs) != 1 {
		return fmt.Errorf("%s pack %s left %d .tgz files, want 1", npm, pkg, len(tgzs))
	}
	return TarGzEntry(tgzs[0], entry, dst, pin)
}

// TarGzEntry installs the regular file entry of the gzipped tarball tgz at
// dst under pin (Install: temp file, check, rename).
func TarGzEntry(tgz, entry, dst string, pin Pin) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", tgz, err)
	}
	tr := tar.NewReader(zr)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return fmt.Errorf("%s: no entry %s", tgz, entry)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
		if h.Name == entry && h.Typeflag == tar.TypeReg {
			if err := Install(tr, dst, pin); err != nil {
				return fmt.Errorf("%s from %s:%s: %w", filepath.Base(dst), tgz, entry, err)
			}
			return nil
		}
	}
}

// RunClient runs a package client (npm, mvn, pip) in dir; its output is
// kept for the error only (its last 800 bytes).
func RunClient(ctx context.Context, dir, name string, args ...string) error {
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w%s", name, strings.Join(args, " "), err, tail(out.String(), 800))
	}
	return nil
}

// tail is the last n bytes of a client's output, on a line of its own.
func tail(s string, n int) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return ""
	}
	if len(s) > n {
		s = "…" + s[len(s)-n:]
	}
	return "\n" + s
}
