package context7api

import (
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
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
