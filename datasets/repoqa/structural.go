package repoqa

import (
	"encoding/json"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/datafile"
)

// StructuralRow is one row of pydocs-eval/structural_recall.json: an
// official RepoQA needle description (Query) of the function SeedQName in
// NeedlePath, and a 1-hop call-graph neighbour of it (GoldQName, its source
// GoldASTBody, GoldKind "caller", "callee" or "override").
type StructuralRow struct {
	Query       string `json:"query"`
	Repo        string `json:"repo"`
	Commit      string `json:"commit"`
	NeedlePath  string `json:"needle_path"`
	SeedQName   string `json:"seed_qname"`
	GoldQName   string `json:"gold_qname"`
	GoldASTBody string `json:"gold_ast_body"`
	GoldKind    string `json:"gold_kind"`
	HopDistance int    `json:"hop_distance"`
}

// ReadStructural reads and validates structural_recall.json ({"python": [rows]}).
func ReadStructural(file string) ([]StructuralRow, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("reading structural rows: %w", err)
	}
	var top map[string][]map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return nil, datafile.JSONError(file, data, err)
	}
	var rows []StructuralRow
	for lang, list := range top {
		if lang != "python" {
			return nil, fmt.Errorf("%s: %q: %w (structural rows are Python only)", file, lang, ErrUnknownLanguage)
		}
		for i, raw := range list {
			for _, f := range []string{"query", "repo", "commit", "needle_path", "seed_qname", "gold_qname", "gold_ast_body"} {
				if _, ok := raw[f]; !ok {
					return nil, fmt.Errorf("%s: python[%d]: %w %q", file, i, ErrMissingField, f)
				}
			}
			b, _ := json.Marshal(raw)
			var r StructuralRow
			if err := json.Unmarshal(b, &r); err != nil {
				return nil, fmt.Errorf("%s: python[%d]: %w", file, i, err)
			}
			rows = append(rows, r)
		}
	}
	return rows, nil
}

// PythonOfficialDesc loads repoqa-python-official-desc: the official RepoQA
// descriptions of structural_recall.json as SNF tasks over the data pack's
// RepoQA Python corpora; gold = the described needle (SeedQName in
// NeedlePath), its body taken from the corpus file by tree-sitter qualified
// name. Rows describing the same needle twice become one task.
func PythonOfficialDesc(dataDir, split string, cfg Config) (*datasets.Dataset, error) {
	return structural(NamePythonOfficialDesc, dataDir, split, cfg)
}

// Structural loads repoqa-structural (the seed's structural split): the same
// queries, gold = the 1-hop neighbour GoldQName. Its body is GoldASTBody when
// that text occurs verbatim in the corpus, else the definition found by
// qualified name (noted).
func Structural(dataDir, split string, cfg Config) (*datasets.Dataset, error) {
	return structural(NameStructural, dataDir, split, cfg)
}

func structural(name, dataDir, split string, cfg Config) (*datasets.Dataset, error) {
	sfile := filepath.Join(dataDir, filepath.FromSlash(StructuralFile))
	rows, err := ReadStructural(sfile)
	if err != nil {
		return nil, err
	}
	rel, err := ReadRelease(filepath.Join(dataDir, filepath.FromSlash(CorporaFile)))
	if err != nil {
		return nil, err
	}
	repos := map[string]*Repo{}
	for i := range rel.Repos {
		repos[rel.Repos[i].Repo] = &rel.Repos[i]
	}
	ds := &datasets.Dataset{Name: name, Split: split, Corpora: rel.Corpora()}
	ds.Notes = append(ds.Notes, "queries are official RepoQA-2024-06-23 needle descriptions carried by "+StructuralFile)
	drift := map[string]bool{}
	seen := map[string]bool{}
	for i, row := range rows {
		where := fmt.Sprintf("%s: python[%d]", sfile, i)
		r, ok := repos[row.Repo]
		if !ok {
			ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: fmt.Sprintf("row %d", i), Reason: fmt.Sprintf("%s: repo %s not in %s", where, row.Repo, CorporaFile)})
			continue
		}
		if row.Commit != r.CommitSHA && !drift[row.Repo] {
			drift[row.Repo] = true
			ds.Notes = append(ds.Notes, fmt.Sprintf("commit drift: %s rows name %s, corpus is at %s", row.Repo, row.Commit, r.CommitSHA))
		}
		var t datasets.Task
		var note string
		if name == NamePythonOfficialDesc {
			t, err = seedTask(r, row)
			if err == nil && seen[t.ID] {
				ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: t.ID, Reason: fmt.Sprintf("%s: describes the same needle as an earlier row", where)})
				continue
			}
		} else {
			t, note, err = neighbourTask(r, row, i)
		}
		if err != nil {
			ds.Dropped = append(ds.Dropped, datasets.Dropped{ID: fmt.Sprintf("row %d", i), Reason: fmt.Sprintf("%s: %v", where, err)})
			continue
		}
		if note != "" {
			ds.Notes = append(ds.Notes, fmt.Sprintf("%s: %s", t.ID, note))
		}
		seen[t.ID] = true
		ds.Tasks = append(ds.Tasks, t)
	}
	return finish(ds, cfg)
}

func seedTask(r *Repo, row StructuralRow) (datasets.Task, error) {
	mod := moduleName(r.EntrypointPath, row.NeedlePath)
	local, ok := strings.CutPrefix(row.SeedQName, mod+".")
	if !ok {
		return datasets.Task{}, fmt.Errorf("seed_qname %s is not in module %s (%s)", row.SeedQName, mod, row.NeedlePath)
	}
	body, err := findDef(r, row.NeedlePath, local)
	if err != nil {
		return datasets.Task{}, err
	}
	gid := row.NeedlePath + "#" + local
	return datasets.Task{
		ID:       r.Repo + "::" + gid,
		Query:    strings.TrimSpace(row.Query),
		CorpusID: r.Repo,
		Gold:     []datasets.Relevant{{Kind: "needle", ID: gid, Grade: 1, Body: body, Language: "python"}},
		Meta:     datasets.Meta{Repo: r.Repo, Language: "python"},
	}, nil
}

func neighbourTask(r *Repo, row StructuralRow, i int) (datasets.Task, string, error) {
	p, local, ok := resolveQName(r, row.GoldQName)
	if !ok {
		return datasets.Task{}, "", fmt.Errorf("gold_qname %s: no module of %s defines it", row.GoldQName, r.Repo)
	}
	body, err := findDef(r, p, local)
	if err != nil {
		return datasets.Task{}, "", err
	}
	note := ""
	if strings.Contains(r.Content[p], row.GoldASTBody) {
		body = row.GoldASTBody
	} else {
		note = fmt.Sprintf("gold_ast_body of %s is not verbatim in %s; gold body is the tree-sitter definition", row.GoldQName, p)
	}
	gid := p + "#" + local
	return datasets.Task{
		ID:       fmt.Sprintf("%s::%s->%s", r.Repo, row.SeedQName, row.GoldQName),
		Query:    strings.TrimSpace(row.Query),
		CorpusID: r.Repo,
		Gold:     []datasets.Relevant{{Kind: "needle", ID: gid, Grade: 1, Body: body, Language: "python"}},
		Meta:     datasets.Meta{Repo: r.Repo, Language: "python", Intent: row.GoldKind},
	}, note, nil
}

// moduleName is the dotted Python module of a file: its path relative to the
// parent of the repository's entrypoint, without ".py" or "/__init__.py".
func moduleName(entrypoint, p string) string {
	root := path.Dir(strings.TrimSuffix(entrypoint, "/"))
	rel := p
	if root != "." && root != "" {
		rel = strings.TrimPrefix(p, root+"/")
	}
	rel = strings.TrimSuffix(rel, ".py")
	rel = strings.TrimSuffix(rel, "/__init__")
	return strings.ReplaceAll(rel, "/", ".")
}

// resolveQName finds the file and local qualified name of a dotted name,
// preferring the longest module prefix.
func resolveQName(r *Repo, q string) (string, string, bool) {
	mods := map[string]string{}
	for p := range r.Content {
		mods[moduleName(r.EntrypointPath, p)] = p
	}
	parts := strings.Split(q, ".")
	for k := len(parts) - 1; k >= 1; k-- {
		if p, ok := mods[strings.Join(parts[:k], ".")]; ok {
			local := strings.Join(parts[k:], ".")
			if _, err := findDef(r, p, local); err == nil {
				return p, local, true
			}
		}
	}
	return "", "", false
}

// findDef returns the source of the first definition named local
// ("Class.method") in file p.
func findDef(r *Repo, p, local string) (string, error) {
	text, ok := r.Content[p]
	if !ok {
		return "", fmt.Errorf("%s not in the corpus of %s", p, r.Repo)
	}
	defs, err := parseDefinitions("python", p, []byte(text))
	if err != nil {
		return "", err
	}
	for _, d := range defs {
		if d.Qualified == local {
			return text[d.StartByte:d.EndByte], nil
		}
	}
	return "", fmt.Errorf("%s: no definition %s", p, local)
}
