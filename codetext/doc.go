// Package codetext is what the bench knows about code without parsing it:
// the language of a file by its extension (LanguageOf), token equivalence
// (Tokens, Contains, Matcher) and fully qualified symbol names from a
// corpus's module layout (Qualifier, SymbolMatches). It is pure Go
// (standard library and corpus), so the judge and the dataset loaders that
// need it link no tree-sitter grammar; package chunk, the tree-sitter
// chunker, names its chunks' languages and symbols the same way.
//
// # Token equivalence
//
// Tokens lexes code the same way for a chunk and for a gold body, dropping
// whitespace and comments but keeping string literals whole (so a # or //
// inside a string is not a comment). Contains and Matcher test whether a
// gold body's tokens occur contiguously in a chunk's: this is the RepoQA
// judge, which credits any chunker whose chunk holds the needle function,
// whatever its comments or formatting.
package codetext
