package chunk

import (
	"path"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// Language names, as stored in corpus.Doc.Language.
const (
	Python     = "python"
	Go         = "go"
	Java       = "java"
	TypeScript = "typescript"
	Rust       = "rust"
	Cpp        = "cpp"
)

// extLanguage maps a lower-case file extension to its language.
var extLanguage = map[string]string{
	".py":   Python,
	".pyi":  Python,
	".go":   Go,
	".java": Java,
	".ts":   TypeScript,
	".tsx":  TypeScript,
	".mts":  TypeScript,
	".cts":  TypeScript,
	".rs":   Rust,
	".cc":   Cpp,
	".cpp":  Cpp,
	".cxx":  Cpp,
	".c++":  Cpp,
	".h":    Cpp,
	".hpp":  Cpp,
	".hh":   Cpp,
	".hxx":  Cpp,
}

// LanguageOf returns the language of a file by its extension ("python",
// "go", "java", "typescript", "rust", "cpp"), or "" when it is unknown.
// ".h" counts as C++: the C++ grammar parses C headers too.
func LanguageOf(p string) string {
	return extLanguage[strings.ToLower(path.Ext(p))]
}

// grammar returns the tree-sitter grammar for a language and file path
// (TSX files need the TSX grammar), or nil when there is none.
func grammar(lang, p string) *sitter.Language {
	switch lang {
	case Python:
		return sitter.NewLanguage(tspython.Language())
	case Go:
		return sitter.NewLanguage(tsgo.Language())
	case Java:
		return sitter.NewLanguage(tsjava.Language())
	case TypeScript:
		if strings.EqualFold(path.Ext(p), ".tsx") {
			return sitter.NewLanguage(tsts.LanguageTSX())
		}
		return sitter.NewLanguage(tsts.LanguageTypescript())
	case Rust:
		return sitter.NewLanguage(tsrust.Language())
	case Cpp:
		return sitter.NewLanguage(tscpp.Language())
	}
	return nil
}
