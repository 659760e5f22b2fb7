package repoqa

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func TestStructuralData(t *testing.T) {
	testenv.MustHaveData(t, StructuralFile)
	testenv.MustHaveData(t, CorporaFile)
	dir, _ := testenv.DataDir()
	rows, err := ReadStructural(dir + "/" + StructuralFile)
	require.NoError(t, err)
	require.Len(t, rows, 20)

	for _, load := range []struct {
		name string
		f    func(string, string, Config) (*datasets.Dataset, error)
	}{{NamePythonOfficialDesc, PythonOfficialDesc}, {NameStructural, Structural}} {
		t.Run(load.name, func(t *testing.T) {
			ds, err := load.f(dir, datasets.SplitAll, DefaultConfig())
			require.NoError(t, err)
			if ds.Name != load.name || len(ds.Tasks) != 20 || len(ds.Dropped) != 0 {
				t.Errorf("%s: %d tasks, dropped %v; want 20 tasks, none dropped", ds.Name, len(ds.Tasks), ds.Dropped)
			}
			for _, n := range ds.Notes {
				if strings.Contains(n, "drift") {
					t.Errorf("unexpected commit drift: %s", n)
				}
			}
			for i, tk := range ds.Tasks {
				row := rows[i]
				if tk.Query != strings.TrimSpace(row.Query) {
					t.Errorf("%s: query is not the row's official description", tk.ID)
				}
				g := tk.Gold[0]
				path, qname, _ := strings.Cut(g.ID, "#")
				c := ds.Corpora[tk.CorpusID]
				doc := c.Docs[c.Lookup()[path]]
				if !strings.Contains(doc.Text, g.Body) {
					t.Errorf("%s: gold body not in %s", tk.ID, path)
				}
				wantQ := row.SeedQName
				if load.name == NameStructural {
					wantQ = row.GoldQName
					if g.Body != row.GoldASTBody {
						t.Errorf("%s: structural gold body is not gold_ast_body", tk.ID)
					}
				} else if path != row.NeedlePath {
					t.Errorf("%s: gold path %s, want needle_path %s", tk.ID, path, row.NeedlePath)
				}
				if !strings.HasSuffix(wantQ, "."+qname) {
					t.Errorf("%s: gold %s does not resolve %s", tk.ID, g.ID, wantQ)
				}
				name := qname[strings.LastIndex(qname, ".")+1:]
				if !strings.Contains(g.Body, "def "+name) && !strings.Contains(g.Body, "class "+name) {
					t.Errorf("%s: body does not define %s", tk.ID, name)
				}
			}
		})
	}
}

func TestStructuralMissingField(t *testing.T) {
	p := writeFile(t, "s.json", `{"python": [{"query": "q", "repo": "r", "commit": "c", "needle_path": "a.py", "seed_qname": "a.f", "gold_qname": "a.g"}]}`)
	_, err := ReadStructural(p)
	if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), `python[0]: missing field "gold_ast_body"`) {
		t.Errorf("ReadStructural error = %v, want the file and the missing field", err)
	}
}

func TestMiniData(t *testing.T) {
	testenv.MustHaveData(t, MiniFile)
	dir, _ := testenv.DataDir()
	ds, err := Mini(dir, datasets.SplitAll, DefaultConfig())
	require.NoError(t, err)
	require.Len(t, ds.Tasks, 5)
	// The seed's fixture has hand-written byte offsets; every needle is
	// located by name instead, and each correction is a note.
	if len(ds.Notes) != 5 {
		t.Errorf("notes %v, want one per corrected needle", ds.Notes)
	}
	for _, tk := range ds.Tasks {
		_, name, _ := strings.Cut(tk.Gold[0].ID, "#")
		if !strings.HasPrefix(tk.Gold[0].Body, "def "+name+"(") {
			t.Errorf("%s: body %q does not start with the definition", tk.ID, tk.Gold[0].Body)
		}
	}
}
