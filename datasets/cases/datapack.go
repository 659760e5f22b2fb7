package cases

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// EnvData names the environment variable that locates the data pack a
// manifest's "datapack" entries are relative to (internal/testenv reads the
// same variable).
const EnvData = "RETRIEVALBENCH_DATA"

// ErrNoDataDir is returned when a manifest names a datapack repository and
// $RETRIEVALBENCH_DATA is unset.
var ErrNoDataDir = errors.New("$" + EnvData + " is not set")

// validate checks the shape of one manifest entry.
func (s RepoSpec) validate() error {
	n := 0
	for _, v := range []string{s.Path, s.Archive, s.Datapack} {
		if v != "" {
			n++
		}
	}
	switch {
	case n != 1:
		return fmt.Errorf(`needs exactly one of "path", "archive" and "datapack"`)
	case s.Entry != "" && s.Datapack == "":
		return fmt.Errorf(`"entry" only goes with "datapack"`)
	case s.Datapack != "":
		clean := path.Clean(s.Datapack)
		if path.IsAbs(s.Datapack) || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || strings.Contains(s.Datapack, `\`) {
			return fmt.Errorf("datapack %q must be a slash-separated path inside the data pack", s.Datapack)
		}
		if !isJSONL(s.Datapack) && !isRepoQA(s.Datapack) {
			return fmt.Errorf("datapack %q: unknown format (want a {path, text} .jsonl[.gz] corpus or a RepoQA .json[.gz] file)", s.Datapack)
		}
		if isRepoQA(s.Datapack) && s.Entry == "" {
			return fmt.Errorf("datapack %q holds many repositories: name one with \"entry\"", s.Datapack)
		}
		if isJSONL(s.Datapack) && s.Entry != "" {
			return fmt.Errorf("datapack %q holds one repository: drop \"entry\"", s.Datapack)
		}
	}
	return nil
}

func isJSONL(p string) bool {
	return strings.HasSuffix(p, ".jsonl") || strings.HasSuffix(p, ".jsonl.gz")
}
func isRepoQA(p string) bool {
	return strings.HasSuffix(p, ".json") || strings.HasSuffix(p, ".json.gz")
}

// DatapackFile resolves spec.Datapack against $RETRIEVALBENCH_DATA.
func DatapackFile(spec RepoSpec) (string, error) {
	dir := os.Getenv(EnvData)
	if dir == "" {
		return "", fmt.Errorf("datapack %s: %w", spec.Datapack, ErrNoDataDir)
	}
	return filepath.Join(dir, filepath.FromSlash(path.Clean(spec.Datapack))), nil
}

// walkDatapack reads a repository out of a data-pack corpus file and
// returns the commit the data pack records for it ("" when none):
//
//   - SWE-QA corpora (.jsonl or .jsonl.gz): one {"path", "text"} object a
//     line; the commit is the line of repo_commit.txt (next to the file or
//     one directory up, as the SWE-QA folder has it) whose repository URL
//     ends in the file's base name.
//   - RepoQA corpora (.json or .json.gz): {"<language>": [{"repo",
//     "commit_sha", "content": {path: text}}]}; spec.Entry picks the repo.
func walkDatapack(spec RepoSpec, fn func(p string, b []byte)) (string, error) {
	file, err := DatapackFile(spec)
	if err != nil {
		return "", err
	}
	r, err := datafile.Open(file)
	if err != nil {
		return "", err
	}
	defer r.Close()
	if isRepoQA(file) {
		return walkRepoQA(file, r, spec.Entry, fn)
	}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	seen := map[string]int{}
	for line := 1; sc.Scan(); line++ {
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		var rec struct {
			Path *string `json:"path"`
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return "", &fileline.Error{File: file, Line: line, Err: err}
		}
		if rec.Path == nil || rec.Text == nil {
			return "", fileline.Errorf(file, line, "want {\"path\", \"text\"}")
		}
		p, err := corpusPath(*rec.Path)
		if err != nil {
			return "", &fileline.Error{File: file, Line: line, Err: err}
		}
		if first, dup := seen[p]; dup && p != "" {
			return "", fileline.Errorf(file, line, "path %q repeated (first on line %d)", p, first)
		}
		seen[p] = line
		if p != "" {
			fn(p, []byte(*rec.Text))
		}
	}
	if err := sc.Err(); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	return sweqaCommit(file), nil
}

func walkRepoQA(file string, r io.Reader, entry string, fn func(p string, b []byte)) (string, error) {
	var pack map[string][]struct {
		Repo    string            `json:"repo"`
		Commit  string            `json:"commit_sha"`
		Content map[string]string `json:"content"`
	}
	if err := json.NewDecoder(r).Decode(&pack); err != nil {
		return "", fmt.Errorf("%s: %w", file, err)
	}
	var names []string
	for _, lang := range sortedKeys(pack) {
		for _, e := range pack[lang] {
			if e.Repo != entry {
				names = append(names, e.Repo)
				continue
			}
			for _, p := range sortedKeys(e.Content) {
				clean, err := corpusPath(p)
				if err != nil {
					return "", fmt.Errorf("%s: %s: %w", file, entry, err)
				}
				if clean != "" {
					fn(clean, []byte(e.Content[p]))
				}
			}
			return e.Commit, nil
		}
	}
	return "", fmt.Errorf("%s: no repository %q (has %s)", file, entry, strings.Join(names, ", "))
}

// corpusPath cleans a path recorded in a data-pack file and refuses one
// that escapes the repository root; "" means a hidden file, skipped.
func corpusPath(p string) (string, error) {
	clean := path.Clean(strings.TrimPrefix(p, "./"))
	if p == "" || clean == "." || clean == ".." || strings.HasPrefix(clean, "../") || path.IsAbs(clean) {
		return "", fmt.Errorf("path %q escapes the repository root", p)
	}
	for _, part := range strings.Split(clean, "/") {
		if hidden(part) {
			return "", nil
		}
	}
	return clean, nil
}

// sweqaCommit finds the commit SWE-QA's repo_commit.txt records for the
// corpus file ("https://…/pallets/flask 85c5d93" for flask.jsonl.gz).
func sweqaCommit(file string) string {
	base := strings.TrimSuffix(strings.TrimSuffix(filepath.Base(file), ".gz"), ".jsonl")
	dir := filepath.Dir(file)
	for _, d := range []string{dir, filepath.Dir(dir)} {
		b, err := os.ReadFile(filepath.Join(d, "repo_commit.txt"))
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			f := strings.Fields(l)
			if len(f) == 2 && path.Base(f[0]) == base {
				return f[1]
			}
		}
	}
	return ""
}

// sameCommit reports whether two spellings name the same commit: equal,
// or one an abbreviation (prefix of at least 7 hex digits) of the other.
func sameCommit(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if len(a) > len(b) {
		a, b = b, a
	}
	return a == b || (len(a) >= 7 && strings.HasPrefix(b, a))
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
