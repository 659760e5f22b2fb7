// Package sweqa loads SWE-QA-Bench: per-repository questions whose
// free-text answers cite repository files, over corpora of the repositories
// at their pinned commits ({path, text} JSON Lines, one file per line).
//
// SWE-QA has no qrels. The gold of a task is a set of file-level
// pseudo-qrels extracted from its answer (see Resolver.Resolve): good for
// comparing retrieval configurations against each other, not a measure of
// absolute retrieval quality. Rows whose answer cites nothing resolvable are
// dropped and listed in Dataset.Dropped with the reason, never silently.
//
// The package also reads the seed harness's fixtures unchanged (LoadSeed):
// SWE-QA rows {question, answer} and SWE-QA-Pro rows, which add repo,
// commit_id, cluster and qa_type (Meta.QAType = qa_type.class_name).
package sweqa

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	"github.com/retrievalbench/retrievalbench/codetext"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// Folder is the dataset's folder inside a data directory.
const Folder = "swe-qa"

// Config selects what Load reads.
type Config struct {
	// Repos lists short repository names ("flask", "scikit-learn"); empty
	// means every questions/*.jsonl file.
	Repos []string
	// Split is the datasets split (stratified by repository); "" = all.
	Split       string
	SplitConfig datasets.SplitConfig
}

// DefaultConfig reads every repository, every task.
func DefaultConfig() Config {
	return Config{Split: datasets.SplitAll, SplitConfig: datasets.DefaultSplitConfig()}
}

// repoInfo is one line of repo_commit.txt, plus what PROVENANCE.md says
// about the corpus actually built.
type repoInfo struct {
	full   string // "pallets/flask"
	pinned string // commit from repo_commit.txt (short)
	used   string // commit the corpus was built from, when known
}

// Load reads <dataDir>/swe-qa: questions/*.jsonl, repo_commit.txt and
// corpora/<repo>.jsonl[.gz]. A repository without a corpus keeps its rows
// as Dropped with that reason.
func Load(dataDir string, cfg Config) (*datasets.Dataset, error) {
	dir := filepath.Join(dataDir, Folder)
	repos, err := readRepoCommits(filepath.Join(dir, "repo_commit.txt"))
	if err != nil {
		return nil, err
	}
	readProvenance(filepath.Join(dir, "PROVENANCE.md"), repos)

	names := cfg.Repos
	if len(names) == 0 {
		files, err := filepath.Glob(filepath.Join(dir, "questions", "*.jsonl"))
		if err != nil {
			return nil, err
		}
		for _, f := range files {
			names = append(names, strings.TrimSuffix(filepath.Base(f), ".jsonl"))
		}
		if len(names) == 0 {
			return nil, fmt.Errorf("%s: no questions/*.jsonl files", dir)
		}
	}
	sort.Strings(names)

	ds := &datasets.Dataset{Name: "swe-qa", Split: "all", Corpora: map[string]*corpus.Corpus{}}
	ds.Notes = append(ds.Notes, "gold = file-level pseudo-qrels extracted from the answers' citations: good for comparing configs, not absolute IR quality")
	for _, name := range names {
		info, ok := repos[name]
		if !ok {
			return nil, fmt.Errorf("%s: repository %q not listed in repo_commit.txt", filepath.Join(dir, "questions", name+".jsonl"), name)
		}
		rows, err := readRows(filepath.Join(dir, "questions", name+".jsonl"))
		if err != nil {
			return nil, err
		}
		cfile, err := datafile.Find(filepath.Join(dir, "corpora", name+".jsonl"))
		if err != nil {
			for _, r := range rows {
				ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: name + "/" + r.id, Reason: "no corpus for " + info.full + " in the data directory"})
			}
			ds.Notes = append(ds.Notes, fmt.Sprintf("%s: no corpus, %d questions dropped", info.full, len(rows)))
			continue
		}
		commit := info.pinned
		if info.used == "" {
			// A corpus built by retrievalbench data fetch records its commit.
			if b, err := os.ReadFile(filepath.Join(dir, "corpora", name+".commit")); err == nil {
				info.used = strings.TrimSpace(string(b))
			}
		}
		if info.used != "" {
			commit = info.used
			if !strings.HasPrefix(info.used, info.pinned) {
				ds.Notes = append(ds.Notes, fmt.Sprintf("commit drift: %s corpus built from %s, benchmark pins %s; answers citing files absent at the used commit lose those citations", info.full, info.used, info.pinned))
			}
		}
		c, err := ReadCorpus(cfile, info.full, commit)
		if err != nil {
			return nil, err
		}
		ds.Corpora[c.ID] = c
		addTasks(ds, rows, c, name, info.full)
	}
	return split(ds, cfg.Split, cfg.SplitConfig)
}

// split keeps the tasks of the named split, stratified by repository.
func split(ds *datasets.Dataset, name string, sc datasets.SplitConfig) (*datasets.Dataset, error) {
	if name == "" {
		name = datasets.SplitAll
	}
	sc = sc.OrDefault(ds.Name)
	tasks, err := datasets.Split(ds.Tasks, name, sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	ds.Tasks, ds.Split = tasks, name
	return ds, nil
}

// LoadSeed reads the seed harness's SWE-QA or SWE-QA-Pro fixture: a
// questions JSONL file and a {path, text} corpus JSONL file, unchanged.
func LoadSeed(questionsFile, corpusFile string) (*datasets.Dataset, error) {
	rows, err := readRows(questionsFile)
	if err != nil {
		return nil, err
	}
	id := strings.TrimSuffix(filepath.Base(corpusFile), ".jsonl")
	c, err := ReadCorpus(corpusFile, id, "")
	if err != nil {
		return nil, err
	}
	// The name says where the rows came from, so that a seed fixture never
	// shares a golden file with the benchmark proper.
	kind := "swe-qa"
	for _, r := range rows {
		if r.qaType != "" {
			kind = "swe-qa-pro"
			break
		}
	}
	name := kind + "-seed-" + strings.TrimSuffix(filepath.Base(questionsFile), ".jsonl")
	ds := &datasets.Dataset{Name: name, Split: "all", Corpora: map[string]*corpus.Corpus{c.ID: c}}
	addTasks(ds, rows, c, strings.TrimSuffix(filepath.Base(questionsFile), ".jsonl"), "")
	return ds, nil
}

func addTasks(ds *datasets.Dataset, rows []row, c *corpus.Corpus, prefix, repo string) {
	paths := make([]string, len(c.Docs))
	for i, d := range c.Docs {
		paths[i] = d.Path
	}
	res := NewResolver(paths)
	for _, r := range rows {
		id := prefix + "/" + r.id
		files := res.Resolve(r.answer)
		if len(files) == 0 {
			ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: id, Reason: "answer cites no file resolvable in the corpus"})
			continue
		}
		t := datasets.Task{ID: id, Query: r.question, CorpusID: c.ID, Meta: datasets.Meta{Repo: repo, QAType: r.qaType}}
		if r.repo != "" {
			t.Meta.Repo = r.repo
		}
		for _, f := range files {
			t.Gold = append(t.Gold, datasets.Relevant{Kind: "file", ID: f, Grade: 1})
		}
		ds.Tasks = append(ds.Tasks, t)
	}
}

// row is one question line; SWE-QA-Pro fields are optional.
type row struct {
	id       string // 1-based line number
	question string
	answer   string
	repo     string
	qaType   string
}

type rawRow struct {
	Question *string `json:"question"`
	Answer   *string `json:"answer"`
	Repo     string  `json:"repo"`
	CommitID string  `json:"commit_id"`
	QAType   *struct {
		ClassName    string `json:"class_name"`
		SubClassName string `json:"sub_class_name"`
	} `json:"qa_type"`
}

func readRows(file string) ([]row, error) {
	var rows []row
	err := datafile.EachLine(file, func(line int, b []byte) error {
		var raw rawRow
		if err := json.Unmarshal(b, &raw); err != nil {
			return &fileline.Error{File: file, Line: line, Err: err}
		}
		switch {
		case raw.Question == nil:
			return fileline.Errorf(file, line, "missing \"question\"")
		case strings.TrimSpace(*raw.Question) == "":
			return fileline.Errorf(file, line, "empty question")
		case raw.Answer == nil:
			return fileline.Errorf(file, line, "missing \"answer\"")
		}
		r := row{id: fmt.Sprint(line), question: *raw.Question, answer: *raw.Answer, repo: raw.Repo}
		if raw.QAType != nil {
			r.qaType = raw.QAType.ClassName
		}
		rows = append(rows, r)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no questions", file)
	}
	return rows, nil
}

// ReadCorpus reads a {path, text} JSON Lines file (gzip when it ends in
// .gz) into a corpus of whole files: Kind "file", ID = Path, Language
// "python" for .py/.pyi and "" for text files.
func ReadCorpus(file, id, commit string) (*corpus.Corpus, error) {
	c := &corpus.Corpus{ID: id, Commit: commit}
	seen := make(map[string]int)
	err := datafile.EachLine(file, func(line int, b []byte) error {
		var d struct {
			Path *string `json:"path"`
			Text *string `json:"text"`
		}
		if err := json.Unmarshal(b, &d); err != nil {
			return &fileline.Error{File: file, Line: line, Err: err}
		}
		switch {
		case d.Path == nil || *d.Path == "":
			return fileline.Errorf(file, line, "missing \"path\"")
		case d.Text == nil:
			return fileline.Errorf(file, line, "missing \"text\"")
		case path.IsAbs(*d.Path) || strings.HasPrefix(path.Clean(*d.Path), "..") || strings.Contains(*d.Path, "\\"):
			return fileline.Errorf(file, line, "path %q escapes the corpus root", *d.Path)
		}
		if prev, dup := seen[*d.Path]; dup {
			return fileline.Errorf(file, line, "duplicate path %q (first on line %d)", *d.Path, prev)
		}
		seen[*d.Path] = line
		c.Docs = append(c.Docs, corpus.Doc{ID: *d.Path, Path: *d.Path, Kind: "file", Language: Language(*d.Path), Text: *d.Text})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Language names the programming language of a file by its extension
// (the chunker's names), "" for prose and configuration.
func Language(p string) string { return codetext.LanguageOf(p) }

func readRepoCommits(file string) (map[string]*repoInfo, error) {
	repos := make(map[string]*repoInfo)
	err := datafile.EachLine(file, func(line int, b []byte) error {
		f := strings.Fields(string(b))
		if len(f) != 2 {
			return fileline.Errorf(file, line, "want \"URL COMMIT\", got %q", string(b))
		}
		parts := strings.Split(strings.TrimSuffix(f[0], "/"), "/")
		if len(parts) < 2 {
			return fileline.Errorf(file, line, "repository URL %q has no owner/name", f[0])
		}
		full := parts[len(parts)-2] + "/" + parts[len(parts)-1]
		repos[parts[len(parts)-1]] = &repoInfo{full: full, pinned: f[1]}
		return nil
	})
	return repos, err
}

// readProvenance fills repoInfo.used from the corpora table of the data
// pack's PROVENANCE.md (| `flask.jsonl.gz` | pallets/flask | pinned | `used` | …).
// A missing file or an unknown layout leaves used empty: the pinned commit
// is then all that is known.
func readProvenance(file string, repos map[string]*repoInfo) {
	b, err := os.ReadFile(file)
	if err != nil {
		return
	}
	for _, l := range strings.Split(string(b), "\n") {
		cells := strings.Split(l, "|")
		if len(cells) < 6 {
			continue
		}
		name := strings.Trim(strings.TrimSpace(cells[1]), "`")
		short, ok := strings.CutSuffix(name, ".jsonl.gz")
		if !ok {
			continue
		}
		used := strings.Trim(strings.TrimSpace(cells[4]), "`")
		if info, ok := repos[short]; ok && len(used) == 40 {
			info.used = used
		}
	}
}
