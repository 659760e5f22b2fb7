package beir

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"

	"github.com/retrievalbench/retrievalbench/datasets"
	"github.com/retrievalbench/retrievalbench/fileline/filelinetest"
)

const fixture = "../../fixtures/beir"

func TestLoadFixture(t *testing.T) {
	ds, err := Load(fixture, DefaultConfig())
	require.NoError(t, err)
	want := []datasets.Task{
		{ID: "q1", Query: "how does quicksort work", CorpusID: "beir", Gold: []datasets.Relevant{{Kind: "doc", ID: "d1", Grade: 2}}},
		{ID: "q2", Query: "hash map buckets", CorpusID: "beir", Gold: []datasets.Relevant{{Kind: "doc", ID: "d2", Grade: 1}}},
		{ID: "q3", Query: "search in a sorted list", CorpusID: "beir", Gold: []datasets.Relevant{{Kind: "doc", ID: "d3", Grade: 1}, {Kind: "doc", ID: "d1", Grade: 0}}},
	}
	if diff := cmp.Diff(want, ds.Tasks); diff != "" {
		t.Errorf("tasks (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"1 of 4 queries have no relevant judgment in qrels/test.tsv (not tasks of this split)"}, ds.Notes); diff != "" {
		t.Errorf("notes (-want +got):\n%s", diff)
	}
	docs := ds.Corpora["beir"].Docs
	require.Len(t, docs, 3)
	if docs[0].Title != "Quicksort" || docs[0].Kind != "doc" {
		t.Errorf("doc 0 = %+v", docs[0])
	}
	dev, err := Load(fixture, Config{Qrels: "dev"})
	require.NoError(t, err)
	if len(dev.Tasks) != 1 || dev.Tasks[0].ID != "q1" {
		t.Errorf("dev qrels: tasks %+v, want only q1", dev.Tasks)
	}
}

// TestLoadGzip reads the fixture with corpus.jsonl gzipped, as large BEIR
// corpora are distributed.
func TestLoadGzip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "beir")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "qrels"), 0o755))
	for _, name := range []string{"queries.jsonl", "qrels/test.tsv"} {
		b, err := os.ReadFile(filepath.Join(fixture, name))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), b, 0o644))
	}
	b, err := os.ReadFile(filepath.Join(fixture, "corpus.jsonl"))
	require.NoError(t, err)
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	_, err = gz.Write(b)
	require.NoError(t, err)
	require.NoError(t, gz.Close())
	require.NoError(t, os.WriteFile(filepath.Join(dir, "corpus.jsonl.gz"), buf.Bytes(), 0o644))

	plain, err := Load(fixture, DefaultConfig())
	require.NoError(t, err)
	zipped, err := Load(dir, DefaultConfig())
	require.NoError(t, err)
	if diff := cmp.Diff(plain.Corpora["beir"].Docs, zipped.Corpora["beir"].Docs); diff != "" {
		t.Errorf("gzip corpus differs (-plain +gzip):\n%s", diff)
	}
}

func TestValidation(t *testing.T) {
	const corpus = `{"_id": "d1", "title": "", "text": "x"}` + "\n"
	const queries = `{"_id": "q1", "text": "x"}` + "\n"
	const qrels = "query-id\tcorpus-id\tscore\nq1\td1\t1\n"
	tests := []struct {
		name, corpus, queries, qrels, wantErr, reason string
	}{
		{"bad corpus json", "{\n", queries, qrels, "corpus.jsonl:1: invalid JSON object", "malformed line"},
		{"missing doc id", `{"text": "x"}`, queries, qrels, "corpus.jsonl:1: missing _id", "doc without id"},
		{"missing text", `{"_id": "d1"}`, queries, qrels, `corpus.jsonl:1: document "d1" has no text field`, "doc without text"},
		{"duplicate doc", corpus + corpus, queries, qrels, `corpus.jsonl:2: duplicate document id "d1" (first on line 1)`, "doc ids are unique"},
		{"duplicate query", corpus, queries + queries, qrels, `queries.jsonl:2: duplicate query id "q1"`, "query ids are unique"},
		{"empty query", corpus, `{"_id": "q1", "text": " "}`, qrels, `queries.jsonl:1: query "q1" has empty text`, "blank query"},
		{"qrels fields", corpus, queries, "query-id\tcorpus-id\tscore\nq1\td1\n", "test.tsv:2: 2 tab-separated columns, want 3", "malformed qrels"},
		{"qrels header", corpus, queries, "q1\td1\t1\n", "test.tsv:1: missing header line", "BEIR qrels start with a header"},
		{"qrels score", corpus, queries, "query-id\tcorpus-id\tscore\nq1\td1\thigh\n", `test.tsv:2: score "high" is not an integer`, "non-numeric score"},
		{"unknown query", corpus, queries, "query-id\tcorpus-id\tscore\nq9\td1\t1\n", `test.tsv: query "q9" not in queries.jsonl`, "qrels for a missing query"},
		{"unknown doc", corpus, queries, "query-id\tcorpus-id\tscore\nq1\td9\t1\n", `test.tsv: query "q1" judges document "d9", not in corpus.jsonl`, "gold doc missing from the corpus"},
		{"judged twice", corpus, queries, "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t2\n", `test.tsv:3: document "d1" judged twice for query "q1"`, "ambiguous grade"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "qrels"), 0o755))
			for name, s := range map[string]string{"corpus.jsonl": tc.corpus, "queries.jsonl": tc.queries, "qrels/test.tsv": tc.qrels} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644))
			}
			_, err := Load(dir, DefaultConfig())
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("Load error = %v, want it to contain %q (%s)", err, tc.wantErr, tc.reason)
			}
			filelinetest.Want(t, err, tc.wantErr)
		})
	}
}
