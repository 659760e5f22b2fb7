// Package fetch puts benchmark data into a data directory with the data
// pack's layout (<dataDir>/<folder>/…): it downloads each file from its
// original source at a pinned commit and checks its pinned sha256, or
// copies it from an offline mirror (a directory with the pack's layout and
// its SHA256SUMS), checking the mirror's sums and, where the file is
// pinned, the pinned value too. Every file is written to a temporary file
// and renamed into place, so an interrupted fetch never leaves a partial
// file under the final name.
//
// Downloaded sources are stored as published (a large source the pack
// gzips arrives uncompressed); the loaders read either form.
package fetch

import (
	"bufio"
	"context"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/download"
)

// File is one pinned file.
type File struct {
	Path         string // where a download lands, relative to the data dir
	URL          string // source, relative to Config.BaseURL; "" = mirror only
	SHA256       string // of the source bytes
	Size         int64
	Mirror       string // path in a mirror when it differs from Path ("" = Path)
	MirrorSHA256 string
	MirrorSize   int64
}

// Folder is the dataset folder of the file.
func (f File) Folder() string {
	folder, _, _ := strings.Cut(f.Path, "/")
	return folder
}

func (f File) mirrorPath() string {
	if f.Mirror != "" {
		return f.Mirror
	}
	return f.Path
}

// Names lists the dataset folders of the registry, sorted.
func Names() []string {
	seen := map[string]bool{}
	var names []string
	for _, f := range files {
		if !seen[f.Folder()] {
			seen[f.Folder()] = true
			names = append(names, f.Folder())
		}
	}
	sort.Strings(names)
	return names
}

// Files returns the pinned files of a dataset folder.
func Files(name string) []File {
	var out []File
	for _, f := range files {
		if f.Folder() == name {
			out = append(out, f)
		}
	}
	return out
}

// Config tunes Download.
type Config struct {
	Client  *http.Client
	BaseURL string // default DefaultBaseURL
	// ArchiveBaseURL prefixes repository source archives for generated
	// corpora; default DefaultArchiveBaseURL.
	ArchiveBaseURL string
	Logf           func(format string, args ...any) // progress; nil = silent
}

// DefaultConfig downloads from DefaultBaseURL with http.DefaultClient.
func DefaultConfig() Config {
	return Config{Client: http.DefaultClient, BaseURL: DefaultBaseURL, ArchiveBaseURL: DefaultArchiveBaseURL}
}

// Report says what a fetch did, by data-dir-relative path.
type Report struct {
	Fetched    []string // written now
	Present    []string // already there with the right sha256
	MirrorOnly []string // no original source: use a mirror
}

// Download fetches every file of the named dataset that has a source, and
// builds its generated corpora from source archives (BuildCorpora). A file
// already present with its pinned sha256 is left alone.
func Download(ctx context.Context, name, dataDir string, cfg Config) (Report, error) {
	fs := Files(name)
	if len(fs) == 0 {
		return Report{}, fmt.Errorf("unknown dataset %q (known: %s)", name, strings.Join(Names(), ", "))
	}
	rep, err := downloadFiles(ctx, fs, dataDir, cfg)
	if err != nil {
		return rep, err
	}
	b, err := BuildCorpora(ctx, name, dataDir, cfg)
	rep.Fetched = append(rep.Fetched, b.Fetched...)
	rep.Present = append(rep.Present, b.Present...)
	return rep, err
}

func downloadFiles(ctx context.Context, fs []File, dataDir string, cfg Config) (Report, error) {
	var rep Report
	if cfg.BaseURL == "" {
		cfg.BaseURL = DefaultBaseURL
	}
	built := map[string]bool{}
	for _, c := range corpora {
		built[c.Path+".gz"] = true
	}
	for _, f := range fs {
		if f.URL == "" {
			if !built[f.Path] {
				rep.MirrorOnly = append(rep.MirrorOnly, f.Path)
			}
			continue
		}
		dst := filepath.Join(dataDir, filepath.FromSlash(f.Path))
		if ok, _ := hasSum(dst, f.SHA256); ok {
			rep.Present = append(rep.Present, f.Path)
			continue
		}
		url := cfg.BaseURL + f.URL
		logf(cfg, "fetch %s", url)
		if err := download.File(ctx, cfg.Client, url, dst, download.Pin{SHA256: f.SHA256, Size: f.Size}); err != nil {
			return rep, err
		}
		rep.Fetched = append(rep.Fetched, f.Path)
	}
	return rep, nil
}

func logf(cfg Config, format string, args ...any) {
	if cfg.Logf != nil {
		cfg.Logf(format, args...)
	}
}

// writeVerified streams r into dst through a temporary file, renamed into
// place only when the sha256 (and size, when > 0) match; from names the
// source in errors.
func writeVerified(r io.Reader, dst, sum string, size int64, from string) error {
	if err := download.Install(r, dst, download.Pin{SHA256: sum, Size: size}); err != nil {
		return fmt.Errorf("%s: %w", from, err)
	}
	return nil
}

// CopyMirror copies the named dataset folder from a mirror with the data
// pack's layout: every file of the folder listed in mirror/SHA256SUMS,
// checked against that sum and, when the registry pins the file, against
// the pinned sum as well. A file already present with the right sum is
// left alone.
func CopyMirror(name, mirror, dataDir string) (Report, error) {
	var rep Report
	sums, err := ReadSums(filepath.Join(mirror, "SHA256SUMS"))
	if err != nil {
		return rep, err
	}
	pinned := map[string]string{}
	for _, f := range files {
		pinned[f.mirrorPath()] = f.MirrorSHA256
	}
	var paths []string
	for p := range sums {
		if strings.HasPrefix(p, name+"/") {
			paths = append(paths, p)
		}
	}
	if len(paths) == 0 {
		return rep, fmt.Errorf("%s: no files of %q in SHA256SUMS", mirror, name)
	}
	sort.Strings(paths)
	for _, p := range paths {
		sum := sums[p]
		if pin, ok := pinned[p]; ok && pin != sum {
			return rep, fmt.Errorf("%s: SHA256SUMS lists %s as %s, but it is pinned as %s", mirror, p, sum, pin)
		}
		dst := filepath.Join(dataDir, filepath.FromSlash(p))
		if ok, _ := hasSum(dst, sum); ok {
			rep.Present = append(rep.Present, p)
			continue
		}
		src := filepath.Join(mirror, filepath.FromSlash(p))
		f, err := os.Open(src)
		if err != nil {
			return rep, err
		}
		err = writeVerified(f, dst, sum, 0, src)
		f.Close()
		if err != nil {
			return rep, err
		}
		rep.Fetched = append(rep.Fetched, p)
	}
	return rep, nil
}

// ReadSums reads a sha256sum-format file ("HEX  path" or "HEX *path").
func ReadSums(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		sum, p, ok := strings.Cut(l, " ")
		p = strings.TrimPrefix(strings.TrimSpace(p), "*")
		if !ok || len(sum) != 64 || p == "" {
			return nil, fileline.Errorf(file, line, "want \"SHA256  path\"")
		}
		if _, err := hex.DecodeString(sum); err != nil {
			return nil, fileline.Errorf(file, line, "%q is not hex", sum)
		}
		if c := path.Clean(p); c != p || strings.HasPrefix(c, "../") || path.IsAbs(c) {
			return nil, fileline.Errorf(file, line, "path %q is not a clean relative path", p)
		}
		sums[p] = strings.ToLower(sum)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return sums, nil
}

// Entry is one file found in a data directory.
type Entry struct {
	Path   string
	Size   int64
	SHA256 string
	// Status: "ok" (matches its pin, as downloaded or as mirrored; a
	// generated corpus by its content digest), "MISMATCH" (pinned,
	// differs) or "unpinned".
	Status string
}

// List walks dataDir (skipping temporary files) and checks every file
// against the registry, sorted by path.
func List(dataDir string) ([]Entry, error) {
	pins := map[string][]string{}
	for _, f := range files {
		if f.URL != "" {
			pins[f.Path] = append(pins[f.Path], f.SHA256)
		}
		pins[f.mirrorPath()] = append(pins[f.mirrorPath()], f.MirrorSHA256)
	}
	built := map[string]string{} // generated corpora: checked by content digest
	for _, c := range corpora {
		built[c.Path] = c.Digest
	}
	var out []Entry
	err := filepath.WalkDir(dataDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || strings.Contains(d.Name(), download.TempMarker) {
			return nil
		}
		rel, err := filepath.Rel(dataDir, p)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		sum, n, err := download.FileSum(p)
		if err != nil {
			return err
		}
		e := Entry{Path: rel, Size: n, SHA256: sum, Status: "unpinned"}
		if digest, ok := built[rel]; ok {
			e.Status = "MISMATCH"
			if files, err := readCorpusFile(p); err == nil && ContentDigest(files) == digest {
				e.Status = "ok"
			}
		} else if want, ok := pins[rel]; ok {
			e.Status = "MISMATCH"
			for _, w := range want {
				if w == sum {
					e.Status = "ok"
				}
			}
		}
		out = append(out, e)
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("data directory %s does not exist (run: retrievalbench data fetch)", dataDir)
	}
	return out, err
}

func hasSum(p, sum string) (bool, error) {
	got, _, err := download.FileSum(p)
	return err == nil && got == sum, err
}
