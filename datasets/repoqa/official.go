package repoqa

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/datasets"
)

// Dataset names. Only repoqa-official and repoqa-python-official-desc carry
// the official (GPT-4 written) needle descriptions; repoqa-python-docstring
// queries are docstring summaries made by this package's generator.
const (
	NameOfficial           = "repoqa-official"
	NameFixture            = "repoqa-fixture"
	NameMini               = "repoqa-mini"
	NamePythonDocstring    = "repoqa-python-docstring"
	NamePythonOfficialDesc = "repoqa-python-official-desc"
	NameStructural         = "repoqa-structural"
)

// Files inside the data pack (RETRIEVALBENCH_DATA) and the module.
const (
	CorporaFile    = "repoqa/repoqa-python-corpora.json.gz"
	StructuralFile = "pydocs-eval/structural_recall.json"
	MiniFile       = "pydocs-eval/repoqa_mini.json"
	// FixtureFile is relative to the module root.
	FixtureFile = "fixtures/repoqa/repoqa-fixture.json"
)

// Config tunes the loaders.
type Config struct {
	Split     datasets.SplitConfig // Salt is set to the dataset name when empty
	Generator GeneratorConfig      // repoqa-python-docstring only
	// Repos, when set, limits the doc-comment generator (DocComment) to
	// these repositories. Each repository's tasks and split are made
	// independently, so this equals restricting the whole dataset, at a
	// fraction of the cost.
	Repos []string
}

// DefaultConfig returns the default split and generator settings.
func DefaultConfig() Config {
	return Config{Split: datasets.DefaultSplitConfig(), Generator: DefaultGeneratorConfig()}
}

// Official loads the official release file (repoqa-2024-06-23.json[.gz],
// see Fetch): query = needle description, gold = the needle function.
func Official(file, split string, cfg Config) (*datasets.Dataset, error) {
	return FromRelease(NameOfficial, file, split, cfg)
}

// Fixture loads the module's hermetic fixture (FixtureFile, official schema).
func Fixture(file, split string, cfg Config) (*datasets.Dataset, error) {
	return FromRelease(NameFixture, file, split, cfg)
}

// Mini loads the seed harness's own fixture (MiniFile in the data pack)
// unchanged. Its byte offsets are hand-written and do not all delimit the
// needle; FromRelease then locates the needle by name and says so in Notes.
func Mini(dataDir, split string, cfg Config) (*datasets.Dataset, error) {
	return FromRelease(NameMini, filepath.Join(dataDir, filepath.FromSlash(MiniFile)), split, cfg)
}

// FromRelease loads any file in the release schema as a dataset named
// name: one task per needle (ID "LANG::REPO::NAME" as in RepoQA's
// make_task_id), query = the description, one gold Relevant of Kind
// "needle" with ID "PATH#NAME" and Body the function's source.
//
// The body is the needle's byte range when tree-sitter confirms that a
// definition named Name spans exactly those bytes. Otherwise the
// definition named Name nearest to the needle's lines is used and a Note
// records the mismatch; a needle whose name is not defined in its file is
// Dropped with the reason.
func FromRelease(name, file, split string, cfg Config) (*datasets.Dataset, error) {
	rel, err := ReadRelease(file)
	if err != nil {
		return nil, err
	}
	ds := &datasets.Dataset{Name: name, Split: split, Corpora: rel.Corpora()}
	seen := map[string]bool{}
	for i := range rel.Repos {
		r := &rel.Repos[i]
		for _, n := range r.Needles {
			id := fmt.Sprintf("%s::%s::%s", r.Language, r.Repo, n.Name)
			if seen[id] {
				return nil, fmt.Errorf("%s: %s: duplicate needle %q (task IDs follow RepoQA's LANG::REPO::NAME)", file, r.Repo, n.Name)
			}
			seen[id] = true
			if strings.TrimSpace(n.Description) == "" {
				return nil, fmt.Errorf("%s: %s: needle %q: %w \"description\"", file, r.Repo, n.Name, ErrMissingField)
			}
			body, note, err := needleBody(r, n)
			if err != nil {
				ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: id, Reason: err.Error()})
				continue
			}
			if note != "" {
				ds.Notes = append(ds.Notes, fmt.Sprintf("%s: %s", id, note))
			}
			lang := LanguageOf(n.Path, r.Language)
			ds.Tasks = append(ds.Tasks, datasets.Task{
				ID:       id,
				Query:    strings.TrimSpace(n.Description),
				CorpusID: r.Repo,
				Gold:     []datasets.Relevant{{Kind: "needle", ID: n.Path + "#" + n.Name, Grade: 1, Body: body, Language: lang}},
				Meta:     datasets.Meta{Repo: r.Repo, Language: lang},
			})
		}
	}
	return finish(ds, cfg)
}

// needleBody returns the source of needle n and, when its byte range had
// to be corrected, a note saying so.
func needleBody(r *Repo, n Needle) (body, note string, err error) {
	text := r.Content[n.Path]
	lang := LanguageOf(n.Path, r.Language)
	defs, err := parseDefinitions(lang, n.Path, []byte(text))
	if err != nil {
		return "", "", err
	}
	var best *definition
	for i := range defs {
		d := &defs[i]
		if d.Name != n.Name {
			continue
		}
		if d.StartByte == n.StartByte && d.EndByte == n.EndByte {
			return text[n.StartByte:n.EndByte], "", nil
		}
		// Release lines are 0-based (start_line = row of the def).
		if best == nil || abs(d.StartLine-1-n.StartLine) < abs(best.StartLine-1-n.StartLine) {
			best = d
		}
	}
	if best == nil {
		return "", "", fmt.Errorf("needle %q: no definition of that name in %s", n.Name, n.Path)
	}
	return text[best.StartByte:best.EndByte],
		fmt.Sprintf("byte range [%d,%d) is not the definition of %s; used the tree-sitter definition at bytes [%d,%d), lines %d-%d",
			n.StartByte, n.EndByte, n.Name, best.StartByte, best.EndByte, best.StartLine, best.EndLine), nil
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// finish applies the split to ds.Tasks and drops corpora no task uses.
func finish(ds *datasets.Dataset, cfg Config) (*datasets.Dataset, error) {
	sc := cfg.Split
	if sc.Salt == "" {
		sc.Salt = ds.Name
	}
	tasks, err := datasets.Split(ds.Tasks, ds.Split, sc)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", ds.Name, err)
	}
	ds.Tasks = tasks
	used := map[string]bool{}
	for _, t := range tasks {
		used[t.CorpusID] = true
	}
	for id := range ds.Corpora {
		if !used[id] {
			delete(ds.Corpora, id)
		}
	}
	return ds, nil
}
