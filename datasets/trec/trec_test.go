package trec

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/corpus"
	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

const fixture = "../../fixtures/trec"

func TestLoadFixture(t *testing.T) {
	ds, err := Load(filepath.Dir(fixture), filepath.Base(fixture), DefaultConfig())
	require.NoError(t, err)
	want := []datasets.Task{
		{ID: "401", Query: "sorting algorithms", CorpusID: "trec", Gold: []datasets.Relevant{
			{Kind: "doc", ID: "FT911-1", Grade: 2}, {Kind: "doc", ID: "FT911-4", Grade: 1}, {Kind: "doc", ID: "FT911-3", Grade: 0}}},
		{ID: "402", Query: "hash collisions", CorpusID: "trec", Gold: []datasets.Relevant{{Kind: "doc", ID: "FT911-2", Grade: 1}}},
	}
	if diff := cmp.Diff(want, ds.Tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]datasets.Dropped{{ID: "403", Reason: "no relevant judgment in the qrels"}}, ds.Dropped); diff != "" {
		t.Errorf("dropped (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"qrels judge 1 topics absent from the topics file (ignored)"}, ds.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	docs := ds.Corpora["trec"].Docs
	require.Len(t, docs, 4)
	wantDoc := corpus.Doc{ID: "FT911-2", Kind: "doc", Title: "Hash tables",
		Text: "A hash table maps keys to buckets with a hash function; collisions are chained. Open addressing probes for the next free slot instead."}
	if diff := cmp.Diff(wantDoc, docs[1]); diff != "" {
		t.Errorf("doc with two TEXT elements (-want +got):\n%s", diff)
	}

	cfg := DefaultConfig()
	cfg.QueryFields = []string{"title", "desc"}
	ds, err = Load(filepath.Dir(fixture), filepath.Base(fixture), cfg)
	require.NoError(t, err)
	if got, want := ds.Tasks[0].Query, "sorting algorithms Which documents describe how an array is sorted?"; got != want {
		t.Errorf("title+desc query = %q, want %q", got, want)
	}
}

func TestValidation(t *testing.T) {
	const goodDocs = "<DOC>\n<DOCNO>1</DOCNO>\ntext one\n</DOC>\n"
	const goodTopics = "<top>\n<num>1</num><title>\nONE\n</title>\n</top>\n"
	const goodQrels = "1 0 1 1\n"
	tests := []struct {
		name, docs, topics, qrels, wantErr, reason string
	}{
		{"no docno", "<DOC>\ntext\n</DOC>\n", goodTopics, goodQrels, "doc.trec:1: <DOC> without a <DOCNO>", "record without id"},
		{"duplicate docno", goodDocs + goodDocs, goodTopics, goodQrels, `doc.trec:5: duplicate DOCNO "1" (first at`, "ids are unique"},
		{"unclosed doc", "<DOC>\n<DOCNO>1</DOCNO>\n", goodTopics, goodQrels, "doc.trec:1: <DOC> never closed", "truncated file"},
		{"nested doc", "<DOC>\n<DOCNO>1</DOCNO>\n<DOC>\n</DOC>\n", goodTopics, goodQrels, "doc.trec:3: <DOC> inside the <DOC> opened on line 1", "missing </DOC>"},
		{"text outside", "stray\n" + goodDocs, goodTopics, goodQrels, "doc.trec:1: text outside a <DOC> record", "garbage between records"},
		{"topic without num", goodDocs, "<top>\n<title>x</title>\n</top>\n", goodQrels, "topics.trec:1: topic without <num>", "no topic id"},
		{"empty title", goodDocs, "<top>\n<num>1</num><title>\n</title>\n</top>\n", goodQrels, "topics.trec:1: topic 1 has an empty title", "empty query"},
		{"duplicate topic", goodDocs, goodTopics + goodTopics, goodQrels, `topics.trec:6: duplicate topic "1" (first on line 1)`, "topic ids are unique"},
		{"unclosed topic", goodDocs, "<top>\n<num>1</num><title>x</title>\n", goodQrels, "topics.trec:1: <top> never closed", "truncated topics"},
		{"tag outside topic", goodDocs, "<num>1</num>\n", goodQrels, "topics.trec:1: <num> outside a <top>", "fields without <top>"},
		{"qrels fields", goodDocs, goodTopics, "1 0 1\n", "qrels:1: 3 fields, want 4", "malformed qrels line"},
		{"qrels rel", goodDocs, goodTopics, "1 0 1 yes\n", `qrels:1: grade "yes" is not an integer`, "non-numeric grade"},
		{"qrels duplicate", goodDocs, goodTopics, "1 0 1 1\n1 0 1 0\n", `qrels:2: document "1" judged twice for query "1"`, "ambiguous grade"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "c")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			for name, s := range map[string]string{"doc.trec": tc.docs, "topics.trec": tc.topics, "qrels": tc.qrels} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
			}
			_, err := Load(filepath.Dir(dir), "c", DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load error = %v, want it to contain %q (%s)", err, tc.wantErr, tc.reason)
			}
			filelinetest.Want(t, err, tc.wantErr)
		})
	}
}

// TestVaswani loads the data pack's Terrier copy of the NPL collection and
// checks the counts its PROVENANCE.md gives.
func TestVaswani(t *testing.T) {
	testenv.MustHaveData(t, "vaswani/qrels")
	dir, _ := testenv.DataDir()
	ds, err := Load(dir, "vaswani", DefaultConfig())
	require.NoError(t, err)
	c := ds.Corpora["vaswani"]
	qrels := 0
	for _, task := range ds.Tasks {
		qrels += len(task.Gold)
	}
	if len(c.Docs) != 11429 || len(ds.Tasks) != 93 || qrels != 2083 || len(ds.Dropped) != 0 {
		t.Errorf("docs %d tasks %d qrels %d dropped %d; want 11429 93 2083 0", len(c.Docs), len(ds.Tasks), qrels, len(ds.Dropped))
	}
	if c.Docs[0].ID != "1" || !strings.HasPrefix(c.Docs[0].Text, "compact memories have flexible capacities") {
		t.Errorf("first doc = %q %.50q", c.Docs[0].ID, c.Docs[0].Text)
	}
	if got := ds.Tasks[0].Query; got != "MEASUREMENT OF DIELECTRIC CONSTANT OF LIQUIDS BY THE USE OF MICROWAVE TECHNIQUES" {
		t.Errorf("topic 1 query = %q", got)
	}
	small, err := Load(dir, "vaswani", Config{Split: datasets.SplitSmallTest})
	require.NoError(t, err)
	if len(small.Tasks) != 30 {
		t.Errorf("small_test has %d tasks, want 30", len(small.Tasks))
	}
}
