package repoqa

import (
	"path"
	"slices"
	"strings"
)

// Languages returns the language keys of the RepoQA release, sorted.
func Languages() []string {
	return []string{"cpp", "go", "java", "python", "rust", "typescript"}
}

// extLanguage maps file extensions to language keys (the suffixes the
// curation scripts use per language, plus common header variants).
var extLanguage = map[string]string{
	".py":   "python",
	".go":   "go",
	".java": "java",
	".ts":   "typescript",
	".tsx":  "typescript",
	".rs":   "rust",
	".cpp":  "cpp",
	".cc":   "cpp",
	".cxx":  "cpp",
	".c++":  "cpp",
	".hpp":  "cpp",
	".hh":   "cpp",
	".hxx":  "cpp",
	".h":    "cpp",
}

// LanguageOf returns the language of a file from its extension, or fallback
// when the extension is not one of the release's languages.
func LanguageOf(p, fallback string) string {
	if l, ok := extLanguage[strings.ToLower(path.Ext(p))]; ok {
		return l
	}
	return fallback
}

func knownLanguage(l string) bool { return slices.Contains(Languages(), l) }

// defKinds are the node kinds that count as a definition per language:
// the function kinds of RepoQA's FUNCTION_QUERY plus methods, constructors
// and classes, so that a qualified name ("Class.method") can be resolved.
var defKinds = map[string]map[string]string{
	"python": {"function_definition": "function", "class_definition": "class"},
	"go":     {"function_declaration": "function", "method_declaration": "method", "type_spec": "class"},
	"java": {"method_declaration": "method", "constructor_declaration": "method",
		"class_declaration": "class", "interface_declaration": "class", "enum_declaration": "class", "record_declaration": "class"},
	"typescript": {"function_declaration": "function", "method_definition": "method", "generator_function_declaration": "function",
		"class_declaration": "class", "abstract_class_declaration": "class", "interface_declaration": "class"},
	"rust": {"function_item": "function", "struct_item": "class", "enum_item": "class", "trait_item": "class", "impl_item": "class"},
	"cpp":  {"function_definition": "function", "class_specifier": "class", "struct_specifier": "class", "namespace_definition": "class"},
}
