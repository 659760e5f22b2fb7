package codetext

import (
	"path"
	"strings"
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
