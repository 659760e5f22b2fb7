// Package corpusdir hands a corpus over to an external system as files:
// a content-addressed tree of its documents (Tree; optionally a git
// repository with one reproducible commit) or one docs.jsonl (JSONL), under
// <cache>/external/corpora/, written beside and renamed into place.
package corpusdir

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/proc"
)

// The fixed identity of the corpus commit, so that the same files give the
// same commit hash on every machine.
var gitEnv = []string{
	"GIT_CONFIG_GLOBAL=/dev/null",
	"GIT_CONFIG_NOSYSTEM=1",
	"GIT_AUTHOR_NAME=retrievalbench",
	"GIT_AUTHOR_EMAIL=corpus@retrievalbench.invalid",
	"GIT_AUTHOR_DATE=2000-01-01T00:00:00Z",
	"GIT_COMMITTER_NAME=retrievalbench",
	"GIT_COMMITTER_EMAIL=corpus@retrievalbench.invalid",
	"GIT_COMMITTER_DATE=2000-01-01T00:00:00Z",
}

// Tree returns the directory holding c's files as a tree, writing it
// when absent (hash is c.Hash()):
//
//	<cache>/external/corpora/<corpus hash>[-git]/
//
// The tree is written into a temporary sibling and renamed into place, so
// the directory exists only once complete and is shared by every run and
// every external system with the same corpus. With git, the tree is a
// repository with one commit whose hash depends only on the files.
func Tree(ctx context.Context, cache string, c *corpus.Corpus, hash string, git bool) (string, error) {
	if err := checkPaths(c, git); err != nil {
		return "", err
	}
	name := hash
	if git {
		name += "-git"
	}
	return publish(cache, name, func(tmp string) error {
		if err := writeTree(tmp, c); err != nil {
			return err
		}
		if git {
			return gitCommit(ctx, tmp, c)
		}
		return nil
	})
}

// publish returns <cache>/external/corpora/<name>, filling it with fill when
// it is absent: fill writes into a temporary sibling, which is renamed into
// place, so the directory exists only once complete.
func publish(cache, name string, fill func(tmp string) error) (string, error) {
	parent := filepath.Join(cache, "external", "corpora")
	final := filepath.Join(parent, name)
	if st, err := os.Stat(final); err == nil && st.IsDir() {
		return final, nil
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(parent, ".tmp-"+name+"-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // a no-op once renamed
	if err := fill(tmp); err != nil {
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, final); err != nil {
		// Another process may have won the race with the same content.
		if st, serr := os.Stat(final); serr == nil && st.IsDir() {
			return final, nil
		}
		return "", err
	}
	return final, nil
}

// checkPaths rejects a corpus that cannot be written as a tree: a doc with
// no path, a path that is absolute, not clean, climbs out with "..", holds a
// NUL, or names .git in a git handover, and a path given twice (which
// means the corpus is chunked, not whole files).
func checkPaths(c *corpus.Corpus, git bool) error {
	seen := make(map[string]string, len(c.Docs))
	for i := range c.Docs {
		d := &c.Docs[i]
		p := d.Path
		why := ""
		switch {
		case p == "":
			why = "no path (a document collection is handed over with corpus.jsonl, and judged by id with result.doc_id)"
		case strings.ContainsRune(p, 0):
			why = "path holds a NUL byte"
		case strings.HasPrefix(p, "/"):
			why = "absolute path"
		case p == ".." || strings.HasPrefix(p, "../"):
			why = "path climbs out of the corpus"
		case path.Clean(p) != p || p == ".":
			why = fmt.Sprintf("path is not clean (want %q)", path.Clean(p))
		case git && (p == ".git" || strings.HasPrefix(p, ".git/") || strings.Contains(p, "/.git/") || strings.HasSuffix(p, "/.git")):
			why = "path inside .git"
		}
		if why == "" {
			if other, dup := seen[p]; dup {
				why = fmt.Sprintf("path also used by doc %q: external systems need whole files, one doc per file (systems.FileIndexer)", other)
			}
		}
		if why != "" {
			return fmt.Errorf("corpus %s: doc %q: %q: %s", c.ID, d.ID, p, why)
		}
		seen[p] = d.ID
	}
	return nil
}

func writeTree(root string, c *corpus.Corpus) error {
	for i := range c.Docs {
		d := &c.Docs[i]
		f := filepath.Join(root, filepath.FromSlash(d.Path))
		if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
			return fmt.Errorf("corpus %s: %w", c.ID, err)
		}
		if err := os.WriteFile(f, []byte(d.Text), 0o644); err != nil {
			return fmt.Errorf("corpus %s: %w", c.ID, err)
		}
	}
	return nil
}

func gitCommit(ctx context.Context, dir string, c *corpus.Corpus) error {
	env := append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + dir}, gitEnv...)
	msg := "corpus " + c.ID
	if c.Commit != "" {
		msg += " at " + c.Commit
	}
	for _, argv := range [][]string{
		{"git", "-c", "init.defaultBranch=main", "init", "-q"},
		{"git", "-c", "core.autocrlf=false", "add", "-A"},
		{"git", "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", msg},
	} {
		if _, _, err := proc.Run(ctx, argv, env, dir, -1, nil, nil); err != nil {
			return fmt.Errorf("corpus %s: git handover: %w", c.ID, err)
		}
	}
	return nil
}

// JSONL returns the directory holding c as docs.jsonl, one line
// {"_id", "title", "text", "path"} per doc in corpus order, writing it when
// absent:
//
//	<cache>/external/corpora/<corpus hash>-jsonl/docs.jsonl
//
// Like Tree it is written into a temporary sibling and renamed.
func JSONL(cache string, c *corpus.Corpus, hash string) (string, error) {
	seen := make(map[string]bool, len(c.Docs))
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	for _, d := range c.Docs {
		if d.ID == "" || seen[d.ID] {
			return "", fmt.Errorf("corpus %s: doc id %q is empty or given twice", c.ID, d.ID)
		}
		seen[d.ID] = true
		line := struct {
			ID    string `json:"_id"`
			Title string `json:"title"`
			Text  string `json:"text"`
			Path  string `json:"path,omitempty"`
		}{d.ID, d.Title, d.Text, d.Path}
		if err := enc.Encode(line); err != nil {
			return "", err
		}
	}
	return publish(cache, hash+"-jsonl", func(tmp string) error {
		return os.WriteFile(filepath.Join(tmp, "docs.jsonl"), []byte(b.String()), 0o644)
	})
}
