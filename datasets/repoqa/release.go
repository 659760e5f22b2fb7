package repoqa

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// Validation errors; every error that wraps one of them names the file and
// the place in it.
var (
	ErrMissingField    = errors.New("missing field")
	ErrNeedleRange     = errors.New("needle bytes outside the file")
	ErrUnknownLanguage = errors.New("unknown language")
	ErrDuplicateRepo   = errors.New("duplicate repo")
	ErrUnknownPath     = errors.New("needle path not in content")
)

// Release is a parsed file in the RepoQA release schema:
//
//	{LANG: [{repo, commit_sha, entrypoint_path, topic, content{path: source},
//	         dependency, functions, needles[{name, path, start_line, end_line,
//	         start_byte, end_byte, description, …}]}]}
//
// Line and byte fields keep the release's meaning (from RepoQA's
// function_analysis.py): start_line is the 0-based row of the first line,
// end_line the 0-based row after the last line, and start_byte/end_byte are
// tree-sitter byte offsets into the UTF-8 encoded file.
type Release struct {
	File  string
	Repos []Repo // languages in sorted order, repos in file order
}

// Repo is one repository of the release.
type Repo struct {
	Language       string
	Repo           string
	CommitSHA      string
	EntrypointPath string
	Topic          string
	Content        map[string]string
	Needles        []Needle
}

// Needle is one described function of a repository.
type Needle struct {
	Name        string
	Path        string
	Description string
	StartLine   int
	EndLine     int
	StartByte   int
	EndByte     int
}

type rawRepo struct {
	Repo           *string            `json:"repo"`
	CommitSHA      *string            `json:"commit_sha"`
	EntrypointPath *string            `json:"entrypoint_path"`
	Topic          string             `json:"topic"`
	Content        *map[string]string `json:"content"`
	Needles        []rawNeedle        `json:"needles"`
}

type rawNeedle struct {
	Name        *string `json:"name"`
	Path        *string `json:"path"`
	Description *string `json:"description"`
	StartLine   *int    `json:"start_line"`
	EndLine     *int    `json:"end_line"`
	StartByte   *int    `json:"start_byte"`
	EndByte     *int    `json:"end_byte"`
}

// ReadRelease reads and validates a release file (.json or .json.gz). The
// dependency and functions maps are not kept: tasks need only the content
// and the needles.
func ReadRelease(file string) (*Release, error) {
	data, err := readMaybeGzip(file)
	if err != nil {
		return nil, err
	}
	return parseRelease(file, data)
}

func readMaybeGzip(file string) ([]byte, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("reading RepoQA release: %w", err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var r io.Reader = br
	if magic, _ := br.Peek(2); len(magic) == 2 && magic[0] == 0x1f && magic[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		defer zr.Close()
		r = zr
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	return data, nil
}

func parseRelease(file string, data []byte) (*Release, error) {
	var top map[string][]rawRepo
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, datafile.JSONError(file, data, err)
	}
	if len(top) == 0 {
		return nil, fmt.Errorf("%s: no language lists (want {\"python\": [...], …})", file)
	}
	langs := make([]string, 0, len(top))
	for l := range top {
		langs = append(langs, l)
	}
	slices.Sort(langs)
	rel := &Release{File: file}
	seen := map[string]string{}
	for _, lang := range langs {
		if !knownLanguage(lang) {
			return nil, fmt.Errorf("%s: %q: %w (valid: %s)", file, lang, ErrUnknownLanguage, strings.Join(Languages(), ", "))
		}
		for i, rr := range top[lang] {
			where := fmt.Sprintf("%s: %s[%d]", file, lang, i)
			r, err := rr.validate(where, lang)
			if err != nil {
				return nil, err
			}
			if prev, dup := seen[r.Repo]; dup {
				return nil, fmt.Errorf("%s (%s): %w (first at %s)", where, r.Repo, ErrDuplicateRepo, prev)
			}
			seen[r.Repo] = fmt.Sprintf("%s[%d]", lang, i)
			rel.Repos = append(rel.Repos, r)
		}
	}
	return rel, nil
}

func (rr rawRepo) validate(where, lang string) (Repo, error) {
	missing := func(field string) error { return fmt.Errorf("%s: %w %q", where, ErrMissingField, field) }
	switch {
	case rr.Repo == nil || *rr.Repo == "":
		return Repo{}, missing("repo")
	case rr.CommitSHA == nil:
		return Repo{}, missing("commit_sha")
	case rr.Content == nil:
		return Repo{}, missing("content")
	}
	r := Repo{Language: lang, Repo: *rr.Repo, CommitSHA: *rr.CommitSHA, Topic: rr.Topic, Content: *rr.Content}
	if rr.EntrypointPath != nil {
		r.EntrypointPath = *rr.EntrypointPath
	}
	where = fmt.Sprintf("%s (%s)", where, r.Repo)
	for j, rn := range rr.Needles {
		nw := fmt.Sprintf("%s: needles[%d]", where, j)
		for _, f := range []struct {
			name string
			ok   bool
		}{
			{"name", rn.Name != nil && *rn.Name != ""}, {"path", rn.Path != nil},
			{"start_line", rn.StartLine != nil}, {"end_line", rn.EndLine != nil},
			{"start_byte", rn.StartByte != nil}, {"end_byte", rn.EndByte != nil},
		} {
			if !f.ok {
				return Repo{}, fmt.Errorf("%s: %w %q", nw, ErrMissingField, f.name)
			}
		}
		n := Needle{Name: *rn.Name, Path: *rn.Path, StartLine: *rn.StartLine, EndLine: *rn.EndLine,
			StartByte: *rn.StartByte, EndByte: *rn.EndByte}
		if rn.Description != nil {
			n.Description = *rn.Description
		}
		nw = fmt.Sprintf("%s (%s)", nw, n.Name)
		text, ok := r.Content[n.Path]
		if !ok {
			return Repo{}, fmt.Errorf("%s: %w: %q", nw, ErrUnknownPath, n.Path)
		}
		if n.StartByte < 0 || n.EndByte <= n.StartByte || n.EndByte > len(text) {
			return Repo{}, fmt.Errorf("%s: %w: [%d, %d) in %s of %d bytes", nw, ErrNeedleRange, n.StartByte, n.EndByte, n.Path, len(text))
		}
		r.Needles = append(r.Needles, n)
	}
	return r, nil
}

// Corpus returns the repository as a corpus of whole files: one Doc per
// content entry (Kind "file", ID = Path = the content key), sorted by path.
func (r *Repo) Corpus() *corpus.Corpus {
	return filesCorpus(r.Repo, r.CommitSHA, r.Language, r.Content)
}

func filesCorpus(id, commit, lang string, content map[string]string) *corpus.Corpus {
	paths := make([]string, 0, len(content))
	for p := range content {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	c := &corpus.Corpus{ID: id, Commit: commit, Docs: make([]corpus.Doc, 0, len(paths))}
	for _, p := range paths {
		text := content[p]
		c.Docs = append(c.Docs, corpus.Doc{
			ID: p, Path: p, Kind: "file", Language: LanguageOf(p, lang),
			StartLine: 1, EndLine: lineCount(text), Text: text,
		})
	}
	return c
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := strings.Count(s, "\n")
	if !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

// Corpora returns one corpus per repository, keyed by repository name.
func (rel *Release) Corpora() map[string]*corpus.Corpus {
	m := make(map[string]*corpus.Corpus, len(rel.Repos))
	for i := range rel.Repos {
		m[rel.Repos[i].Repo] = rel.Repos[i].Corpus()
	}
	return m
}
