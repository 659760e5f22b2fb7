package repoqa

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

// docAudit is one language's generation as docs/repoqa-languages.md
// reports it: tasks, tasks with a decoy (another documented definition
// whose summary shares ≥ DefaultDecoyOverlap of the query's words keeps its
// comment indexed), tasks whose query names the target exactly or by parts.
type docAudit struct {
	tasks, decoy, exact, parts, rejected int
}

func (a docAudit) String() string {
	pct := func(n int) string { return fmt.Sprintf("%d (%.1f%%)", n, 100*float64(n)/float64(max(a.tasks, 1))) }
	return fmt.Sprintf("tasks %d, with a decoy %s, names exact %s, exact or by parts %s, passed over %d",
		a.tasks, pct(a.decoy), pct(a.exact), pct(a.exact+a.parts), a.rejected)
}

func auditDoc(t *testing.T, rel *Release, lang string, cfg GeneratorConfig) (docAudit, []string) {
	var a docAudit
	var lines []string
	repos := slices.Clone(rel.Repos)
	slices.SortFunc(repos, func(x, y Repo) int { return strings.Compare(x.Repo, y.Repo) })
	for i := range repos {
		if repos[i].Language != lang {
			continue
		}
		tasks, _, _, st, err := generateDocRepoStats(&repos[i], lang, cfg)
		require.NoError(t, err)
		a.rejected += st.rejected
		for j, tk := range tasks {
			a.tasks++
			if st.decoys[j] > 0 {
				a.decoy++
			}
			switch tk.Meta.Naming {
			case NamesExact:
				a.exact++
			case NamesParts:
				a.parts++
			}
			lines = append(lines, fmt.Sprintf("%s\t%d\t%s\t%s", tk.ID, st.decoys[j], tk.Meta.Naming, tk.Query))
		}
	}
	return a, lines
}

// TestDocAuditData measures every language's tasks with the decoy rule off
// (as before it) and on: the rule leaves no task with a decoy, and keeps
// at least 90% of the tasks. RETRIEVALBENCH_AUDIT_DIR, when set, receives
// one line per task (id, decoys, naming, query) per language and rule.
func TestDocAuditData(t *testing.T) {
	dump := os.Getenv("RETRIEVALBENCH_AUDIT_DIR")
	for _, lang := range DocLanguages() {
		t.Run(lang, func(t *testing.T) {
			testenv.MustHaveData(t, DocCorporaFile(lang))
			dir, _ := testenv.DataDir()
			rel, err := ReadRelease(filepath.Join(dir, filepath.FromSlash(DocCorporaFile(lang))))
			require.NoError(t, err)
			off := DefaultGeneratorConfig()
			off.DecoyOverlap = 0
			before, bl := auditDoc(t, rel, lang, off)
			after, al := auditDoc(t, rel, lang, DefaultGeneratorConfig())
			t.Logf("%s without the decoy rule: %v", lang, before)
			t.Logf("%s with it (overlap ≥ %g): %v", lang, DefaultDecoyOverlap, after)
			if after.decoy != 0 {
				t.Errorf("%d tasks keep a decoy under the rule", after.decoy)
			}
			if before.decoy == 0 {
				t.Errorf("no decoy without the rule: the measure finds nothing")
			}
			if after.tasks*10 < before.tasks*9 {
				t.Errorf("the rule keeps %d of %d tasks, want at least 90%%", after.tasks, before.tasks)
			}
			if slices.Contains(MaskedLanguages(), lang) {
				mc := DefaultGeneratorConfig()
				mc.MaskLeadingName = true
				masked, ml := auditDoc(t, rel, lang, mc)
				t.Logf("%s masked: %v", lang, masked)
				if masked.tasks != after.tasks || masked.exact*2 > after.exact {
					t.Errorf("masking kept %d of %d tasks and %d of %d exact namings", masked.tasks, after.tasks, masked.exact, after.exact)
				}
				if dump != "" {
					require.NoError(t, os.WriteFile(filepath.Join(dump, lang+"-masked.tsv"), []byte(strings.Join(ml, "\n")+"\n"), 0o644))
				}
			}
			if dump != "" {
				require.NoError(t, os.WriteFile(filepath.Join(dump, lang+"-before.tsv"), []byte(strings.Join(bl, "\n")+"\n"), 0o644))
				require.NoError(t, os.WriteFile(filepath.Join(dump, lang+"-after.tsv"), []byte(strings.Join(al, "\n")+"\n"), 0o644))
			}
		})
	}
}

// TestDocAuditPython measures repoqa-python-docstring the same way, for
// the reference column of the language tables (its generator has no
// decoy rule): decoys among every other docstring summary of the
// repository (their docstrings stay indexed), naming as QueryNaming.
func TestDocAuditPython(t *testing.T) {
	p := testenv.MustHaveData(t, CorporaFile)
	rel, err := ReadRelease(p)
	require.NoError(t, err)
	ds, err := Generate(rel, DefaultGeneratorConfig())
	require.NoError(t, err)
	var a docAudit
	for _, r := range rel.Repos {
		if r.Language != "python" {
			continue
		}
		type doc struct {
			id    string
			words map[string]bool
		}
		var docs []doc
		for path, text := range r.Content {
			if !strings.HasSuffix(path, ".py") {
				continue
			}
			defs, err := parseDefinitions("python", path, []byte(text))
			require.NoError(t, err)
			for _, d := range defs {
				if d.DocStart >= 0 {
					docs = append(docs, doc{path + "#" + d.Qualified, summaryWords(summary(d.DocText, 40))})
				}
			}
		}
		chosen := map[string]bool{}
		for _, tk := range ds.Tasks {
			if tk.CorpusID == r.Repo {
				chosen[tk.Gold[0].ID] = true
			}
		}
		for _, tk := range ds.Tasks {
			if tk.CorpusID != r.Repo {
				continue
			}
			a.tasks++
			q := summaryWords(tk.Query)
			for _, d := range docs {
				if !chosen[d.id] && overlapSets(q, d.words) >= DefaultDecoyOverlap {
					a.decoy++
					break
				}
			}
			switch tk.Meta.Naming {
			case NamesExact:
				a.exact++
			case NamesParts:
				a.parts++
			}
		}
	}
	t.Logf("python: %v", a)
	if a.tasks != len(ds.Tasks) || a.exact+a.parts == 0 {
		t.Errorf("audited %d of %d tasks, %d named", a.tasks, len(ds.Tasks), a.exact+a.parts)
	}
}
