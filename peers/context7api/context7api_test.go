package context7api

import (
	"bufio"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/retrievalbench/retrievalbench/internal/testenv"
)

func testLibs() []Library {
	return []Library{
		{ID: "/pandas-dev/pandas", Title: "pandas", Description: "DataFrames", Docs: []Doc{
			{ID: "pandas.dataframe.where", Text: "Replace values where the condition is False."},
			{ID: "pandas.dataframe.iloc", Text: "Purely integer-location based indexing for selection by position."},
			{ID: "pandas.dataframe.sort_values", Text: "Sort by the values along either axis. Sort order."},
		}},
		{ID: "/scikit-learn/scikit-learn", Title: "scikit-learn", Aliases: []string{"sklearn"}, Docs: []Doc{
			{ID: "sklearn.preprocessing.standardscaler", Text: "Standardize features by removing the mean and scaling to unit variance."},
		}},
		{ID: "/numpy/numpy", Title: "NumPy", Docs: []Doc{{ID: "numpy.isnan", Text: "Test element-wise for NaN."}}},
	}
}

func TestNewRejectsBadLibraries(t *testing.T) {
	for _, tc := range []struct {
		name, want, reason string
		libs               []Library
	}{
		{"no slash", "id must look like /org/project", "the MCP server passes ids back verbatim; /org/project is their shape",
			[]Library{{ID: "pandas", Title: "p", Docs: []Doc{{ID: "a"}}}}},
		{"duplicate", "duplicate id", "a search result must name one library",
			[]Library{{ID: "/a/b", Title: "a", Docs: []Doc{{ID: "x"}}}, {ID: "/a/b", Title: "b", Docs: []Doc{{ID: "y"}}}}},
		{"no docs", "no docs", "a library without docs cannot answer /v2/context",
			[]Library{{ID: "/a/b", Title: "a"}}},
		{"dup doc", "duplicate doc id", "doc ids name the judged units",
			[]Library{{ID: "/a/b", Title: "a", Docs: []Doc{{ID: "x"}, {ID: "x"}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := New(tc.libs, Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("New: err = %v, want it to contain %q (%s)", err, tc.want, tc.reason)
			}
		})
	}
}

func TestSearchMatchesNames(t *testing.T) {
	s, err := New(testLibs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		want   []string
		reason string
	}{
		{"Sklearn", []string{"/scikit-learn/scikit-learn"}, "DS-1000 names the library Sklearn: found by alias, case-folded"},
		{"Scikit-Learn", []string{"/scikit-learn/scikit-learn"}, "punctuation is ignored"},
		{"numpy", []string{"/numpy/numpy"}, "title match, case-folded"},
		{"pand", []string{"/pandas-dev/pandas"}, "a substring still finds it"},
		{"Pytorch", nil, "a library we have no docs for is not found"},
	} {
		var got []string
		for _, r := range s.Search(tc.name) {
			got = append(got, r.ID)
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("Search(%q) (-want +got):\n%s\n(%s)", tc.name, diff, tc.reason)
		}
	}
}

func TestContextRanksByBM25(t *testing.T) {
	s, err := New(testLibs(), Options{MaxDocs: 2})
	if err != nil {
		t.Fatal(err)
	}
	// "sort" occurs only in sort_values (id once, text twice); "position"
	// only in iloc: both match one term, sort_values has the higher tf.
	text, ids := s.Context("/pandas-dev/pandas", "sort by position")
	if diff := cmp.Diff([]string{"pandas.dataframe.sort_values", "pandas.dataframe.iloc"}, ids); diff != "" {
		t.Errorf("ranked ids (-want +got):\n%s", diff)
	}
	for _, want := range []string{"### pandas.dataframe.sort_values", "Sort by the values along either axis.", "Purely integer-location based indexing"} {
		if !strings.Contains(text, want) {
			t.Errorf("context text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "Replace values") {
		t.Errorf("context text holds a doc that matches no query term:\n%s", text)
	}
	if _, ids := s.Context("/pandas-dev/pandas", "zebra"); len(ids) != 0 {
		t.Errorf("no matching term: ids = %v, want none (the MCP server then says documentation not found)", ids)
	}
}

func TestHTTPShapes(t *testing.T) {
	s, err := New(testLibs(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	base, err := s.Listen()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	get := func(path string, q url.Values, hdr map[string]string) (int, string, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path+"?"+q.Encode(), nil)
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Content-Type"), string(b)
	}

	code, ctype, body := get("/v2/libs/search", url.Values{"query": {"scale features"}, "libraryName": {"sklearn"}},
		map[string]string{"Authorization": "Bearer secret-value", "X-Context7-Source": "mcp-server"})
	var sr struct {
		Results []map[string]any `json:"results"`
	}
	if code != 200 || !strings.HasPrefix(ctype, "application/json") || json.Unmarshal([]byte(body), &sr) != nil || len(sr.Results) != 1 {
		t.Fatalf("search: %d %s %s", code, ctype, body)
	}
	for _, k := range []string{"id", "title", "description", "totalSnippets", "trustScore", "benchmarkScore", "versions"} {
		if _, ok := sr.Results[0][k]; !ok {
			t.Errorf("search result lacks %q (dist/lib/utils.js formatSearchResult reads it): %s", k, body)
		}
	}
	code, _, body = get("/v2/context", url.Values{"query": {"scale features"}, "libraryId": {"/scikit-learn/scikit-learn"}}, nil)
	if code != 200 || !strings.Contains(body, "Standardize features") {
		t.Errorf("context: %d %q", code, body)
	}
	code, _, body = get("/v2/context", url.Values{"query": {"x"}, "libraryId": {"/no/such"}}, nil)
	if code != 404 || !strings.Contains(body, `"message"`) {
		t.Errorf("unknown library: %d %q, want 404 with a JSON message (the MCP server shows it)", code, body)
	}
	reqs := s.Requests()
	if len(reqs) != 3 || reqs[0].Headers["Authorization"] != "set" || reqs[0].Headers["X-Context7-Source"] != "mcp-server" {
		t.Errorf("recorded requests: %+v", reqs)
	}
	for _, r := range reqs {
		for _, v := range r.Headers {
			if strings.Contains(v, "secret-value") {
				t.Errorf("a secret reached the request log: %+v", r)
			}
		}
	}
}

func TestGroupByPrefix(t *testing.T) {
	docs := []Doc{{ID: "pandas.reference.api.pandas.dataframe.where"}, {ID: "sklearn.modules.generated.sklearn.svm.svc"},
		{ID: "pandasql.x"}, {ID: "numpy"}, {ID: "unknown.thing"}}
	libs, rest := Group(DS1000Catalog(), docs)
	var got []string
	for _, l := range libs {
		for _, d := range l.Docs {
			got = append(got, l.ID+" "+d.ID)
		}
	}
	want := []string{
		"/pandas-dev/pandas pandas.reference.api.pandas.dataframe.where",
		"/numpy/numpy numpy",
		"/scikit-learn/scikit-learn sklearn.modules.generated.sklearn.svm.svc",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("grouped (-want +got):\n%s", diff)
	}
	if len(rest) != 2 || rest[0].ID != "pandasql.x" || rest[1].ID != "unknown.thing" {
		t.Errorf("unclaimed = %v, want pandasql.x (a prefix is a whole segment) and unknown.thing", rest)
	}
	if _, err := New(libs, Options{}); err != nil {
		t.Errorf("New on the grouped libraries: %v", err)
	}
}

// TestDS1000Docs groups the real DS-1000 gold docs and checks every task's
// library resolves to the library that holds its gold docs.
func TestDS1000Docs(t *testing.T) {
	path := testenv.MustHaveData(t, "coderag/ds1000_docs.json.gz")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		Metadata struct{ Library string } `json:"metadata"`
		Docs     []struct{ Title, Text string }
	}
	var docs []Doc
	seen := map[string]bool{}
	var rows []row
	sc := bufio.NewScanner(zr)
	sc.Buffer(nil, 1<<26)
	for sc.Scan() {
		var r row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		rows = append(rows, r)
		for _, d := range r.Docs {
			if !seen[d.Title] {
				seen[d.Title] = true
				docs = append(docs, Doc{ID: d.Title, Text: d.Text})
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	libs, rest := Group(DS1000Catalog(), docs)
	if len(rest) != 0 {
		t.Errorf("%d DS-1000 docs belong to no catalog library, e.g. %q", len(rest), rest[0].ID)
	}
	s, err := New(libs, Options{})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, r := range rows {
		for _, d := range r.Docs {
			res := s.Search(r.Metadata.Library)
			if len(res) == 0 {
				t.Fatalf("task library %q resolves to nothing", r.Metadata.Library)
			}
			head, _, _ := strings.Cut(d.Title, ".")
			if e := catalogByID(res[0].ID); e.Prefix != head {
				t.Errorf("task library %q resolves first to %s, but its gold doc %q is under %q", r.Metadata.Library, res[0].ID, d.Title, head)
			}
			checked++
		}
	}
	t.Logf("%d docs in %d libraries; %d gold doc entries resolve to their library", len(docs), len(libs), checked)
}

func catalogByID(id string) Entry {
	for _, e := range DS1000Catalog() {
		if e.ID == id {
			return e
		}
	}
	return Entry{}
}
