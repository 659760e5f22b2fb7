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
