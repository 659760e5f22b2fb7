// Package download fetches files over HTTP and installs bytes under a
// pinned SHA-256: the one place where the dataset fetcher, the model
// fetcher and the RepoQA release fetcher get a URL, check what arrived and
// write it. A file is streamed to a temporary file beside its destination
// and renamed into place only once its size and SHA-256 match, so an
// interrupted or corrupt download never leaves a file under the final name.
package download

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
)

// ErrCorrupt is wrapped by every error about bytes that do not match their
// pin (size or SHA-256), so callers can tell "wrong bytes" from "no bytes".
var ErrCorrupt = errors.New("corrupt")

// TempMarker is in the name of every temporary file Install writes
// (".NAME.tmp-RANDOM"), so directory walkers can pass over leftovers of a
// killed process.
const TempMarker = ".tmp-"

// Pin is what a file must be.
type Pin struct {
	SHA256 string      // lowercase hex
	Size   int64       // in bytes; 0 = not pinned
	Mode   os.FileMode // of the installed file; 0 = 0644
}

// Get sends a GET for url with client (nil: http.DefaultClient) and returns
// the body of a 200 response; any other status is an error naming the URL.
// The caller closes the body.
func Get(ctx context.Context, client *http.Client, url string) (io.ReadCloser, error) {
	if client == nil {
		client = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp.Body, nil
}

// File downloads url to dst under pin (Get, then Install). A failure
// leaves dst as it was.
func File(ctx context.Context, client *http.Client, url, dst string, pin Pin) error {
	body, err := Get(ctx, client, url)
	if err != nil {
		return err
	}
	defer body.Close()
	return Install(body, dst, pin)
}

// Install streams r into dst through a temporary file in dst's directory
// (created when missing) and renames it over dst only when the bytes match
// pin; otherwise the temporary file is removed and dst is left as it was.
// With a pinned size, reading stops one byte past it, so an endless or
// oversized source fails fast. Size and SHA-256 mismatches wrap ErrCorrupt.
func Install(r io.Reader, dst string, pin Pin) error {
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(dst), "."+filepath.Base(dst)+TempMarker+"*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if pin.Size > 0 {
		r = io.LimitReader(r, pin.Size+1)
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(tmp, h), r)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := Check(n, hex.EncodeToString(h.Sum(nil)), pin); err != nil {
		return err
	}
	mode := pin.Mode
	if mode == 0 {
		mode = 0o644
	}
	if err := os.Chmod(tmp.Name(), mode); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), dst)
}

// Check compares the size and SHA-256 of some bytes with pin; a mismatch
// wraps ErrCorrupt and says what differs ("truncated: 5 bytes, want 21",
// "sha256 X, want Y").
func Check(size int64, sum string, pin Pin) error {
	switch {
	case pin.Size > 0 && size < pin.Size:
		return fmt.Errorf("%w: truncated: %d bytes, want %d", ErrCorrupt, size, pin.Size)
	case pin.Size > 0 && size > pin.Size:
		return fmt.Errorf("%w: %d bytes, want %d", ErrCorrupt, size, pin.Size)
	case sum != pin.SHA256:
		return fmt.Errorf("%w: sha256 %s, want %s", ErrCorrupt, sum, pin.SHA256)
	}
	return nil
}

// FileSum returns the SHA-256 (lowercase hex) and size of the file at path.
func FileSum(path string) (sum string, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return "", 0, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return "", 0, fmt.Errorf("%s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), n, nil
}
