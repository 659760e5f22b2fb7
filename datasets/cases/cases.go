// Package cases loads hand-written case files in the format of the Codira
// seed: JSON Lines records
//
//	{"id", "repo", "intent", "language", "channel", "difficulty", "query",
//	 "relevant": [{"kind", "id" | "path", "grade"}]}
//
// with kinds file, symbol, doc_section, test and config, grades 0..3
// (binary 0/1 is the special case) and intents symbol_lookup,
// architecture_lookup, task_lookup, docs_lookup and error_or_trace_lookup,
// over the repositories of a manifest (JSON: name → {path | archive |
// datapack [+ entry], commit [, exclude]}; exclude: path patterns the
// chunking of that repository adds to the run's, Manifest.ChunkOptions). A datapack repository is read from a corpus
// file of the data pack under $RETRIEVALBENCH_DATA — a SWE-QA
// corpora/REPO.jsonl.gz, or the RepoQA corpora file with entry naming the
// repository — and its commit is checked against the one the pack records.
//
// Every judgment is checked against the repository's files: a file, test
// or config path must exist; a doc_section names a section as "path#anchor"
// in "id", or as the anchor in "id" with the file in "path" (the way a
// symbol takes its file), where the anchor is a heading's text (any case),
// its slug, or a reStructuredText label (".. _label:") above it (Markdown
// and reStructuredText files are cut into one doc per section, ID
// "path#slug", so the judge can credit the section; the gold is stored in
// that spelling; "path" alone becomes a file judgment); a symbol must name
// a definition the chunker cuts from the repository the way its language
// imports it: its fully qualified name or any dotted suffix of it
// (codetext.Qualifier, codetext.SymbolMatches — the judge's rule), so
// "requests.adapters.HTTPAdapter.send", "adapters.HTTPAdapter.send" and
// "HTTPAdapter.send" are all accepted, in the judgment's file when "path"
// is given too; a name a Python package re-exports is accepted the way it
// is imported ("flask.Flask", which src/flask/__init__.py imports from
// .app: codetext.Qualifier.Resolve). The symbol is stored as written, with
// its "path" (judged in that file only). In files the chunker
// cannot split (languages without a grammar) the check falls back to
// lexical: the symbol's last name part must be defined there
// (def/class/func/fn/type/struct/interface/method shorthand). Validation
// reports every problem as file:line at once.
//
// When the repository is a git checkout (or a git archive with its commit
// comment) and its commit differs from the manifest's, the drift is
// recorded in Dataset.Notes, never hidden.
package cases

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// Intents are the valid intents, in report order.
func Intents() []string {
	return []string{"symbol_lookup", "architecture_lookup", "task_lookup", "docs_lookup", "error_or_trace_lookup"}
}

// Kinds are the valid judgment kinds.
func Kinds() []string { return []string{"file", "symbol", "doc_section", "test", "config"} }

// Config selects the split.
type Config struct {
	Name        string // dataset name; "" = "cases-" + the case file's name
	Split       string // datasets split name; "" = all
	SplitConfig datasets.SplitConfig
}

// DefaultConfig keeps every case.
func DefaultConfig() Config {
	return Config{Split: datasets.SplitAll, SplitConfig: datasets.DefaultSplitConfig()}
}

// record is one case line as written.
type record struct {
	ID         string     `json:"id"`
	Repo       string     `json:"repo"`
	Intent     string     `json:"intent"`
	Language   string     `json:"language"`
	Channel    string     `json:"channel"`
	Difficulty string     `json:"difficulty"`
	Query      string     `json:"query"`
	Relevant   []judgment `json:"relevant"`
}

type judgment struct {
	Kind  string `json:"kind"`
	ID    string `json:"id"`
	Path  string `json:"path"`
	Grade *int   `json:"grade"`
}

// Load reads a case file and the manifest naming its repositories, builds
// one corpus per repository the cases use (whole files, Kind "file"), and
// validates every case against it.
func Load(casesFile, manifestFile string, cfg Config) (*datasets.Dataset, error) {
	m, err := ReadManifest(manifestFile)
	if err != nil {
		return nil, err
	}
	name := "cases-" + strings.TrimSuffix(filepath.Base(casesFile), filepath.Ext(casesFile))
	if cfg.Name != "" {
		name = cfg.Name
	}
	ds, _, errs, err := read(casesFile, &m, false)
	if err != nil {
		return nil, err
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	ds.Name = name
	if len(ds.Tasks) == 0 {
		return nil, fmt.Errorf("%s: no cases", casesFile)
	}
	if cfg.Split == "" {
		cfg.Split = datasets.SplitAll
	}
	sc := cfg.SplitConfig.OrDefault(ds.Name)
	if ds.Tasks, err = datasets.Split(ds.Tasks, cfg.Split, sc); err != nil {
		return nil, fmt.Errorf("%s: %w", casesFile, err)
	}
	ds.Split = cfg.Split
	return ds, nil
}

// Summary is what Validate read from a case file.
type Summary struct {
	Cases     int      // case lines
	Judgments int      // relevant judgments over all cases
	Repos     []string // the repositories the cases name, sorted
	Checked   bool     // the judgments were checked against the repositories
	Notes     []string // from the repositories: commit drift, an unverifiable commit
}

// Validate checks a case file and returns every problem at once, each as
// a fileline.Error ("file:line: problem"), joined. With manifestFile "" it
// checks what the file says alone — JSON, fields, ids, intents, kinds,
// grades, what each kind needs; with a manifest also each case's repository
// and every judgment against the repository's files, as Load does, except
// that a repository that fails to load is one more problem rather than the
// end of the check.
func Validate(casesFile, manifestFile string) (Summary, error) {
	var m *Manifest
	if manifestFile != "" {
		mm, err := ReadManifest(manifestFile)
		if err != nil {
			return Summary{}, err
		}
		m = &mm
	}
	_, sum, errs, err := read(casesFile, m, true)
	if err != nil {
		return sum, err
	}
	if len(errs) == 0 && sum.Cases == 0 {
		errs = append(errs, fmt.Errorf("%s: no cases", casesFile))
	}
	return sum, errors.Join(errs...)
}

// read parses and checks every line of a case file: the file's problems
// are errs, each at its line; err is a failure to read at all. With m nil
// nothing is checked against repositories and no corpus is built. A
// repository that fails to load ends the read (err) unless keepGoing, when
// it is a problem at the first case that names it.
func read(casesFile string, m *Manifest, keepGoing bool) (ds *datasets.Dataset, sum Summary, errs []error, err error) {
	b, err := os.ReadFile(casesFile)
	if err != nil {
		return nil, sum, nil, err
	}
	ds = &datasets.Dataset{Split: datasets.SplitAll, Corpora: map[string]*corpus.Corpus{}}
	repos := map[string]*repoIndex{}
	failed := map[string]bool{}
	names := map[string]bool{}
	sum.Checked = m != nil
	bad := func(line int, format string, args ...any) {
		errs = append(errs, fileline.Errorf(casesFile, line, format, args...))
	}
	intents := set(Intents())
	kinds := set(Kinds())
	seen := map[string]int{}
	for i, raw := range strings.Split(string(b), "\n") {
		line := i + 1
		if strings.TrimSpace(raw) == "" {
			continue
		}
		var r record
		dec := json.NewDecoder(strings.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&r); err != nil {
			bad(line, "%v", err)
			continue
		}
		if dec.More() {
			bad(line, "text after the case's JSON object (one case per line)")
			continue
		}
		sum.Cases++
		sum.Judgments += len(r.Relevant)
		switch {
		case r.ID == "":
			bad(line, "missing id")
			continue
		case seen[r.ID] != 0:
			bad(line, "duplicate id %q (first on line %d)", r.ID, seen[r.ID])
			continue
		}
		seen[r.ID] = line
		if strings.TrimSpace(r.Query) == "" {
			bad(line, "%s: empty query", r.ID)
		}
		if !intents[r.Intent] {
			bad(line, "%s: unknown intent %q (valid: %s)", r.ID, r.Intent, strings.Join(Intents(), ", "))
		}
		if len(r.Relevant) == 0 {
			bad(line, "%s: no relevant judgments", r.ID)
		}
		if r.Repo == "" && m == nil {
			bad(line, "%s: missing repo", r.ID)
		}
		if r.Repo != "" {
			names[r.Repo] = true
		}
		var idx *repoIndex
		if m != nil {
			spec, ok := m.Repos[r.Repo]
			if !ok {
				bad(line, "%s: unknown repo %q (manifest %s has %s)", r.ID, r.Repo, m.File, strings.Join(m.names(), ", "))
				continue
			}
			if idx = repos[r.Repo]; idx == nil && !failed[r.Repo] {
				c, note, err := LoadRepo(r.Repo, spec, filepath.Dir(m.File))
				if err == nil {
					idx, err = newRepoIndex(c)
				}
				switch {
				case err != nil && !keepGoing:
					return nil, sum, nil, fmt.Errorf("%s: repo %s: %w", m.File, r.Repo, err)
				case err != nil:
					bad(line, "%s: repo %s (manifest %s): %v; its cases' judgments are not checked", r.ID, r.Repo, m.File, err)
					failed[r.Repo] = true
				default:
					if note.Text != "" {
						ds.Notes = append(ds.Notes, note.Text)
					}
					ds.Corpora[c.ID] = c
					repos[r.Repo] = idx
				}
			}
		}
		task := datasets.Task{ID: r.ID, Query: r.Query, CorpusID: r.Repo, Meta: datasets.Meta{
			Repo: r.Repo, Intent: r.Intent, Difficulty: r.Difficulty, Language: r.Language,
		}}
		for j, g := range r.Relevant {
			where := fmt.Sprintf("%s: relevant[%d]", r.ID, j)
			if !kinds[g.Kind] {
				bad(line, "%s: unknown kind %q (valid: %s)", where, g.Kind, strings.Join(Kinds(), ", "))
				continue
			}
			if g.Grade == nil {
				bad(line, "%s: missing grade", where)
				continue
			}
			if *g.Grade < 0 || *g.Grade > 3 {
				bad(line, "%s: grade %d outside 0..3", where, *g.Grade)
				continue
			}
			if msg := g.shape(); msg != "" {
				bad(line, "%s: %s", where, msg)
				continue
			}
			if idx == nil {
				continue // nothing to check it against
			}
			id, msg := idx.check(g)
			if msg != "" {
				bad(line, "%s: %s", where, msg)
				continue
			}
			kind := g.Kind
			if kind == "doc_section" && !strings.Contains(id, "#") {
				kind = "file" // the whole document: any of its sections
			}
			rel := datasets.Relevant{Kind: kind, ID: id, Grade: *g.Grade}
			if kind == "symbol" {
				rel.Path = g.Path // the file it is judged in: one name in two files is two golds
			}
			task.Gold = append(task.Gold, rel)
		}
		ds.Tasks = append(ds.Tasks, task)
	}
	for n := range names {
		sum.Repos = append(sum.Repos, n)
	}
	sort.Strings(sum.Repos)
	sum.Notes = ds.Notes
	return ds, sum, errs, nil
}

// shape reports what a judgment of its kind lacks, without looking at a
// repository ("" when nothing).
func (g judgment) shape() string {
	switch g.Kind {
	case "file", "test", "config":
		if g.Path == "" && g.ID == "" {
			return "needs a path"
		}
	case "symbol":
		if g.ID == "" {
			return "symbol needs an id"
		}
	case "doc_section":
		if g.Path == "" && g.ID == "" {
			return "doc_section needs an id or a path"
		}
	}
	return ""
}

func set(xs []string) map[string]bool {
	m := make(map[string]bool, len(xs))
	for _, x := range xs {
		m[x] = true
	}
	return m
}

// repoIndex answers the existence checks of one repository.
type repoIndex struct {
	paths    map[string]bool         // every file path
	sections map[string][]corpus.Doc // documentation file → its section docs
	symbols  map[string][]string     // file → fully qualified names of its chunks' symbols
	defs     map[string][]string     // lexically defined name → files the chunker left whole
	q        *codetext.Qualifier     // resolves names through re-exports
}

// defRE finds definitions in the languages the chunker knows, plus the
// common shapes of others: Python def/class, Go func/type, Rust fn/struct/
// enum/trait, Java/TypeScript class/interface/function.
var defRE = regexp.MustCompile(`(?m)^\s*(?:export\s+)?(?:pub(?:\([a-z]+\))?\s+)?(?:async\s+)?(?:def|class|func|fn|struct|enum|trait|interface|type|function)\s+(?:\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)`)

// javaMethodRE finds Java/C++-style method declarations: "Type name(" at
// the start of a line after modifiers.
var javaMethodRE = regexp.MustCompile(`(?m)^\s*(?:(?:public|private|protected|static|final|virtual|inline|const)\s+)*[A-Za-z_][A-Za-z0-9_<>,\[\]:*&]*\s+([A-Za-z_][A-Za-z0-9_]*)\s*\(`)

// methodRE finds TypeScript/JavaScript method shorthand: "name(args) {" or
// "name(args): Type {" at the start of a line.
var methodRE = regexp.MustCompile(`(?m)^\s*(?:(?:public|private|protected|static|async|get|set)\s+)*([A-Za-z_][A-Za-z0-9_]*)\s*\([^)]*\)\s*(?::\s*[^{;]+)?\{`)

func newRepoIndex(c *corpus.Corpus) (*repoIndex, error) {
	idx := &repoIndex{paths: map[string]bool{}, sections: map[string][]corpus.Doc{}, symbols: map[string][]string{}, defs: map[string][]string{}}
	chunks, _, err := chunk.Corpus(c, chunk.DefaultOptions())
	if err != nil {
		return nil, fmt.Errorf("chunking %s: %w", c.ID, err)
	}
	q := codetext.NewQualifier(c)
	idx.q = q
	parsed := map[string]bool{}
	for _, ch := range chunks.Docs {
		if ch.Symbol != "" {
			idx.symbols[ch.Path] = append(idx.symbols[ch.Path], q.Name(ch.Path, ch.Language, ch.Symbol))
			parsed[ch.Path] = true
		}
	}
	// Definitions no chunk is cut for (nested ones) are judged too
	// (docs/judging.md), so a case may name them.
	defs, err := chunk.Definitions(c)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", c.ID, err)
	}
	for _, d := range defs {
		idx.symbols[d.Path] = append(idx.symbols[d.Path], q.Name(d.Path, d.Language, d.Symbol))
		parsed[d.Path] = true
	}
	for i := range c.Docs {
		d := &c.Docs[i]
		idx.paths[d.Path] = true
		if d.Kind == "doc_section" {
			idx.sections[d.Path] = append(idx.sections[d.Path], *d)
			continue
		}
		if parsed[d.Path] {
			continue // the chunker's symbols are the truth for this file
		}
		found := map[string]bool{}
		for _, re := range []*regexp.Regexp{defRE, javaMethodRE, methodRE} {
			for _, m := range re.FindAllStringSubmatch(d.Text, -1) {
				found[m[1]] = true
			}
		}
		for name := range found {
			idx.defs[name] = append(idx.defs[name], d.Path)
		}
	}
	return idx, nil
}

// hasSymbol reports whether id names a definition, in file p when p is
// set: the fully qualified name of a chunk's symbol or a dotted suffix of
// it (codetext.SymbolMatches, the judge's rule), as written or resolved
// through a package's re-exports (codetext.Qualifier.Resolve: "flask.Flask"
// is "flask.app.Flask"), or, in a file the chunker could not split, a
// lexical definition of id's last name part.
func (x *repoIndex) hasSymbol(id, p string) bool {
	resolved := x.q.Resolve(id)
	for file, syms := range x.symbols {
		if p != "" && file != p {
			continue
		}
		for _, s := range syms {
			if codetext.SymbolMatches(s, id) || codetext.SymbolMatches(s, resolved) {
				return true
			}
		}
	}
	parts := strings.Split(id, ".")
	files := x.defs[parts[len(parts)-1]]
	return (p == "" && len(files) > 0) || contains(files, p)
}

// check validates one judgment and returns the gold ID it stands for, or
// a message saying what is missing.
func (x *repoIndex) check(g judgment) (string, string) {
	switch g.Kind {
	case "file", "test", "config":
		p := g.Path
		if p == "" {
			p = g.ID
		}
		if p == "" {
			return "", "needs a path"
		}
		if _, ok := x.paths[p]; !ok {
			return "", fmt.Sprintf("path %q not in the repository", p)
		}
		return p, ""
	case "symbol":
		if g.ID == "" {
			return "", "symbol needs an id"
		}
		if g.Path != "" {
			if _, ok := x.paths[g.Path]; !ok {
				return "", fmt.Sprintf("path %q not in the repository", g.Path)
			}
			if !x.hasSymbol(g.ID, g.Path) {
				return "", fmt.Sprintf("symbol %q: no definition in %s", g.ID, g.Path)
			}
		} else if !x.hasSymbol(g.ID, "") {
			return "", fmt.Sprintf("symbol %q: no definition in the repository", g.ID)
		}
		return g.ID, ""
	default: // doc_section
		id := g.ID
		if id == "" {
			id = g.Path
		}
		p, anchor, _ := strings.Cut(id, "#")
		if g.Path != "" && g.ID != "" && g.ID != g.Path {
			// A heading (or "path#anchor") with its file in "path", the way
			// a symbol takes its file.
			if strings.Contains(g.ID, "#") && p != g.Path {
				return "", fmt.Sprintf("doc_section %q is in %s, not in path %q", g.ID, p, g.Path)
			}
			if !strings.Contains(g.ID, "#") {
				p, anchor = g.Path, g.ID
			}
			id = p + "#" + anchor
		}
		if !x.paths[p] {
			return "", fmt.Sprintf("doc_section %q: path %q not in the repository", id, p)
		}
		if anchor == "" {
			return p, "" // the whole document: any of its sections
		}
		if s, ok := x.section(p, anchor); ok {
			return s, ""
		}
		return "", fmt.Sprintf("doc_section %q: no heading %q in %s", id, anchor, p)
	}
}

// section returns the doc ID of the section of file p whose heading text
// (ignoring case), slug or reStructuredText label is anchor.
func (x *repoIndex) section(p, anchor string) (string, bool) {
	anchor = strings.TrimSpace(anchor)
	for _, d := range x.sections[p] {
		_, s, _ := strings.Cut(d.ID, "#")
		if s != "" && (strings.EqualFold(d.Symbol, anchor) || s == strings.ToLower(anchor) || contains(labels(d.Text), anchor)) {
			return d.ID, true
		}
	}
	return "", false
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

var slugDropRE = regexp.MustCompile(`[^a-z0-9 _-]`)

func slug(h string) string {
	s := slugDropRE.ReplaceAllString(strings.ToLower(strings.TrimSpace(h)), "")
	return strings.ReplaceAll(s, " ", "-")
}

// Manifest names the repositories cases refer to.
type Manifest struct {
	File  string
	Repos map[string]RepoSpec
}

// RepoSpec locates one repository — a directory or an archive (.tar.gz,
// .tgz, .tar, .zip) relative to the manifest's directory, or a corpus file
// of the data pack (see LoadDatapack) — and the commit the cases were
// written against.
type RepoSpec struct {
	Path    string `json:"path,omitempty"`
	Archive string `json:"archive,omitempty"`
	// Datapack is a corpus file under $RETRIEVALBENCH_DATA, slash-separated
	// and relative ("swe-qa/corpora/flask.jsonl.gz").
	Datapack string `json:"datapack,omitempty"`
	// Entry names the repository inside a data-pack file that holds many
	// (RepoQA: "psf/black"); only with Datapack.
	Entry  string `json:"entry,omitempty"`
	Commit string `json:"commit"`
	// Exclude are path patterns (chunk.Exclude.Paths) added after the
	// run's own for this repository: "docs/generated/" leaves more out,
	// "!testdata/" indexes what a default leaves out (ChunkOptions).
	Exclude []string `json:"exclude,omitempty"`
}

func (m Manifest) names() []string {
	var ns []string
	for n := range m.Repos {
		ns = append(ns, n)
	}
	sort.Strings(ns)
	return ns
}

// ReadManifest reads a JSON object name → RepoSpec. Each entry needs
// exactly one of path, archive and datapack; entry only goes with datapack,
// and a datapack path must be relative and stay inside the data pack.
func ReadManifest(file string) (Manifest, error) {
	m := Manifest{File: file}
	b, err := os.ReadFile(file)
	if err != nil {
		return m, err
	}
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m.Repos); err != nil {
		return m, datafile.JSONError(file, b, err)
	}
	for _, n := range m.names() {
		s := m.Repos[n]
		line := 1 + strings.Count(string(b[:max(0, strings.Index(string(b), `"`+n+`"`))]), "\n")
		err := s.validate()
		if err == nil {
			err = s.validateExclude()
		}
		if err != nil {
			return m, fileline.Errorf(file, line, "repo %q: %w", n, err)
		}
	}
	if len(m.Repos) == 0 {
		return m, fmt.Errorf("%s: no repositories", file)
	}
	return m, nil
}
