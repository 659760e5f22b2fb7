package chunk

import (
	"fmt"
	"path"
	"regexp"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// Exclude says which files of a repository are not indexed at all: vendored
// and test-data trees, lock and minified files, generated code and files
// over a size. A file it matches leaves the corpus (its chunks and its whole
// file both), and Counts says how many files and bytes each rule took.
//
// The zero Exclude keeps everything: it is what DefaultOptions (the
// catalogue's recorded chunking) uses. RepoOptions uses DefaultExclude.
type Exclude struct {
	// Paths are patterns over a doc's slash-separated, repository-relative
	// path, applied in order; the last one that matches decides, and a
	// pattern starting with "!" keeps what an earlier one excluded
	// ("!testdata/" indexes test data again). A pattern ending in "/"
	// names a directory anywhere in the tree ("vendor/" takes a/vendor/b.go);
	// one containing another "/" matches the whole path (path.Match) or a
	// leading directory of it ("third_party/lib" takes everything under
	// it); any other is matched against the file's base name ("*.min.js",
	// "go.sum").
	Paths []string
	// Generated excludes files that say they are generated in their
	// header (the comment and blank lines before the first line of code):
	// Go's "// Code generated … DO NOT EDIT." line anywhere there, or
	// "@generated" or "generated … do not edit" (any case) within its first
	// GeneratedHeadLines lines.
	Generated bool
	// MaxFileBytes, when positive, excludes files longer than it.
	MaxFileBytes int
}

// GeneratedHeadLines is how many leading lines of a file Exclude.Generated
// reads for a generated-code marker.
const GeneratedHeadLines = 10

// DefaultExcludePaths are the path patterns of DefaultExclude.
func DefaultExcludePaths() []string {
	return []string{
		"vendor/", "node_modules/", "testdata/", "third_party/",
		"*.min.js", "*.min.css", "*.map",
		"*.lock", "package-lock.json", "pnpm-lock.yaml", "go.sum",
	}
}

// DefaultMaxFileBytes is DefaultExclude's MaxFileBytes: 256 KiB, above
// which a file is data or generated far more often than it is code a person
// asks about.
const DefaultMaxFileBytes = 256 << 10

// DefaultExclude is what a user's repository leaves out by default
// (RepoOptions): DefaultExcludePaths, generated files and files over
// DefaultMaxFileBytes.
func DefaultExclude() Exclude {
	return Exclude{Paths: DefaultExcludePaths(), Generated: true, MaxFileBytes: DefaultMaxFileBytes}
}

// IsZero reports whether e excludes nothing.
func (e Exclude) IsZero() bool { return len(e.Paths) == 0 && !e.Generated && e.MaxFileBytes <= 0 }

// Validate reports a malformed pattern.
func (e Exclude) Validate() error {
	for _, p := range e.Paths {
		pat := strings.TrimPrefix(p, "!")
		if strings.TrimSuffix(pat, "/") == "" {
			return fmt.Errorf("exclude pattern %q: empty", p)
		}
		if _, err := path.Match(strings.TrimSuffix(pat, "/"), "x"); err != nil {
			return fmt.Errorf("exclude pattern %q: %w", p, err)
		}
	}
	if e.MaxFileBytes < 0 {
		return fmt.Errorf("exclude: max file bytes %d is negative", e.MaxFileBytes)
	}
	return nil
}

// Rules for Counts.ExcludedBy besides the path patterns.
const (
	RuleGenerated = "generated"
	RuleTooLarge  = "max-file-bytes"
)

// Match returns the rule that excludes d ("vendor/", RuleGenerated,
// RuleTooLarge), or "" when d is kept. Path patterns apply to every doc
// with a path; the generated and size checks to whole files (Kind "file").
// A "!" pattern that keeps a file also keeps it from the other two checks:
// it is the way to index one file a default rule would drop.
func (e Exclude) Match(d *corpus.Doc) string {
	rule, kept := "", false
	if d.Path != "" {
		for _, p := range e.Paths {
			neg := strings.HasPrefix(p, "!")
			if matchPath(strings.TrimPrefix(p, "!"), d.Path) {
				rule, kept = p, neg
			}
		}
	}
	if kept {
		return ""
	}
	if rule != "" {
		return rule
	}
	if d.Kind != KindFile {
		return ""
	}
	if e.MaxFileBytes > 0 && len(d.Text) > e.MaxFileBytes {
		return RuleTooLarge
	}
	if e.Generated && generated(d.Text) {
		return RuleGenerated
	}
	return ""
}

// matchPath matches one pattern (without "!") against a slash path.
func matchPath(pat, p string) bool {
	parts := strings.Split(p, "/")
	if dir, ok := strings.CutSuffix(pat, "/"); ok {
		if strings.Contains(dir, "/") { // "a/b/": that directory from the root
			return strings.HasPrefix(p, dir+"/")
		}
		for _, seg := range parts[:len(parts)-1] {
			if ok, _ := path.Match(dir, seg); ok {
				return true
			}
		}
		return false
	}
	if !strings.Contains(pat, "/") {
		ok, _ := path.Match(pat, parts[len(parts)-1])
		return ok
	}
	pat = strings.TrimPrefix(pat, "/")
	for i := len(parts); i > 0; i-- { // the path, then each leading directory
		if ok, _ := path.Match(pat, strings.Join(parts[:i], "/")); ok {
			return true
		}
	}
	return false
}

var (
	// goGeneratedRE is Go's convention (go help generate).
	goGeneratedRE = regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`)
	// markerRE is the marker other generators leave in a header comment.
	markerRE = regexp.MustCompile(`(?i)@generated\b|\bgenerated\b.*\bdo not edit\b`)
)

// generated reports whether src says it is generated in its header: the
// comments and blank lines before its first line of code, Go's line
// anywhere there, another marker within the first GeneratedHeadLines lines.
func generated(src string) bool {
	for n, rest := 0, src; rest != ""; n++ {
		var line string
		line, rest, _ = strings.Cut(rest, "\n")
		line = strings.TrimRight(line, "\r")
		t := strings.TrimSpace(line)
		switch {
		case t == "":
		case !isCommentLine(t):
			return false // the header ends at the first line of code
		case goGeneratedRE.MatchString(line):
			return true
		case n < GeneratedHeadLines && markerRE.MatchString(t):
			return true
		}
	}
	return false
}

// isCommentLine reports whether a trimmed line is (part of) a comment in
// one of the chunker's languages or a shell-like one.
func isCommentLine(t string) bool {
	for _, p := range []string{"//", "#", "/*", "*", "<!--", "--", ";"} {
		if strings.HasPrefix(t, p) {
			return true
		}
	}
	return strings.HasPrefix(t, `"""`) || strings.HasPrefix(t, "'''")
}

// Filter returns c without the docs e excludes, and what it took. c is not
// modified; it is returned itself when nothing is excluded.
func (e Exclude) Filter(c *corpus.Corpus) (*corpus.Corpus, Excluded) {
	var x Excluded
	if e.IsZero() {
		return c, x
	}
	var keep []corpus.Doc
	for i := range c.Docs {
		d := &c.Docs[i]
		rule := e.Match(d)
		if rule == "" {
			if keep != nil {
				keep = append(keep, *d)
			}
			continue
		}
		if keep == nil {
			keep = append(make([]corpus.Doc, 0, len(c.Docs)), c.Docs[:i]...)
		}
		x.add(rule, len(d.Text), d.Path)
	}
	if keep == nil {
		return c, x
	}
	out := *c
	out.Docs = keep
	out.Files = nil
	return &out, x
}

// Excluded counts the files Exclude took (the sections a loader cut a
// documentation file into count as their file).
type Excluded struct {
	Files int            // files excluded
	Bytes int            // their text
	By    map[string]int // rule → files it excluded
	// Paths is each excluded file's path, in corpus order.
	Paths []string
}

func (x *Excluded) add(rule string, bytes int, p string) {
	x.Bytes += bytes
	if n := len(x.Paths); n > 0 && x.Paths[n-1] == p {
		return // another section of the same documentation file
	}
	x.Paths = append(x.Paths, p)
	x.Files++
	if x.By == nil {
		x.By = map[string]int{}
	}
	x.By[rule]++
}

// Add adds o's counts to x.
func (x *Excluded) Add(o Excluded) {
	x.Files += o.Files
	x.Bytes += o.Bytes
	for r, n := range o.By {
		if x.By == nil {
			x.By = map[string]int{}
		}
		x.By[r] += n
	}
	x.Paths = append(x.Paths, o.Paths...)
}

// String is one line for a report: "412 files (22.1 MB): testdata/ 380,
// generated 3, …", rules by count, most first.
func (x Excluded) String() string {
	if x.Files == 0 {
		return "none"
	}
	rules := make([]string, 0, len(x.By))
	for r := range x.By {
		rules = append(rules, r)
	}
	sort.Slice(rules, func(i, j int) bool {
		if x.By[rules[i]] != x.By[rules[j]] {
			return x.By[rules[i]] > x.By[rules[j]]
		}
		return rules[i] < rules[j]
	})
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = fmt.Sprintf("%s %d", r, x.By[r])
	}
	return fmt.Sprintf("%d files (%s): %s", x.Files, humanBytes(x.Bytes), strings.Join(parts, ", "))
}

func humanBytes(n int) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
