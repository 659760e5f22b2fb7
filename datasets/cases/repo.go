package cases

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
)

// MaxFileBytes skips larger files when building a repository corpus.
const MaxFileBytes = 1 << 20

// CommitStatus is how a repository's corpus stands to the commit its
// manifest pins.
type CommitStatus int

const (
	// CommitMatches: the corpus is at the pinned commit.
	CommitMatches CommitStatus = iota
	// CommitUnverifiable: the corpus carries no git metadata to check.
	CommitUnverifiable
	// CommitDrift: the corpus is at another commit than the pinned one.
	CommitDrift
)

// CommitNote is what LoadRepo found about a repository's commit: its
// status, and the sentence a report shows ("" when the commit matches).
// Callers decide on Status, never on Text.
type CommitNote struct {
	Status CommitStatus
	Text   string
}

// LoadRepo builds the corpus of one manifest repository: every UTF-8 text
// file under MaxFileBytes (hidden directories such as .git skipped), as
// whole files with ID = Path, except Markdown and reStructuredText files,
// which are cut into sections (see sectionDocs). The note reports commit
// drift, or that the commit could not be verified; its Text is empty when
// the commit matches.
func LoadRepo(name string, spec RepoSpec, baseDir string) (*corpus.Corpus, CommitNote, error) {
	c := &corpus.Corpus{ID: name, Commit: spec.Commit}
	var actual string
	var err error
	switch {
	case spec.Datapack != "":
		actual, err = walkDatapack(spec, func(p string, b []byte) { addFile(c, p, b) })
	case spec.Path != "":
		root := spec.Path
		if !filepath.IsAbs(root) {
			root = filepath.Join(baseDir, root)
		}
		actual = gitHead(root)
		err = walkDir(root, func(p string, b []byte) { addFile(c, p, b) })
	default:
		file := spec.Archive
		if !filepath.IsAbs(file) {
			file = filepath.Join(baseDir, file)
		}
		actual, err = walkArchive(file, func(p string, b []byte) { addFile(c, p, b) })
	}
	if err != nil {
		return nil, CommitNote{}, err
	}
	if len(c.Docs) == 0 {
		return nil, CommitNote{}, fmt.Errorf("no text files")
	}
	sort.SliceStable(c.Docs, func(i, j int) bool { return c.Docs[i].Path < c.Docs[j].Path })
	var note CommitNote
	switch {
	case actual == "":
		note = CommitNote{CommitUnverifiable, fmt.Sprintf("%s: commit not verifiable (no git metadata); manifest says %q", name, spec.Commit)}
	case !sameCommit(actual, spec.Commit):
		note = CommitNote{CommitDrift, fmt.Sprintf("commit drift: %s corpus is at %s, manifest pins %q", name, actual, spec.Commit)}
		c.Commit = actual
	default:
		if len(actual) > len(spec.Commit) {
			c.Commit = actual // the longer spelling of the same commit
		}
	}
	return c, note, nil
}

func addFile(c *corpus.Corpus, p string, b []byte) {
	if len(b) > MaxFileBytes || bytes.IndexByte(b, 0) >= 0 || !utf8.Valid(b) {
		return
	}
	if isDocFile(p) {
		c.Docs = append(c.Docs, sectionDocs(p, string(b))...)
		return
	}
	c.Docs = append(c.Docs, corpus.Doc{ID: p, Path: p, Kind: "file", Language: language(p), Text: string(b)})
}

// language is the chunker's language of a file, "" for prose and config.
func language(p string) string { return codetext.LanguageOf(p) }

func hidden(name string) bool { return strings.HasPrefix(name, ".") && name != "." }

func walkDir(root string, fn func(p string, b []byte)) error {
	// A root that is a symbolic link (a checkout linked into place) is
	// walked as the directory it points at: WalkDir does not follow it
	// and would find no files.
	if r, err := filepath.EvalSymlinks(root); err == nil {
		root = r
	}
	return filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != root && hidden(d.Name()) {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || hidden(d.Name()) {
			return nil
		}
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		fn(filepath.ToSlash(rel), b)
		return nil
	})
}

// gitHead returns the commit checked out in root, or "" when root is not a
// git checkout readable without git.
func gitHead(root string) string {
	gitDir := filepath.Join(root, ".git")
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return ""
	}
	h := strings.TrimSpace(string(head))
	ref, ok := strings.CutPrefix(h, "ref: ")
	if !ok {
		return h
	}
	if b, err := os.ReadFile(filepath.Join(gitDir, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(b))
	}
	packed, err := os.ReadFile(filepath.Join(gitDir, "packed-refs"))
	if err != nil {
		return ""
	}
	for _, l := range strings.Split(string(packed), "\n") {
		if f := strings.Fields(l); len(f) == 2 && f[1] == ref {
			return f[0]
		}
	}
	return ""
}

// walkArchive reads a tar(.gz) or zip archive. A single top-level
// directory (as in git archive --prefix and forge downloads) is stripped.
// It returns the commit git archive records (the pax global header comment
// of a tar, the comment of a zip), or "".
func walkArchive(file string, fn func(p string, b []byte)) (string, error) {
	type entry struct {
		name string
		data []byte
	}
	var entries []entry
	var commit string
	lower := strings.ToLower(file)
	switch {
	case strings.HasSuffix(lower, ".zip"):
		z, err := zip.OpenReader(file)
		if err != nil {
			return "", err
		}
		defer z.Close()
		commit = strings.TrimSpace(z.Comment)
		for _, f := range z.File {
			if !f.Mode().IsRegular() {
				continue // directories, and symlinks (their "content" is the link target)
			}
			r, err := f.Open()
			if err != nil {
				return "", fmt.Errorf("%s: %s: %w", file, f.Name, err)
			}
			b, err := io.ReadAll(io.LimitReader(r, MaxFileBytes+1))
			r.Close()
			if err != nil {
				return "", fmt.Errorf("%s: %s: %w", file, f.Name, err)
			}
			entries = append(entries, entry{f.Name, b})
		}
	case strings.HasSuffix(lower, ".tar.gz"), strings.HasSuffix(lower, ".tgz"), strings.HasSuffix(lower, ".tar"):
		f, err := os.Open(file)
		if err != nil {
			return "", err
		}
		defer f.Close()
		var r io.Reader = f
		if !strings.HasSuffix(lower, ".tar") {
			gz, err := gzip.NewReader(f)
			if err != nil {
				return "", fmt.Errorf("%s: %w", file, err)
			}
			r = gz
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				return "", fmt.Errorf("%s: %w", file, err)
			}
			if c := h.PAXRecords["comment"]; c != "" && commit == "" {
				commit = strings.TrimSpace(c)
			}
			if h.Typeflag != tar.TypeReg {
				continue
			}
			b, err := io.ReadAll(io.LimitReader(tr, MaxFileBytes+1))
			if err != nil {
				return "", fmt.Errorf("%s: %s: %w", file, h.Name, err)
			}
			entries = append(entries, entry{h.Name, b})
		}
	default:
		return "", fmt.Errorf("%s: unknown archive type (want .tar.gz, .tgz, .tar or .zip)", file)
	}
	prefix := ""
	for i, e := range entries {
		top, _, ok := strings.Cut(strings.TrimPrefix(e.name, "./"), "/")
		if !ok || (i > 0 && top+"/" != prefix) {
			prefix = ""
			break
		}
		prefix = top + "/"
	}
	for _, e := range entries {
		p := strings.TrimPrefix(strings.TrimPrefix(e.name, "./"), prefix)
		clean := path.Clean(p)
		if clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
			return "", fmt.Errorf("%s: entry %q escapes the archive root", file, e.name)
		}
		if strings.ContainsRune(clean, 0) {
			return "", fmt.Errorf("%s: entry %q has a NUL byte in its name", file, e.name)
		}
		skip := false
		for _, part := range strings.Split(clean, "/") {
			skip = skip || hidden(part)
		}
		if !skip {
			fn(clean, e.data)
		}
	}
	return commit, nil
}
