// Package tsgrammar maps a language name ("python", "go", "java",
// "typescript", "rust", "cpp": the values of corpus.Doc.Language) to its
// tree-sitter grammar, for the packages that parse source (chunk and
// datasets/repoqa).
package tsgrammar

import (
	"fmt"
	"path"
	"runtime/debug"
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// For returns the grammar of lang for the file at p (a .tsx file, in any
// case, needs the TSX grammar), or nil for a language it does not know.
func For(lang, p string) *sitter.Language {
	switch lang {
	case "python":
		return sitter.NewLanguage(tspython.Language())
	case "go":
		return sitter.NewLanguage(tsgo.Language())
	case "java":
		return sitter.NewLanguage(tsjava.Language())
	case "typescript":
		if IsTSX(p) {
			return sitter.NewLanguage(tsts.LanguageTSX())
		}
		return sitter.NewLanguage(tsts.LanguageTypescript())
	case "rust":
		return sitter.NewLanguage(tsrust.Language())
	case "cpp":
		return sitter.NewLanguage(tscpp.Language())
	}
	return nil
}

// IsTSX reports whether the TypeScript file at p needs the TSX grammar (a
// .tsx extension, in any case). Callers that cache per grammar key on it.
func IsTSX(p string) bool { return strings.EqualFold(path.Ext(p), ".tsx") }

// Languages are the language names For knows, in a fixed order.
func Languages() []string { return []string{"cpp", "go", "java", "python", "rust", "typescript"} }

// Versions names the grammar linked for each language: its module version
// when the binary records its dependencies, else its version from the
// grammar's metadata, else its ABI version (grammars built before
// tree-sitter 0.25 carry no metadata; test binaries record no modules).
func Versions() map[string]string {
	mods := map[string]string{}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			mods[d.Path] = d.Version
		}
	}
	v := map[string]string{}
	for _, lang := range Languages() {
		l := For(lang, "")
		if mv := mods["github.com/tree-sitter/tree-sitter-"+lang]; mv != "" {
			v["tree-sitter-"+lang] = mv
		} else if md := l.Metadata(); md != nil {
			v["tree-sitter-"+lang] = fmt.Sprintf("%d.%d.%d", md.MajorVersion, md.MinorVersion, md.PatchVersion)
		} else {
			v["tree-sitter-"+lang] = fmt.Sprintf("abi %d", l.AbiVersion())
		}
	}
	return v
}
