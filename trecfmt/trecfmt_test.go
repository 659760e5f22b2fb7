package trecfmt

import (
	"bytes"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stretchr/testify/require"
)

func TestReadQrels(t *testing.T) {
	in := "# comment\n301 0 d1 1\n\n301\t0\td2\t0\n302 Q0 d1 -1\n  # indented comment\n302 0 d3 3\n"
	got, err := ReadQrels(strings.NewReader(in), "q.txt")
	require.NoError(t, err)
	want := Qrels{"301": {"d1": 1, "d2": 0}, "302": {"d1": -1, "d3": 3}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("qrels with comments, blank lines, tabs, negative grade (-want +got):\n%s", diff)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, reason, in, want string
		read                   func(string) error
	}{
		{"qrels_columns", "qrels need 4 fields", "1 0 d1 1\n1 0 d2\n", "q:2: 3 fields, want 4", readQrels},
		{"qrels_extra", "trec_eval rejects trailing qrels fields too", "1 0 d1 1 x\n", "q:1: 5 fields, want 4", readQrels},
		{"qrels_grade", "non-numeric grade", "1 0 d1 yes\n", `q:1: grade "yes" is not an integer`, readQrels},
		{"qrels_float_grade", "grades are integers", "1 0 d1 1.5\n", `q:1: grade "1.5" is not an integer`, readQrels},
		{"qrels_dup", "a document judged twice for one query", "1 0 d1 1\n1 0 d1 0\n", `q:2: document "d1" judged twice for query "1"`, readQrels},
		{"run_columns", "runs need 6 fields", "1 Q0 d1 1 0.5\n", "q:1: 5 fields, want 6", readRun},
		{"run_extra", "extra fields are an error unless allowed", "1 Q0 d1 1 0.5 tag more\n", "q:1: 7 fields, want 6", readRun},
		{"run_score", "non-numeric score", "1 Q0 d1 1 high tag\n", `q:1: score "high" is not a number`, readRun},
		{"run_nan", "NaN score", "1 Q0 d1 1 NaN tag\n", `q:1: score "NaN" is not finite`, readRun},
		{"run_inf", "infinite score", "# c\n1 Q0 d1 1 -Inf tag\n", `q:2: score "-Inf" is not finite`, readRun},
		{"run_overflow", "a score beyond float64 is infinite", "1 Q0 d1 1 1e999 tag\n", `q:1: score "1e999" is not finite`, readRun},
		{"run_rank", "non-integer rank", "1 Q0 d1 one 0.5 tag\n", `q:1: rank "one" is not an integer`, readRun},
		{"run_dup", "a document twice in one query", "1 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.4 t\n1 Q0 d1 3 0.3 t\n",
			`q:3: document "d1" retrieved twice for query "1" (first on line 1)`, readRun},
		{"group_dup", "GroupReader finds repeats too", "1 Q0 d1 1 0.5 t\n1 Q0 d1 2 0.4 t\n",
			`q:2: document "d1" retrieved twice for query "1" (first on line 1)`, readGroups},
		{"group_not_grouped", "a query split into two blocks", "1 Q0 d1 1 0.5 t\n2 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.4 t\n",
			`q:3: query "1" continues after other queries`, readGroups},
		{"beir_qrels_header", "the header line is required", "q1\td1\t1\n", "q:1: missing header line", readBEIRQrels},
		{"beir_qrels_columns", "three tab-separated columns", "query-id\tcorpus-id\tscore\nq1 d1 1\n", "q:2: 1 tab-separated columns, want 3", readBEIRQrels},
		{"beir_qrels_empty_id", "empty ids", "query-id\tcorpus-id\tscore\nq1\t\t1\n", "q:2: empty query or document id", readBEIRQrels},
		{"beir_qrels_score", "integer scores", "query-id\tcorpus-id\tscore\nq1\td1\thigh\n", `q:2: score "high" is not an integer`, readBEIRQrels},
		{"beir_qrels_dup", "judged twice", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td1\t2\n", `q:3: document "d1" judged twice`, readBEIRQrels},
		{"beir_corpus_json", "not JSON", `{"_id": "d1", "text": "x"}` + "\n{nope\n", "q:2: invalid JSON object", readCorpus},
		{"beir_corpus_empty_id", "empty _id", `{"_id": "", "text": "x"}`, "q:1: empty _id", readCorpus},
		{"beir_corpus_missing_id", "no _id", `{"text": "x"}`, "q:1: missing _id", readCorpus},
		{"beir_corpus_no_text", "text is required", `{"_id": "d1", "title": "t"}`, `q:1: document "d1" has no text field`, readCorpus},
		{"beir_corpus_dup", "duplicate ids", `{"_id": "d1", "text": "x"}` + "\n" + `{"_id": "d1", "text": "y"}`, `q:2: duplicate document id "d1" (first on line 1)`, readCorpus},
		{"beir_corpus_bad_id", "_id of another type", `{"_id": true, "text": "x"}`, "q:1: _id true is neither a string nor a number", readCorpus},
		{"beir_queries_empty", "empty query text", `{"_id": "q1", "text": "  "}`, `q:1: query "q1" has empty text`, readQueries},
		{"beir_queries_dup", "duplicate query ids", `{"_id": "q1", "text": "a"}` + "\n\n" + `{"_id": "q1", "text": "b"}`, `q:3: duplicate query id "q1" (first on line 1)`, readQueries},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.read(tt.in)
			if err == nil {
				t.Fatalf("%s: no error, want %q", tt.reason, tt.want)
			}
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Errorf("%s: error %v is not a *SyntaxError", tt.reason, err)
			}
			if !strings.HasPrefix(err.Error(), tt.want) {
				t.Errorf("%s:\n got %q\nwant prefix %q", tt.reason, err, tt.want)
			}
		})
	}
}

func readQrels(s string) error { _, err := ReadQrels(strings.NewReader(s), "q"); return err }
func readRun(s string) error   { _, _, err := ReadRun(strings.NewReader(s), "q", false); return err }
func readGroups(s string) error {
	g := NewGroupReader(strings.NewReader(s), "q")
	for g.Scan() {
	}
	return g.Err()
}
func readBEIRQrels(s string) error { _, err := ReadBEIRQrels(strings.NewReader(s), "q"); return err }
func readCorpus(s string) error {
	return ReadBEIRCorpus(strings.NewReader(s), "q", func(BEIRDoc) error { return nil })
}
func readQueries(s string) error { _, err := ReadBEIRQueries(strings.NewReader(s), "q"); return err }

func TestNotGroupedIsDetectable(t *testing.T) {
	err := readGroups("1 Q0 d1 1 0.5 t\n2 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.4 t\n")
	if !errors.Is(err, ErrNotGrouped) {
		t.Errorf("err = %v, want it to wrap ErrNotGrouped so callers can fall back to ReadRun", err)
	}
	run, _, err := ReadRun(strings.NewReader("1 Q0 d1 1 0.5 t\n2 Q0 d1 1 0.5 t\n1 Q0 d2 2 0.4 t\n"), "q", false)
	require.NoError(t, err)
	if len(run["1"]) != 2 {
		t.Errorf("ReadRun merges a split query: got %v", run["1"])
	}
}

func TestGroupReader(t *testing.T) {
	in := "# run\nq1 Q0 a 1 0.9 tagA\nq1 Q0 b 2 0.8 tagA\n\nq2 Q0 a 1 0.7 tagB extra\nq3 Q0 c 1 1 tagC\n"
	g := NewGroupReader(strings.NewReader(in), "run")
	g.SetAllowExtraFields(true)
	type blk struct {
		QID     string
		Results []Result
	}
	var got []blk
	for g.Scan() {
		got = append(got, blk{g.QID(), append([]Result(nil), g.Results()...)})
	}
	require.NoError(t, g.Err())
	want := []blk{
		{"q1", []Result{{DocID: "a", Score: 0.9}, {DocID: "b", Score: 0.8}}},
		{"q2", []Result{{DocID: "a", Score: 0.7}}},
		{"q3", []Result{{DocID: "c", Score: 1}}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("blocks (-want +got):\n%s", diff)
	}
	if g.Tag() != "tagC" {
		t.Errorf("Tag() = %q, want the last line's tag", g.Tag())
	}
}

func TestRunReaderRecords(t *testing.T) {
	rr := NewRunReader(strings.NewReader("301\tQ0\tFR-1\t7\t  2.5\tSTD\n"), "r")
	require.True(t, rr.Scan(), "err: %v", rr.Err())
	want := RunRecord{QID: "301", Iter: "Q0", DocID: "FR-1", Rank: 7, Score: 2.5, Tag: "STD"}
	if diff := cmp.Diff(want, rr.Record()); diff != "" {
		t.Errorf("record (-want +got):\n%s", diff)
	}
	if rr.Scan() || rr.Err() != nil {
		t.Errorf("want a clean end, got Scan true or err %v", rr.Err())
	}
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	qrels := Qrels{"q1": {"b": 2, "a": 0}, "q10": {"x": 1}}
	run := Run{"q1": {{DocID: "a", Score: 0.5}, {DocID: "b", Score: 0.5}, {DocID: "c", Score: 1e-9}}, "q2": {{DocID: "z", Score: -3.25}}}
	qp, rp := filepath.Join(dir, "qrels"), filepath.Join(dir, "run")
	require.NoError(t, WriteQrelsFile(qp, qrels))
	require.NoError(t, WriteRunFile(rp, run, "myrun"))

	gotQ, err := ReadQrelsFile(qp)
	require.NoError(t, err)
	if diff := cmp.Diff(qrels, gotQ); diff != "" {
		t.Errorf("qrels round trip (-want +got):\n%s", diff)
	}
	gotR, tag, err := ReadRunFile(rp, false)
	require.NoError(t, err)
	// WriteRun ranks each query (ties by doc id descending), so compare with
	// the ranked input.
	want := Run{"q1": {{DocID: "b", Score: 0.5}, {DocID: "a", Score: 0.5}, {DocID: "c", Score: 1e-9}}, "q2": {{DocID: "z", Score: -3.25}}}
	if diff := cmp.Diff(want, gotR); diff != "" {
		t.Errorf("run round trip (-want +got):\n%s", diff)
	}
	if tag != "myrun" {
		t.Errorf("tag = %q", tag)
	}
	b, err := os.ReadFile(rp)
	require.NoError(t, err)
	if want := "q1 Q0 b 1 0.5 myrun\nq1 Q0 a 2 0.5 myrun\nq1 Q0 c 3 1e-09 myrun\nq2 Q0 z 1 -3.25 myrun\n"; string(b) != want {
		t.Errorf("run file:\n%s\nwant:\n%s", b, want)
	}
}

func TestWriteRejectsBadIDs(t *testing.T) {
	var buf bytes.Buffer
	for name, err := range map[string]error{
		"space in doc": WriteRun(&buf, Run{"q": {{DocID: "a b", Score: 1}}}, "t"),
		"empty qid":    WriteRun(&buf, Run{"": {{DocID: "a", Score: 1}}}, "t"),
		"NaN score":    WriteRun(&buf, Run{"q": {{DocID: "a", Score: nan()}}}, "t"),
		"empty tag":    WriteRun(&buf, Run{"q": {{DocID: "a", Score: 1}}}, ""),
		"qrels tab":    WriteQrels(&buf, Qrels{"q": {"a\tb": 1}}),
		"comment qid":  WriteQrels(&buf, Qrels{"#q": {"a": 1}}),
	} {
		if err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func nan() float64 { var z float64; return z / z }

func TestWriteFailureLeavesNoFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "run")
	require.NoError(t, os.WriteFile(p, []byte("old\n"), 0o644))
	if err := WriteRunFile(p, Run{"q": {{DocID: "bad id", Score: 1}}}, "t"); err == nil {
		t.Fatal("want an error")
	}
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	if string(b) != "old\n" {
		t.Errorf("a failed write replaced the file: %q", b)
	}
	entries, err := os.ReadDir(filepath.Dir(p))
	require.NoError(t, err)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}

func TestBEIRRoundTrip(t *testing.T) {
	dir := t.TempDir()
	b := &BEIR{
		Corpus:  []BEIRDoc{{"d1", "Title", "def f(): pass"}, {"d2", "", "<html> & \"quotes\""}},
		Queries: []BEIRQuery{{"q1", "how to f"}},
		Qrels:   Qrels{"q1": {"d1": 1, "d2": 0}},
	}
	require.NoError(t, WriteBEIR(dir, "test", b))
	got, err := ReadBEIR(dir, "test")
	require.NoError(t, err)
	if diff := cmp.Diff(b, got); diff != "" {
		t.Errorf("BEIR round trip (-want +got):\n%s", diff)
	}
	tsv, err := os.ReadFile(filepath.Join(dir, "qrels", "test.tsv"))
	require.NoError(t, err)
	if want := "query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\t0\n"; string(tsv) != want {
		t.Errorf("qrels tsv = %q, want %q", tsv, want)
	}
}

func TestReadBEIRFixture(t *testing.T) {
	got, err := ReadBEIR(filepath.Join("testdata", "beir"), "test")
	require.NoError(t, err)
	if len(got.Corpus) != 3 || len(got.Queries) != 2 {
		t.Fatalf("fixture: %d docs, %d queries, want 3 and 2", len(got.Corpus), len(got.Queries))
	}
	// Numeric ids (as some BEIR exports write them) become their decimal text.
	if got.Corpus[2].ID != "42" || got.Queries[1].ID != "7" {
		t.Errorf("numeric ids: doc %q, query %q", got.Corpus[2].ID, got.Queries[1].ID)
	}
	want := Qrels{"q1": {"d1": 1}, "7": {"42": 2, "d2": 0}}
	if diff := cmp.Diff(want, got.Qrels); diff != "" {
		t.Errorf("qrels (-want +got):\n%s", diff)
	}
	if _, err := ReadBEIR(filepath.Join("testdata", "beir"), "dev"); err == nil {
		t.Errorf("missing split: want an error")
	}
}

func TestParseScoreMatchesParseFloat(t *testing.T) {
	inputs := []string{"0", "1", "-1", "+2.5", "2.129133", "  ", "1.", ".5", "-.5", "0.1", "0.3", "123456789012345",
		"1234567890123456", "0.000000000000001", "999999999999999", "1e5", "0x10", "NaN", "-0", "-0.0", "00012.3400",
		"1.2.3", "-", "+", "9007199254740993", "0.123456789012345", "3.14159265358979"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		inputs = append(inputs, strconv.FormatFloat(r.Float64()*math.Pow(10, float64(r.IntN(12)-4)), 'f', r.IntN(12), 64))
	}
	for _, in := range inputs {
		want, wantErr := strconv.ParseFloat(in, 64)
		got, gotErr := parseScore([]byte(in))
		if (wantErr == nil) != (gotErr == nil) || math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Errorf("parseScore(%q) = %v, %v; ParseFloat gives %v, %v", in, got, gotErr, want, wantErr)
		}
	}
}
