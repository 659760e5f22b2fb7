// Package chunk cuts code files into retrievable chunks with tree-sitter.
// What needs no parser (a file's language, token equivalence, qualified
// symbol names) is package codetext, so that the judge links no grammar.
//
// # Chunks
//
// Corpus replaces every file doc (Kind "file") of a corpus by chunks of
// six languages (Python, Go, Java, TypeScript/TSX, Rust, C++;
// codetext.LanguageOf maps extensions). The design rule is: no line is indexed twice, and
// needles stay whole. Concretely:
//
//   - Every line of a file belongs to exactly one chunk. Chunks are made of
//     whole lines; a definition that shares a line with other code (two
//     functions on one line, a method on its class's header line) is not
//     cut out and stays in its parent.
//   - A function or method is one chunk with the decorators, annotations,
//     attributes and comments (doc comments) on the lines directly above it
//     (no blank line in between). Everything nested in a function —
//     closures, inner functions, local classes — stays in it, so the text
//     of any function is inside one chunk.
//   - A class-like definition (Python/Java/TS class, Java interface, enum
//     and record, TS interface and enum, Go type declaration, Rust struct,
//     enum, trait and impl block, C++ class, struct, union and enum) is a
//     "class" chunk holding only the lines that none of its member chunks
//     took: header, docstring, fields, bodiless method declarations,
//     closing brace. Methods and nested classes are chunks of their own, so
//     method text is never duplicated. A class chunk's StartLine/EndLine
//     span the whole definition; its Text leaves the members' lines out
//     (and blank lines left around them collapse to one).
//   - Namespaces (C++ namespace, Rust mod, TS namespace/module) are no
//     chunk: their members are, qualified by the namespace name, and the
//     namespace's own lines go to the module chunk. Likewise Python
//     if/try/with blocks and C++ #ifdef and extern "C" { } blocks are
//     looked through: a def under "if TYPE_CHECKING:" is a chunk. Prefixes
//     that wrap one definition belong to it: TS export/declare, C++
//     template<…> headers and extern "C", Python decorators.
//   - What is left of a file with definitions (imports, globals, package
//     clause, module docstring) is one "module" chunk, if it is not blank.
//     Keeping it makes the chunks a partition of the file, so a query about
//     a constant or an import still finds something; it is one chunk rather
//     than one per gap because those leftovers are short and belong together.
//   - A file of unknown language, without definitions, or that does not
//     parse at all is one "file" chunk: the original doc with its ID, Text
//     and Title unchanged and StartLine/EndLine set. Files whose syntax tree
//     has errors are still chunked by default (tree-sitter recovers
//     locally; lines it cannot place stay in the module chunk); see
//     Options.StrictParse.
//
// Symbols are qualified with "." whatever the language: "Class.method",
// "Outer.Inner.method", "Type.Method" for Go methods (receiver type
// without pointer or type parameters), "ns.Box.set" for C++ (also for an
// out-of-line "ns::Box<T>::set"), "Wrapper.fmt" for a Rust method in
// "impl Display for Wrapper<T>", "Geometry.area" in a TS namespace. A
// TypeScript function bound to a const ("const f = () => …") or held by a
// class property is named after the binding; an anonymous default export is
// "default".
//
// Chunk IDs are "fileID#Symbol@Lstart-Lend", where fileID is the ID of
// the file doc (its path, for every loader of this module), e.g.
// "src/black/linegen.py#LineGenerator.visit_stmt@L120-L151" or
// "pkg/a.py#<module>@L1-L40". They are unique within a corpus (no two
// chunks of a file own the same line; any residual clash gets a "~2"
// suffix) and stable as long as the file does not change. Corpus keeps file
// order and orders a file's chunks by start line; its output does not
// depend on how many files it parses in parallel.
//
// # Repositories
//
// Options.Exclude drops files before chunking (vendored and test-data
// trees, lock and minified files, generated files, files over a size), and
// Options.MaxChunkLines and MaxChunkBytes cut any chunk over them — a
// definition or a long doc comment too — into parts at paragraph breaks
// where they can. DefaultOptions, the catalogue's recorded chunking, does
// neither; RepoOptions, for a user's repository, does both
// (docs/chunking.md). With them, "every line belongs to exactly one chunk"
// holds for the files kept, and a cut definition is several chunks of one
// symbol.
//
// Python docstrings stay in the text: they are string tokens, not
// comments, and RepoQA needle bodies contain them.
//
// All tree-sitter objects (parsers, trees) are closed
// before Corpus returns; it holds no cgo memory afterwards.
package chunk
