package fetch

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/retrievalbench/retrievalbench/internal/datafile"
	"github.com/retrievalbench/retrievalbench/internal/download"
)

// DefaultArchiveBaseURL prefixes "owner/repo/archive/COMMIT.tar.gz", the
// source archive of a repository at a commit.
const DefaultArchiveBaseURL = "https://github.com/"

// RepoCorpus is a generated corpus the pack builds from a repository
// snapshot: every text file of the commit as one {path, text} JSON line.
// A source archive's bytes are not stable across time, so the pin is
// Digest, a hash of the content (see ContentDigest), not of the archive.
type RepoCorpus struct {
	Path   string // "swe-qa/corpora/flask.jsonl"
	Repo   string // "pallets/flask"
	Pinned string // commit the benchmark pins
	Commit string // commit the corpus is built from (differs on drift)
	Files  int
	Digest string
}

// corpora pins the SWE-QA corpora of the data pack (swe-qa/PROVENANCE.md;
// digests computed from the pack's files).
var corpora = []RepoCorpus{
	{"swe-qa/corpora/astropy.jsonl", "astropy/astropy", "0a041d3", "0a041d38fbd0014298d4cf340d9f891c4522093f", 1398, "cbb23bd189da41077db8bbc09c74cfc8b69e3f556aff579b434f83c8eceb5514"},
	{"swe-qa/corpora/conan.jsonl", "conan-io/conan", "52f43d9", "814cbf12cc56cbc4a87405b5945a4f16968f9555", 1028, "ef1f76a66fbb87cfc2b8fb3e3dedf9c4e8b4bb217169d161a2a35d6116c28b99"},
	{"swe-qa/corpora/flask.jsonl", "pallets/flask", "85c5d93", "85c5d93cbd049c4bd0679c36fd1ddcae8c37b642", 191, "ee6b2aeec903d8b3897fb62b90ab15854aa6689c92528022754013e0822a7405"},
	{"swe-qa/corpora/pylint.jsonl", "pylint-dev/pylint", "44740e5", "44740e5e5cdd2b80321a4f0ed4254213d058b9f6", 3406, "7c3101c895f41240daeeb73b87b0a137ff8e386f2fec625a42ab104fe3879f74"},
	{"swe-qa/corpora/pytest.jsonl", "pytest-dev/pytest", "5989efe", "5989efe3efec31a9d14f550d89903b6311dfc828", 577, "9532aa6a41861d09039ff6807fa1800836a4a2a940d57abd4a7eeecd9d729040"},
	{"swe-qa/corpora/reflex.jsonl", "reflex-dev/reflex", "fe0f946", "fe0f946dc0c240c6c1e513318c21db407e191c78", 435, "0e6afa252a7f5f7574d337be0ebd5f29ca2e5670006829fdf6cba625fb75389c"},
	{"swe-qa/corpora/requests.jsonl", "psf/requests", "46e939b", "46e939b5525d9c72b677340985582b04b128478a", 79, "6459263a7ee2c43d7993f90930fa73981cc45c82b4904f8b312ea8c8fad7d505"},
	{"swe-qa/corpora/sphinx.jsonl", "sphinx-doc/sphinx", "6c9e320", "6c9e3209c4ebc81c7c09f6a30eeaa4651f32f461", 1339, "278576219e673b4068d15cf97197eeca61fab303e20baff859ab804f8391aed4"},
	{"swe-qa/corpora/sqlfluff.jsonl", "sqlfluff/sqlfluff", "db9801b", "db9801b7eb7fd014e765117f63ee1b0675fa9f87", 2663, "f5f2cd5551a3d2ecd85abebfeed2d9e130015a7014e62e5a0e46b40eb501b1b5"},
	{"swe-qa/corpora/streamlink.jsonl", "streamlink/streamlink", "ab1f365", "ab1f36560005253ca6a290a614730bf18a29a7f9", 568, "e241262b67d91d50af22799e7460eef4c92a287f04e7411159ebf01127e9816b"},
	{"swe-qa/corpora/sympy.jsonl", "sympy/sympy", "3c817ed", "3c817ed8ab551d71e36907ce869afe5e4ca789ff", 1935, "943316bfab015b25bbe1538c298c1b2fda1674b91e60531beb43427002fef03d"},
	{"swe-qa/corpora/xarray.jsonl", "pydata/xarray", "40119bf", "40119bf35c53fc222934894d842cfc07b2e264bf", 367, "7571d586ca4246eb9172c3d4c4172a0b05c49764ad559928df841cb2ac9bc705"},
}

// Corpora returns the generated corpora of a dataset folder.
func Corpora(name string) []RepoCorpus {
	var out []RepoCorpus
	for _, c := range corpora {
		if strings.HasPrefix(c.Path, name+"/") {
			out = append(out, c)
		}
	}
	return out
}

// TextFile is one file of a repository corpus.
type TextFile struct {
	Path string `json:"path"`
	Text string `json:"text"`
}

// ContentDigest hashes files in path (byte) order, each path and text
// length-prefixed (8-byte little-endian): independent of JSON formatting
// and compression, so a corpus built here and the pack's copy compare.
func ContentDigest(files []TextFile) string {
	sorted := append([]TextFile(nil), files...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Path < sorted[j].Path })
	h := sha256.New()
	var n [8]byte
	for _, f := range sorted {
		for _, s := range []string{f.Path, f.Text} {
			binary.LittleEndian.PutUint64(n[:], uint64(len(s)))
			h.Write(n[:])
			io.WriteString(h, s)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// corpusExts and maxCorpusFile are the pack's inclusion rule.
var corpusExts = []string{".py", ".pyi", ".md", ".rst", ".txt", ".toml", ".cfg", ".ini", ".yaml", ".yml", ".json"}

const maxCorpusFile = 512 << 10

// included applies the inclusion rule to one regular file.
func included(p string, b []byte) bool {
	lower := strings.ToLower(p)
	ok := false
	for _, e := range corpusExts {
		ok = ok || strings.HasSuffix(lower, e)
	}
	return ok && len(b) < maxCorpusFile && bytes.IndexByte(b, 0) < 0 && utf8.Valid(b)
}

// ReadArchiveCorpus applies the inclusion rule to a repository source
// archive (.tar.gz with one top-level directory, as forges serve them):
// regular files only (symlinks and submodules are not files), sorted by
// path.
func ReadArchiveCorpus(r io.Reader) ([]TextFile, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	tr := tar.NewReader(gz)
	var out []TextFile
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		_, rel, ok := strings.Cut(h.Name, "/")
		if !ok || rel == "" {
			continue // a file beside the top-level directory (none in forge archives)
		}
		if c := path.Clean(rel); c != rel || c == ".." || strings.HasPrefix(c, "../") || path.IsAbs(c) || strings.ContainsRune(c, 0) {
			return nil, fmt.Errorf("archive entry %q is not a clean relative path", h.Name)
		}
		if h.Size >= maxCorpusFile {
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", h.Name, err)
		}
		if included(rel, b) {
			out = append(out, TextFile{Path: rel, Text: string(b)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out, nil
}

// BuildCorpora builds the named dataset's generated corpora from source
// archives: download, apply the inclusion rule, check the file count and
// content digest, write {path, text} JSON Lines (plus "<name>.commit" with
// the commit used, so loaders can flag drift without PROVENANCE.md). A
// corpus present with the right digest is left alone.
func BuildCorpora(ctx context.Context, name, dataDir string, cfg Config) (Report, error) {
	var rep Report
	base := cfg.ArchiveBaseURL
	if base == "" {
		base = DefaultArchiveBaseURL
	}
	for _, c := range Corpora(name) {
		dst := filepath.Join(dataDir, filepath.FromSlash(c.Path))
		if files, err := readCorpusFile(dst); err == nil && ContentDigest(files) == c.Digest {
			rep.Present = append(rep.Present, c.Path)
			continue
		}
		url := base + c.Repo + "/archive/" + c.Commit + ".tar.gz"
		logf(cfg, "build %s from %s", c.Path, url)
		files, err := fetchArchiveCorpus(ctx, cfg.Client, url)
		if err != nil {
			return rep, err
		}
		if len(files) != c.Files || ContentDigest(files) != c.Digest {
			return rep, fmt.Errorf("%s: built %d files with digest %s, want %d files with digest %s", url, len(files), ContentDigest(files), c.Files, c.Digest)
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		for _, f := range files {
			if err := enc.Encode(f); err != nil {
				return rep, err
			}
		}
		sum := sha256.Sum256(buf.Bytes())
		if err := writeVerified(&buf, dst, hex.EncodeToString(sum[:]), 0, url); err != nil {
			return rep, err
		}
		commit := []byte(c.Commit + "\n")
		csum := sha256.Sum256(commit)
		if err := writeVerified(bytes.NewReader(commit), strings.TrimSuffix(dst, ".jsonl")+".commit", hex.EncodeToString(csum[:]), 0, url); err != nil {
			return rep, err
		}
		rep.Fetched = append(rep.Fetched, c.Path)
	}
	return rep, nil
}

func fetchArchiveCorpus(ctx context.Context, client *http.Client, url string) ([]TextFile, error) {
	body, err := download.Get(ctx, client, url)
	if err != nil {
		return nil, err
	}
	defer body.Close()
	files, err := ReadArchiveCorpus(body)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", url, err)
	}
	return files, nil
}

// readCorpusFile reads a {path, text} JSON Lines corpus (gzip for .gz).
func readCorpusFile(p string) ([]TextFile, error) {
	r, err := datafile.Open(p)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	dec := json.NewDecoder(r)
	var out []TextFile
	for {
		var t TextFile
		if err := dec.Decode(&t); err == io.EOF {
			return out, nil
		} else if err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		out = append(out, t)
	}
}
