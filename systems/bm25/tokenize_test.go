package bm25

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestCodeTerms(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string
		reason   string
	}{
		{"camel-acronym-digit", "parseHTTPResponse2", []string{"parsehttpresponse2", "parse", "http", "response", "2"}, "the brief's example: lower→Upper, acronym end, letter→digit"},
		{"snake", "parse_http_response", []string{"parse_http_response", "parse", "http", "response"}, "underscores split; the whole identifier keeps them"},
		{"pascal", "HttpResponse", []string{"httpresponse", "http", "response"}, "PascalCase splits at each capital"},
		{"leading-acronym", "XMLHttpRequest", []string{"xmlhttprequest", "xml", "http", "request"}, "an acronym before a capitalised word ends one letter early"},
		{"all-caps", "MAX_RETRIES", []string{"max_retries", "max", "retries"}, "constants split on underscore only"},
		{"acronym-only", "HTTP", []string{"http"}, "one part equal to the whole is not repeated"},
		{"dunder", "__init__", []string{"__init__", "init"}, "leading and trailing underscores are not parts"},
		{"single-letter-tail", "getX", []string{"getx", "get", "x"}, "a trailing capital is its own part"},
		{"digits-inside", "i18n", []string{"i18n", "i", "18", "n"}, "digits split on both sides"},
		{"version", "v2API", []string{"v2api", "v", "2", "api"}, "digit then acronym"},
		{"number", "2024", []string{"2024"}, "a bare number is one term"},
		{"underscores-only", "___", nil, "no word characters, no terms"},
		{"punctuation", "a.b(c, d_e)", []string{"a", "b", "c", "d_e", "d", "e"}, "punctuation separates identifiers and is dropped"},
		{"unicode", "Straße_Größe", []string{"straße_größe", "straße", "größe"}, "non-ASCII letters are identifier characters"},
		{"cjk", "日本語テキスト", []string{"日本語テキスト"}, "caseless letters do not split"},
		{"emoji", "🚀 launch🚀", []string{"launch"}, "symbols separate and are dropped"},
		{"empty", "", nil, "nothing in, nothing out"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			codeTerms(tt.in, func(s string) { got = append(got, s) })
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("codeTerms(%q) mismatch (-want +got):\n%s\nreason: %s", tt.in, diff, tt.reason)
			}
		})
	}
}

func TestCodeText(t *testing.T) {
	got := codeText("def parseHTTPResponse2(raw_bytes):")
	want := "def parsehttpresponse2 parse http response 2 raw_bytes raw bytes"
	if got != want {
		t.Errorf("codeText = %q, want %q", got, want)
	}
}

func TestQueryTermsAndMatchExpr(t *testing.T) {
	tests := []struct {
		name, tokenizer, query string
		want                   string
		reason                 string
	}{
		{"plain", TokUnicode61, "Parse the HTTP response", `"parse" OR "the" OR "http" OR "response"`, "words lowercased, joined with OR"},
		{"dedupe", TokPorter, "a a A b", `"a" OR "b"`, "repeated terms count once"},
		{"underscore-plain", TokUnicode61, "parse_http", `"parse" OR "http"`, "unicode61 separates on '_', so must the query"},
		{"underscore-code", TokCode, "parse_http", `"parse_http" OR "parse" OR "http"`, "the code tokenizer keeps the whole identifier"},
		{"quotes", TokUnicode61, `say "hi`, `"say" OR "hi"`, "quotes are punctuation"},
		{"operators", TokUnicode61, "a AND b OR NOT c NEAR(d e)", `"a" OR "and" OR "b" OR "or" OR "not" OR "c" OR "near" OR "d" OR "e"`, "operators become quoted words"},
		{"syntax-chars", TokCode, "foo* col:term ^x -y +z (w)", `"foo" OR "col" OR "term" OR "x" OR "y" OR "z" OR "w"`, "FTS5 syntax characters are dropped"},
		{"punctuation-only", TokUnicode61, `!"#$%&'()*+,-./:;<=>?@[\]^_{|}~`, ``, "nothing to search"},
		{"empty", TokCode, "", ``, "nothing to search"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := matchExpr(queryTerms(tt.tokenizer, tt.query))
			if got != tt.want {
				t.Errorf("matchExpr(queryTerms(%s, %q)) = %q, want %q (%s)", tt.tokenizer, tt.query, got, tt.want, tt.reason)
			}
		})
	}
}

func TestMatchExprDoublesQuotes(t *testing.T) {
	// Terms never hold quotes today; the escaping is there if that changes.
	if got, want := matchExpr([]string{`a"b`, "c"}), `"a""b" OR "c"`; got != want {
		t.Errorf("matchExpr = %q, want %q", got, want)
	}
}

func TestQueryTermsCap(t *testing.T) {
	var b strings.Builder
	for i := range 2 * maxQueryTerms {
		b.WriteString("w")
		b.WriteString(strings.Repeat("x", i%7))
		b.WriteString(string(rune('a' + i%26)))
		b.WriteString(strings.Repeat("y", i/26))
		b.WriteString(" ")
	}
	if got := len(queryTerms(TokUnicode61, b.String())); got != maxQueryTerms {
		t.Errorf("len(queryTerms) = %d, want the cap %d", got, maxQueryTerms)
	}
}
