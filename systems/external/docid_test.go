package external

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/external/internal/template"
)

// abstracts is a document collection as TREC and BEIR loaders give it: ids
// and titles, no paths.
func abstracts() *corpus.Corpus {
	return &corpus.Corpus{ID: "abstracts", Docs: []corpus.Doc{
		{ID: "d1", Kind: "doc", Title: "Widgets", Text: "A widget renders a widget."},
		{ID: "d2", Kind: "doc", Title: "Frobnication", Text: "How to frobnicate a widget."},
		{ID: "d3", Kind: "doc", Title: "Other", Text: "Nothing here."},
	}}
}

const docIDConfig = `{
	"system": "fakepeer", "config": "docids", "transport": "command",
	"corpus": {"jsonl": true},
	"command": {"search": ["${FAKEPEER}", "searchjsonl", "-k", "{k}", "{corpus}/docs.jsonl", "{query}"]},
	"result": {"from": "json", "items": "results", "doc_id": "id", "score": "score"}
}`

// TestDocIDs: with corpus.jsonl and result.doc_id an external system
// indexes a collection without paths and names its hits by doc id; a config
// without them fails Index naming what it lacks, and its Spec says why
// doc-id cells skip.
func TestDocIDs(t *testing.T) {
	fakepeer(t)
	cfg, err := Parse("docids.json", []byte(docIDConfig))
	require.NoError(t, err)
	require.Empty(t, Spec(cfg).NoDocIDs)
	s, err := New(cfg, systems.Options{CacheDir: t.TempDir(), Logf: t.Logf})
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	require.NoError(t, s.Index(t.Context(), abstracts()))
	got, err := s.Search(t.Context(), "widget", 10)
	require.NoError(t, err)
	// "widget": d1 has it three times (title and text), d2 once.
	diffHits(t, "doc ids", []systems.Hit{{DocID: "d1", Score: 3}, {DocID: "d2", Score: 1}}, got)
	b, err := os.ReadFile(filepath.Join(s.rt.base.Values[template.PhCorpus], "docs.jsonl"))
	require.NoError(t, err)
	if want := `{"_id":"d1","title":"Widgets","text":"A widget renders a widget."}`; !strings.HasPrefix(string(b), want+"\n") {
		t.Errorf("docs.jsonl starts %q, want %q", b, want)
	}

	files, err := Parse("files.json", []byte(strings.Replace(docIDConfig, `"corpus": {"jsonl": true},`, ``, 1)))
	require.NoError(t, err)
	if why := Spec(files).NoDocIDs; !strings.Contains(why, "sets no corpus.jsonl") {
		t.Errorf("NoDocIDs = %q, want the missing corpus.jsonl named", why)
	}
	sf, err := New(files, systems.Options{CacheDir: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { sf.Close() })
	if err := sf.Index(t.Context(), abstracts()); err == nil || !strings.Contains(err.Error(), "corpus.jsonl") {
		t.Errorf("Index of a collection without paths as files: err = %v, want corpus.jsonl named", err)
	}
	loc, err := Parse("loc.json", []byte(commandConfig("")))
	require.NoError(t, err)
	if why := Spec(loc).NoDocIDs; !strings.Contains(why, "returns locations, not document ids (its config maps no result.doc_id") {
		t.Errorf("NoDocIDs = %q, want the missing result.doc_id named", why)
	}
	hosted, err := Parse("hosted.json", []byte(`{"system": "h", "config": "c", "corpus": {"none": true}, "transport": "http",
		"http": {"url": "http://h/s?q={query}"}, "result": {"from": "blob"}}`))
	require.NoError(t, err)
	if why := Spec(hosted).NoDocIDs; why != "" {
		t.Errorf("NoDocIDs of a system that reads no corpus = %q, want none (it runs on any collection)", why)
	}
}
