package repoqa

import (
	"slices"

	"github.com/retrievalbench/retrievalbench/codetext"
)

// Languages returns the language keys of the RepoQA release, sorted.
func Languages() []string {
	return []string{"cpp", "go", "java", "python", "rust", "typescript"}
}

// LanguageOf returns the language of a file from its extension (chunk's
// table, shared by every loader), or fallback when the extension is not one
// of the six languages.
func LanguageOf(p, fallback string) string {
	if l := codetext.LanguageOf(p); l != "" {
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
