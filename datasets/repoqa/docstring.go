package repoqa

import (
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// GeneratorConfig tunes the repoqa-python-docstring task generator.
type GeneratorConfig struct {
	PerRepo         int    // tasks per repository (fewer when a repo has fewer candidates)
	Seed            uint64 // seeds the choice; changing it changes every task
	MinBodyLines    int    // non-blank lines after the docstring, at least
	MinSummaryWords int    // words in the summary, at least
	MaxSummaryWords int    // a longer first paragraph is cut to its first sentence
	// DecoyOverlap (doc-comment generator only): a candidate is not taken
	// when another documented definition of its repository has a summary
	// with WordOverlap ≥ DecoyOverlap with its own (that comment would stay
	// indexed, nearer to the query than the gold). 0 takes them.
	DecoyOverlap float64
	// MaskLeadingName (doc-comment generator only) replaces a query's first
	// word by MaskWord when it is the target's name (Go's "Push adds …"):
	// the dataset is DocName+"-masked", same tasks, corpus and split.
	MaskLeadingName bool
}

// DefaultGeneratorConfig returns 10 tasks per repository, bodies of at least
// 5 non-blank lines, summaries of 4 to 40 words, no doc-comment task with
// a sibling summary of word overlap ≥ 0.6 (DefaultDecoyOverlap).
func DefaultGeneratorConfig() GeneratorConfig {
	return GeneratorConfig{PerRepo: 10, Seed: 20240623, MinBodyLines: 5, MinSummaryWords: 4, MaxSummaryWords: 40, DecoyOverlap: DefaultDecoyOverlap}
}

// DefaultDecoyOverlap is the word overlap (WordOverlap, Jaccard) from which
// another documented definition's summary is a decoy of a doc-comment
// task's query.
const DefaultDecoyOverlap = 0.6

// PythonDocstring loads repoqa-python-docstring from the data pack's RepoQA
// Python corpora (CorporaFile under dataDir). The corpora have no needles, so
// tasks are generated (see Generate); these are NOT the official RepoQA
// descriptions.
func PythonDocstring(dataDir, split string, cfg Config) (*datasets.Dataset, error) {
	rel, err := ReadRelease(filepath.Join(dataDir, filepath.FromSlash(CorporaFile)))
	if err != nil {
		return nil, err
	}
	ds, err := Generate(rel, cfg.Generator)
	if err != nil {
		return nil, err
	}
	ds.Split = split
	return finish(ds, cfg)
}

// Generate makes the repoqa-python-docstring tasks from the Python repos of
// a release, deterministically:
//
//  1. Candidates are functions and methods (not nested in a function) whose
//     body starts with a docstring standing on lines of its own, excluding
//     dunder methods, names starting with "test", files under a test/ or
//     tests/ directory or named test_*.py, *_test.py, conftest.py, bodies
//     of fewer than MinBodyLines non-blank lines after the docstring, and
//     summaries of fewer than MinSummaryWords words.
//  2. The summary is the docstring's first paragraph with whitespace
//     collapsed, without a closing literal-block introduction ("Example::");
//     past MaxSummaryWords words it is cut to its first sentence.
//  3. Order: a PCG generator seeded by (Seed, FNV-64a of the repo name)
//     shuffles each file's candidates (files in path order), then the file
//     order; candidates are then taken round-robin over files, so tasks are
//     spread over files. A candidate is accepted only if its summary occurs
//     exactly once in the repository (whitespace collapsed), i.e. nowhere but
//     in its own docstring. PerRepo candidates are accepted per repository.
//  4. Each accepted docstring statement is deleted from the indexed file
//     (its whole lines), so the query text is not in the corpus; the file
//     is parsed again and the needle body (gold) is the function's source
//     in the modified file.
//
// Task IDs are "REPO::PATH#QUALNAME", gold IDs "PATH#QUALNAME".
func Generate(rel *Release, cfg GeneratorConfig) (*datasets.Dataset, error) {
	ds := &datasets.Dataset{Name: NamePythonDocstring, Corpora: map[string]*corpus.Corpus{}}
	ds.Notes = append(ds.Notes, "queries are docstring summaries chosen by a seeded generator, not the official RepoQA descriptions; the docstrings are removed from the indexed files")
	repos := slices.Clone(rel.Repos)
	slices.SortFunc(repos, func(a, b Repo) int { return strings.Compare(a.Repo, b.Repo) })
	for i := range repos {
		r := &repos[i]
		if r.Language != "python" {
			continue
		}
		tasks, content, note, err := generateRepo(r, cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", rel.File, r.Repo, err)
		}
		ds.Notes = append(ds.Notes, note)
		ds.Tasks = append(ds.Tasks, tasks...)
		ds.Corpora[r.Repo] = filesCorpus(r.Repo, r.CommitSHA, r.Language, content)
	}
	return ds, nil
}

type candidate struct {
	path    string
	def     definition
	ordinal int // how many earlier definitions in the file share def.Qualified
	summary string
}

func generateRepo(r *Repo, cfg GeneratorConfig) ([]datasets.Task, map[string]string, string, error) {
	paths := make([]string, 0, len(r.Content))
	for p := range r.Content {
		paths = append(paths, p)
	}
	slices.Sort(paths)

	rng := rand.New(rand.NewPCG(cfg.Seed, fnvString(r.Repo)))
	var byFile [][]candidate
	var whole strings.Builder
	nDoc := 0
	for _, p := range paths {
		text := r.Content[p]
		whole.WriteString(collapse(text))
		whole.WriteByte(0)
		if path.Ext(p) != ".py" || isTestPath(p) {
			continue
		}
		defs, err := parseDefinitions("python", p, []byte(text))
		if err != nil {
			return nil, nil, "", err
		}
		var cs []candidate
		ordinal := map[string]int{}
		for _, d := range defs {
			ord := ordinal[d.Qualified]
			ordinal[d.Qualified]++
			if d.DocStart >= 0 {
				nDoc++
			}
			if s, ok := eligible(text, d, cfg); ok {
				cs = append(cs, candidate{path: p, def: d, ordinal: ord, summary: s})
			}
		}
		if len(cs) > 0 {
			rng.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
			byFile = append(byFile, cs)
		}
	}
	rng.Shuffle(len(byFile), func(i, j int) { byFile[i], byFile[j] = byFile[j], byFile[i] })
	nCand := 0
	for _, cs := range byFile {
		nCand += len(cs)
	}

	repoText := whole.String()
	var chosen []candidate
	for round := 0; len(chosen) < cfg.PerRepo; round++ {
		progress := false
		for _, cs := range byFile {
			if round >= len(cs) || len(chosen) >= cfg.PerRepo {
				continue
			}
			progress = true
			if c := cs[round]; strings.Count(repoText, c.summary) == 1 {
				chosen = append(chosen, c)
			}
		}
		if !progress {
			break
		}
	}

	// Remove the chosen docstrings, last first so offsets stay valid.
	content := make(map[string]string, len(r.Content))
	for p, t := range r.Content {
		content[p] = t
	}
	perFile := map[string][]candidate{}
	for _, c := range chosen {
		perFile[c.path] = append(perFile[c.path], c)
	}
	for p, cs := range perFile {
		slices.SortFunc(cs, func(a, b candidate) int { return b.def.DocStart - a.def.DocStart })
		text := content[p]
		for _, c := range cs {
			s, e := lineSpan(text, c.def.DocStart, c.def.DocEnd)
			text = text[:s] + text[e:]
		}
		content[p] = text
	}

	var tasks []datasets.Task
	for _, c := range chosen {
		text := content[c.path]
		defs, err := parseDefinitions("python", c.path, []byte(text))
		if err != nil {
			return nil, nil, "", err
		}
		i, seen := -1, 0
		for j := range defs {
			if defs[j].Qualified == c.def.Qualified {
				if seen == c.ordinal {
					i = j
					break
				}
				seen++
			}
		}
		if i < 0 {
			return nil, nil, "", fmt.Errorf("%s: %s not found again after removing its docstring", c.path, c.def.Qualified)
		}
		d := defs[i]
		if d.DocStart >= 0 && d.DocText == c.def.DocText {
			return nil, nil, "", fmt.Errorf("%s: docstring of %s still present after removal", c.path, c.def.Qualified)
		}
		gid := c.path + "#" + c.def.Qualified
		tasks = append(tasks, datasets.Task{
			ID:       r.Repo + "::" + gid,
			Query:    c.summary,
			CorpusID: r.Repo,
			Gold:     []datasets.Relevant{{Kind: "needle", ID: gid, Grade: 1, Body: text[d.StartByte:d.EndByte], Language: "python"}},
			Meta:     datasets.Meta{Repo: r.Repo, Language: "python", Naming: QueryNaming(c.summary, c.def.Name)},
		})
	}
	note := fmt.Sprintf("%s: %d tasks from %d candidates (%d definitions with a docstring, %d files with candidates)",
		r.Repo, len(tasks), nCand, nDoc, len(byFile))
	return tasks, content, note, nil
}

// eligible applies the candidate rules of Generate and returns the summary.
func eligible(text string, d definition, cfg GeneratorConfig) (string, bool) {
	if d.Kind == "class" || d.InFunction || d.DocStart < 0 {
		return "", false
	}
	if strings.HasPrefix(d.Name, "__") && strings.HasSuffix(d.Name, "__") || strings.HasPrefix(d.Name, "test") {
		return "", false
	}
	s, e := lineSpan(text, d.DocStart, d.DocEnd)
	if strings.TrimSpace(text[s:d.DocStart]) != "" || strings.TrimSpace(text[d.DocEnd:e]) != "" {
		return "", false // docstring shares a line with code
	}
	if e >= d.EndByte || nonBlankLines(text[e:d.EndByte]) < cfg.MinBodyLines {
		return "", false
	}
	sum := summary(d.DocText, cfg.MaxSummaryWords)
	if len(strings.Fields(sum)) < cfg.MinSummaryWords {
		return "", false
	}
	return sum, true
}

// summary returns the first paragraph of a Python string literal's value,
// whitespace collapsed, cut to its first sentence past maxWords words.
func summary(lit string, maxWords int) string {
	s := strings.TrimLeftFunc(lit, func(r rune) bool { return strings.ContainsRune("rRuUbBfF", r) })
	for _, q := range []string{`"""`, `'''`, `"`, `'`} {
		if strings.HasPrefix(s, q) && strings.HasSuffix(s, q) && len(s) >= 2*len(q) {
			s = s[len(q) : len(s)-len(q)]
			break
		}
	}
	var para []string
	for _, line := range strings.Split(strings.TrimLeft(s, " \t\r\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			break
		}
		para = append(para, line)
	}
	out := collapse(strings.Join(para, " "))
	if strings.HasPrefix(out, ":") || strings.HasPrefix(out, ">>>") || strings.HasPrefix(out, "..") {
		return ""
	}
	// A paragraph that introduces a literal block ("Example::") ends with
	// that introduction; it is not part of the summary.
	if strings.HasSuffix(out, "::") {
		if i := strings.LastIndex(out, ". "); i > 0 {
			out = out[:i+1]
		} else {
			out = strings.TrimSuffix(out, ":")
		}
	}
	if len(strings.Fields(out)) > maxWords {
		if i := strings.Index(out, ". "); i > 0 {
			out = out[:i+1]
		}
	}
	return out
}

// collapse replaces every run of white space by one space and trims.
func collapse(s string) string {
	return strings.Join(strings.FieldsFunc(s, unicode.IsSpace), " ")
}

// lineSpan widens [start, end) to whole lines, including the newline.
func lineSpan(text string, start, end int) (int, int) {
	s := strings.LastIndexByte(text[:start], '\n') + 1
	e := len(text)
	if i := strings.IndexByte(text[end:], '\n'); i >= 0 {
		e = end + i + 1
	}
	return s, e
}

func nonBlankLines(s string) int {
	n := 0
	for _, l := range strings.Split(s, "\n") {
		if strings.TrimSpace(l) != "" {
			n++
		}
	}
	return n
}

func isTestPath(p string) bool {
	for _, seg := range strings.Split(path.Dir(p), "/") {
		if seg == "test" || seg == "tests" {
			return true
		}
	}
	b := path.Base(p)
	return strings.HasPrefix(b, "test_") || strings.HasSuffix(b, "_test.py") || b == "conftest.py"
}

func fnvString(s string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(s))
	return h.Sum64()
}
