package codetext

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestTokens(t *testing.T) {
	tests := []struct {
		name, lang, src string
		want            []string
		reason          string
	}{
		{"python-comment", Python, "x = 1  # set x\n", []string{"x", "=", "1"}, "# starts a comment to the end of the line"},
		{"python-hash-in-string", Python, `s = "a # b"  # c`, []string{"s", "=", `"a # b"`}, "a # inside a string is not a comment"},
		{"python-prefixes", Python, `f(rb'\d', F"{x}", u'é')`, []string{"f", "(", `rb'\d'`, ",", `F"{x}"`, ",", `u'é'`, ")"}, "string prefixes belong to the string token"},
		{"python-docstring", Python, "def f():\n    \"\"\"Doc # not comment.\n\n    More.\"\"\"\n", []string{"def", "f", "(", ")", ":", "\"\"\"Doc # not comment.\n\n    More.\"\"\""}, "a docstring is one string token and stays"},
		{"python-escaped-quote", Python, `x = 'it\'s' # c`, []string{"x", "=", `'it\'s'`}, "an escaped quote does not end the string"},
		{"python-ident-prefix-lookalike", Python, "bar = rb", []string{"bar", "=", "rb"}, "identifiers that start like prefixes are identifiers"},
		{"go-slashes-in-string", Go, `u := "http://x" // c`, []string{"u", ":", "=", `"http://x"`}, "// inside a Go string is not a comment"},
		{"go-raw-string", Go, "s := `a\n// b`", []string{"s", ":", "=", "`a\n// b`"}, "raw strings span lines and hold //"},
		{"go-block-comment", Go, "a /* x\ny */ + b", []string{"a", "+", "b"}, "block comments are dropped"},
		{"go-rune", Go, `r := '"'`, []string{"r", ":", "=", `'"'`}, "a rune holding a quote does not open a string"},
		{"punctuation", Go, "a==b&&c->d", []string{"a", "=", "=", "b", "&", "&", "c", "-", ">", "d"}, "each punctuation character is a token, so spacing does not matter"},
		{"numbers", Go, "x := 1.5e-3 + 0x1F", []string{"x", ":", "=", "1.5e-3", "+", "0x1F"}, "numbers with exponents are one token"},
		{"java-text-block", Java, "String s = \"\"\"\n  a // b\n  \"\"\";", []string{"String", "s", "=", "\"\"\"\n  a // b\n  \"\"\"", ";"}, "Java text blocks are one token"},
		{"java-dollar", Java, "int $x = a$b;", []string{"int", "$x", "=", "a$b", ";"}, "$ is an identifier character in Java"},
		{"ts-template", TypeScript, "const s = `a ${`b ${c}`} // d`;", []string{"const", "s", "=", "`a ${`b ${c}`} // d`", ";"}, "template literals nest and hold //"},
		{"ts-regex", TypeScript, `const r = /\/*[a/]/g; // c`, []string{"const", "r", "=", `/\/*[a/]/g`, ";"}, "a regular expression literal is one token, so its /* is not a comment"},
		{"ts-division", TypeScript, "x = a / b / c", []string{"x", "=", "a", "/", "b", "/", "c"}, "after an operand / is division"},
		{"rust-nested-comment", Rust, "a /* x /* y */ z */ b", []string{"a", "b"}, "Rust block comments nest"},
		{"rust-raw-string", Rust, `let s = r#"a "quoted" // b"#;`, []string{"let", "s", "=", `r#"a "quoted" // b"#`, ";"}, "raw strings end at quote plus hashes"},
		{"rust-lifetime-vs-char", Rust, "fn f<'a>(c: char) { let q = 'x'; }", []string{"fn", "f", "<", "'", "a", ">", "(", "c", ":", "char", ")", "{", "let", "q", "=", "'x'", ";", "}"}, "a lifetime is not a character literal"},
		{"cpp-raw-string", Cpp, `auto s = R"(a // "b")";`, []string{"auto", "s", "=", `R"(a // "b")"`, ";"}, "C++ raw strings hold quotes and //"},
		{"cpp-digit-separator", Cpp, "int n = 1'000'000; char c = 'x';", []string{"int", "n", "=", "1'000'000", ";", "char", "c", "=", "'x'", ";"}, "digit separators do not open a character literal"},
		{"unknown-language", "", "a // b", []string{"a", "/", "/", "b"}, "without a known language nothing is a comment"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, Tokens(tt.lang, tt.src)); diff != "" {
				t.Errorf("%s: tokens mismatch (-want +got):\n%s", tt.reason, diff)
			}
		})
	}
}

func TestContains(t *testing.T) {
	pyFile := `import os


class Loader:
    def load(self, path):
        """Read path."""
        # open it
        with open(path) as f:
            return f.read()  # all of it
`
	goFile := "package x\n\n// Join joins.\nfunc Join(a, b string) string {\n\treturn a + \"//\" + b\n}\n"
	tests := []struct {
		name, lang, haystack, needle string
		want                         bool
		reason                       string
	}{
		{"same-body-other-comments", Python, pyFile,
			"def load(self, path):\n    \"\"\"Read path.\"\"\"\n    with open(path) as f:  # different comment\n        return f.read()",
			true, "comments and indentation differ, tokens are the same"},
		{"reflowed-whitespace", Python, pyFile,
			"def load( self,path ):\n  \"\"\"Read path.\"\"\"\n  with open( path ) as f :\n    return f.read( )",
			true, "whitespace inside lines does not matter"},
		{"different-body", Python, pyFile,
			"def load(self, path):\n    \"\"\"Read path.\"\"\"\n    with open(path) as f:\n        return f.readlines()",
			false, "a different call is a different body"},
		{"docstring-differs", Python, pyFile,
			"def load(self, path):\n    \"\"\"Read a path.\"\"\"\n    with open(path) as f:\n        return f.read()",
			false, "docstrings are strings, so they count"},
		{"hash-in-string-not-comment", Python, `x = "a # b"`, `x = "a"`, false, "the # inside the string is not a comment, so the string differs"},
		{"go-slashes-in-string", Go, goFile, "func Join(a, b string) string {\n\treturn a + \"//\" + b\n}", true, "// in a Go string is kept"},
		{"go-slashes-in-string-differs", Go, goFile, "func Join(a, b string) string {\n\treturn a + \"//\"\n}", false, "dropping the rest of the line after a // in a string would wrongly match"},
		{"go-comment-differs", Go, goFile, "// Other doc.\nfunc Join(a, b string) string { return a + \"//\" + b }", true, "a leading comment in the needle is ignored"},
		{"empty-needle", Python, pyFile, "# only a comment\n", false, "a needle without tokens matches nothing"},
		{"needle-longer", Go, "a b", "a b c", false, "a needle longer than the haystack cannot occur"},
		{"kmp-overlap", Go, "a a a b", "a a b", true, "overlapping prefixes are found (KMP fallback)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Contains(tt.lang, tt.haystack, tt.needle); got != tt.want {
				t.Errorf("Contains = %v, want %v: %s", got, tt.want, tt.reason)
			}
		})
	}
}
