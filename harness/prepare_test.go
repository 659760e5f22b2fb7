package harness

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/chunk"
	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
)

// wholeFiler is a scripted system that asks for whole files.
type wholeFiler struct{ scripted }

func (*wholeFiler) WholeFiles() bool { return true }

// TestPrepareKeepsTheFiles: a chunked corpus points to the files it was cut
// from, a corpus of sections to its files joined back, a corpus of whole
// files to nothing; Input hands those to a whole-file system; and none of
// it reaches the corpus hash.
func TestPrepareKeepsTheFiles(t *testing.T) {
	code := &corpus.Corpus{ID: "code", Docs: []corpus.Doc{
		{ID: "a.py", Path: "a.py", Kind: "file", Language: "python", Text: "import os\n\n\ndef f():\n    return 1\n\n\ndef g():\n    return 2\n"},
	}}
	sections := &corpus.Corpus{ID: "docs", Docs: []corpus.Doc{
		{ID: "d.md", Path: "d.md", Kind: "doc_section", StartLine: 1, EndLine: 2, Text: "# Title\nintro"},
		{ID: "d.md#use", Path: "d.md", Kind: "doc_section", StartLine: 3, EndLine: 4, Text: "## Use\nrun x"},
	}}
	plain := &corpus.Corpus{ID: "plain", Docs: []corpus.Doc{{ID: "n1", Text: "a note"}}}
	ds := &datasets.Dataset{Name: "unit", Split: "all",
		Corpora: map[string]*corpus.Corpus{"code": code, "docs": sections, "plain": plain},
		Tasks:   []datasets.Task{{ID: "t", Query: "q", CorpusID: "code", Gold: []datasets.Relevant{{Kind: "file", ID: "a.py", Grade: 1}}}},
	}
	p, err := Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)

	chunked, _, err := chunk.Corpus(code, chunk.DefaultOptions())
	require.NoError(t, err)
	require.Greater(t, len(chunked.Docs), 1, "the test needs a file cut into chunks")
	if got := p.Corpora["code"]; got.Hash() != chunked.Hash() || got.Files != code {
		t.Errorf("chunked corpus: hash %s (want the chunks' %s), Files %p (want the loaded corpus %p)", got.Hash(), chunked.Hash(), got.Files, code)
	}
	if got := p.Corpora["docs"]; got.Hash() != sections.Hash() || got.Files == nil ||
		!cmp.Equal(got.Files.Docs, WholeFiles(sections).Docs) {
		t.Errorf("sections: hash %s (want %s), Files %v (want the file joined back)", got.Hash(), sections.Hash(), got.Files)
	}
	if sections.Files != nil {
		t.Error("Prepare set Files on the dataset's own corpus")
	}
	if got := p.Corpora["plain"]; got != plain || got.Files != nil {
		t.Errorf("a corpus of whole docs: got %p with Files %v, want the loaded %p without", got, got.Files, plain)
	}

	whole, chunks := &wholeFiler{}, &scripted{}
	for _, id := range []string{"code", "docs", "plain"} {
		want := p.Corpora[id].Files
		if want == nil {
			want = p.Corpora[id]
		}
		if got := p.Input(whole, id); got != want {
			t.Errorf("%s: Input for a whole-file system is not the whole files", id)
		}
		if got := p.Input(chunks, id); got != p.Corpora[id] {
			t.Errorf("%s: Input for a chunk system is not the prepared corpus", id)
		}
	}
}

// TestPrepareExcludes: files the options exclude leave both the chunks and
// the whole files a whole-file system indexes, the counts and a note say
// so, a gold in an excluded file is named in the notes, and the options are
// part of the hash.
func TestPrepareExcludes(t *testing.T) {
	code := &corpus.Corpus{ID: "code", Docs: []corpus.Doc{
		{ID: "a.py", Path: "a.py", Kind: "file", Language: "python", Text: "def f():\n    return 1\n"},
		{ID: "testdata/big.json", Path: "testdata/big.json", Kind: "file", Text: "{\"a\": 1}\n"},
	}}
	ds := &datasets.Dataset{Name: "unit", Split: "all",
		Corpora: map[string]*corpus.Corpus{"code": code},
		Tasks: []datasets.Task{{ID: "t", Query: "q", CorpusID: "code", Gold: []datasets.Relevant{
			{Kind: "file", ID: "a.py", Grade: 1}, {Kind: "file", ID: "testdata/big.json", Grade: 2}}}},
	}
	def, err := Prepare(ds, chunk.DefaultOptions())
	require.NoError(t, err)
	require.Empty(t, def.Notes, "the catalogue's options exclude nothing")
	p, err := Prepare(ds, chunk.RepoOptions())
	require.NoError(t, err)
	for _, c := range []*corpus.Corpus{p.Corpora["code"], p.Corpora["code"].Files} {
		for _, d := range c.Docs {
			require.NotEqual(t, "testdata/big.json", d.Path, "an excluded file is indexed")
		}
	}
	require.Equal(t, 1, p.ChunkStats.Excluded.Files)
	require.Len(t, p.Notes, 2)
	require.Contains(t, p.Notes[0], "chunking: 1 files → 1 chunks")
	require.Contains(t, p.Notes[0], "excluded 1 files")
	require.Equal(t, "task t: gold file testdata/big.json is excluded by the chunking options: no system can find it", p.Notes[1])
	require.NotEqual(t, def.Hash, p.Hash)
	require.Equal(t, chunk.RepoOptions().Key(), p.Versions()["chunker"])
	require.Len(t, code.Docs, 2, "the dataset's corpus is not modified")

	bad := chunk.RepoOptions()
	bad.Exclude.Paths = []string{"[x"}
	_, err = Prepare(ds, bad)
	require.ErrorContains(t, err, `"[x"`)
}

// TestPrepareWith: each corpus is chunked with its own options (a
// manifest entry's excludes), and options that agree hash as Prepare's.
func TestPrepareWith(t *testing.T) {
	mk := func(id string) *corpus.Corpus {
		return &corpus.Corpus{ID: id, Docs: []corpus.Doc{
			{ID: "a.py", Path: "a.py", Kind: "file", Language: "python", Text: "def f():\n    return 1\n"},
			{ID: "testdata/in.json", Path: "testdata/in.json", Kind: "file", Text: "{\"a\": 1}\n"},
		}}
	}
	ds := &datasets.Dataset{Name: "unit", Split: "all",
		Corpora: map[string]*corpus.Corpus{"keep": mk("keep"), "drop": mk("drop")},
		Tasks:   []datasets.Task{{ID: "t", Query: "q", CorpusID: "keep", Gold: []datasets.Relevant{{Kind: "file", ID: "a.py", Grade: 1}}}},
	}
	keep := chunk.RepoOptions()
	keep.Exclude.Paths = append(keep.Exclude.Paths, "!testdata/")
	p, err := PrepareWith(ds, func(id string) chunk.Options {
		if id == "keep" {
			return keep
		}
		return chunk.RepoOptions()
	})
	require.NoError(t, err)
	paths := func(c *corpus.Corpus) []string {
		var out []string
		for _, d := range c.Docs {
			out = append(out, d.Path)
		}
		return out
	}
	require.Contains(t, paths(p.Corpora["keep"].Files), "testdata/in.json", "keep's own options bring testdata back")
	require.NotContains(t, paths(p.Corpora["drop"].Files), "testdata/in.json", "drop keeps the default exclusion")

	same, err := PrepareWith(ds, func(string) chunk.Options { return chunk.RepoOptions() })
	require.NoError(t, err)
	whole, err := Prepare(ds, chunk.RepoOptions())
	require.NoError(t, err)
	require.Equal(t, whole.Hash, same.Hash, "one set of options hashes as Prepare")
	require.NotEqual(t, whole.Hash, p.Hash)
}
