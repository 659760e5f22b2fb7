package codetext

import (
	"path"
	"regexp"
	"slices"
	"strings"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// Fully qualified names. The chunker names a definition inside its file
// ("HTTPAdapter.send"); a developer names it the way the language imports
// it ("requests.adapters.HTTPAdapter.send"). A Qualifier derives that
// second name from the file's module path:
//
//   - Python: the dotted module path of the file, rooted at the topmost
//     directory of its chain of packages (directories with an __init__.py);
//     a file outside any package is named by its path with a leading "src/"
//     removed. A package's __init__.py is the package itself, and .py/.pyi
//     are dropped: src/requests/adapters.py → requests.adapters.
//   - Go: the import path of the file's directory (the module path of the
//     nearest go.mod above it joined with the directory below that go.mod;
//     without a go.mod, the directory itself, or the package clause for a
//     file at the root), then the chunker's "Type.Method":
//     example.com/kv/store.Store.Get.
//   - Java: the package declaration, then the chunker's "Class.method":
//     org.acme.kv.Store.get.
//   - TypeScript: the path without extension, slashes as dots, an index
//     file standing for its directory: src/util/index.ts → src.util.
//   - Rust: the module path below src/ (lib.rs, main.rs and mod.rs stand
//     for their directory), then the symbol: src/net/tcp.rs → net.tcp.
//   - C++ and unknown languages: the chunker's symbol (namespaces are
//     already in it).
//
// A name written by a user matches a definition when it is the fully
// qualified name or a suffix of it that starts after a "." or a "/"
// (SymbolMatches), so "HTTPAdapter.send", "adapters.HTTPAdapter.send"
// and "requests.adapters.HTTPAdapter.send" all name the same method, and
// "store.Store.Get" the Go method above.
//
// Python packages re-export: src/flask/__init__.py says "from .app import
// Flask as Flask", and users write flask.Flask for the class defined as
// flask.app.Flask. Resolve rewrites a written name through the re-exports
// of the corpus's package __init__.py files (top-level "from M import N
// [as A]" statements, relative or absolute, chains followed), so that
// "flask.Flask" and "flask.Flask.run" name flask.app.Flask and its method.
// Only packages' __init__ files re-export here: a name a plain module
// happens to import is not an API of that module.

// Qualifier derives fully qualified definition names from the module
// layout of one corpus (whole files, as loaded).
type Qualifier struct {
	paths     map[string]bool   // every file path of the corpus
	goModules map[string]string // directory of a go.mod ("" = root) → module path
	goPkgs    map[string]string // directory → package clause of a .go file in it
	javaPkgs  map[string]string // .java path → package declaration
	reexports map[string]string // name a Python package exports → the qualified name it imports
}

var (
	goModuleRE  = regexp.MustCompile(`(?m)^\s*module\s+("?)([^\s"]+)("?)\s*(?://.*)?$`)
	goPackageRE = regexp.MustCompile(`(?m)^package\s+([A-Za-z_][A-Za-z0-9_]*)`)
	javaPkgRE   = regexp.MustCompile(`(?m)^\s*package\s+([A-Za-z_][A-Za-z0-9_]*(?:\s*\.\s*[A-Za-z_][A-Za-z0-9_]*)*)\s*;`)
	spaceRE     = regexp.MustCompile(`\s+`)
)

// NewQualifier reads the corpus's file paths, go.mod module lines, Go
// package clauses and Java package declarations. c may be nil (every name
// is then derived from the path alone).
func NewQualifier(c *corpus.Corpus) *Qualifier {
	q := &Qualifier{paths: map[string]bool{}, goModules: map[string]string{}, goPkgs: map[string]string{}, javaPkgs: map[string]string{}, reexports: map[string]string{}}
	if c == nil {
		return q
	}
	var inits []*corpus.Doc
	for i := range c.Docs {
		d := &c.Docs[i]
		p := d.Path
		if p == "" {
			continue
		}
		q.paths[p] = true
		switch {
		case path.Base(p) == "go.mod":
			if m := goModuleRE.FindStringSubmatch(d.Text); m != nil {
				q.goModules[dir(p)] = m[2]
			}
		case strings.HasSuffix(p, ".go") && !strings.HasSuffix(p, "_test.go"):
			if m := goPackageRE.FindStringSubmatch(d.Text); m != nil {
				if _, ok := q.goPkgs[dir(p)]; !ok {
					q.goPkgs[dir(p)] = m[1]
				}
			}
		case strings.HasSuffix(p, ".java"):
			if m := javaPkgRE.FindStringSubmatch(d.Text); m != nil {
				q.javaPkgs[p] = spaceRE.ReplaceAllString(m[1], "")
			}
		case path.Base(p) == "__init__.py" || path.Base(p) == "__init__.pyi":
			inits = append(inits, d)
		}
	}
	for _, d := range inits {
		q.pythonReexports(d.Path, d.Text)
	}
	return q
}

// pyFromImportRE finds a top-level "from M import N [as A], …" statement
// (names in parentheses over several lines, or on one line): 1 the leading
// dots, 2 the module, 3 the names.
var pyFromImportRE = regexp.MustCompile(`(?m)^from[ \t]+(\.*)[ \t]*([A-Za-z_][A-Za-z0-9_.]*)?[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)`)

// pythonReexports records the names package file p (an __init__.py)
// imports at top level, as the package's names.
func (q *Qualifier) pythonReexports(p, text string) {
	pkg := q.python(p)
	if pkg == "" {
		return
	}
	for _, m := range pyFromImportRE.FindAllStringSubmatch(text, -1) {
		base := m[2]
		if dots := len(m[1]); dots > 0 {
			parts := strings.Split(pkg, ".")
			if dots-1 >= len(parts) {
				continue // above the top package
			}
			base = strings.Join(parts[:len(parts)-(dots-1)], ".")
			if m[2] != "" {
				base += "." + m[2]
			}
		}
		names := strings.Trim(m[3], "()")
		for _, line := range strings.Split(names, "\n") {
			line, _, _ = strings.Cut(line, "#")
			for _, n := range strings.Split(strings.TrimSuffix(strings.TrimSpace(line), "\\"), ",") {
				f := strings.Fields(n)
				name, as := "", ""
				switch {
				case len(f) == 1:
					name, as = f[0], f[0]
				case len(f) == 3 && f[1] == "as":
					name, as = f[0], f[2]
				default:
					continue
				}
				if name == "*" || !pyNameRE.MatchString(name) || !pyNameRE.MatchString(as) {
					continue
				}
				if from, to := pkg+"."+as, base+"."+name; from != to {
					if _, ok := q.reexports[from]; !ok {
						q.reexports[from] = to
					}
				}
			}
		}
	}
}

var pyNameRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Resolve returns written with its longest prefix (at a dot) that a
// package re-exports replaced by the name the package imports, again until
// no prefix is re-exported (at most 8 times: chains of packages, never a
// cycle): "flask.Flask.run" → "flask.app.Flask.run". A name without a
// re-exported prefix is returned as written.
func (q *Qualifier) Resolve(written string) string {
	if q == nil || len(q.reexports) == 0 {
		return written
	}
	for range 8 {
		hit := ""
		for p := written; p != ""; {
			if _, ok := q.reexports[p]; ok {
				hit = p
				break
			}
			i := strings.LastIndexByte(p, '.')
			if i < 0 {
				break
			}
			p = p[:i]
		}
		if hit == "" {
			break
		}
		written = q.reexports[hit] + written[len(hit):]
	}
	return written
}

// dir is path.Dir with "" for the root.
func dir(p string) string {
	d := path.Dir(p)
	if d == "." || d == "/" {
		return ""
	}
	return d
}

// Name returns the fully qualified name of symbol (the chunker's
// "Class.method") defined in file p of the given language ("" = by
// extension). An empty symbol gives the module's own name.
func (q *Qualifier) Name(p, language, symbol string) string {
	if language == "" {
		language = LanguageOf(p)
	}
	var mod string
	switch language {
	case Python:
		mod = q.python(p)
	case Go:
		mod = q.goImportPath(p)
	case Java:
		mod = q.javaPkgs[p]
	case TypeScript:
		mod = typescript(p)
	case Rust:
		mod = rust(p)
	}
	switch {
	case mod == "":
		return symbol
	case symbol == "":
		return mod
	}
	return mod + "." + symbol
}

func (q *Qualifier) python(p string) string {
	d, base := dir(p), path.Base(p)
	name := strings.TrimSuffix(strings.TrimSuffix(base, ".py"), ".pyi")
	if name == base {
		return "" // not a Python file name
	}
	var parts []string
	if name != "__init__" {
		parts = append(parts, name)
	}
	if q.isPackage(d) {
		for d != "" && q.isPackage(d) {
			parts = append(parts, path.Base(d))
			d = dir(d)
		}
	} else {
		dirs := strings.Split(strings.TrimSuffix(strings.TrimPrefix(d+"/", "src/"), "/"), "/")
		slices.Reverse(dirs)
		for _, s := range dirs {
			if s != "" {
				parts = append(parts, s)
			}
		}
	}
	slices.Reverse(parts)
	return strings.Join(parts, ".")
}

func (q *Qualifier) isPackage(d string) bool {
	if d == "" {
		return false
	}
	return q.paths[d+"/__init__.py"] || q.paths[d+"/__init__.pyi"]
}

func (q *Qualifier) goImportPath(p string) string {
	d := dir(p)
	for m := d; ; m = dir(m) {
		if mod, ok := q.goModules[m]; ok {
			if m == d {
				return mod
			}
			rel := d
			if m != "" {
				rel = strings.TrimPrefix(d, m+"/")
			}
			return mod + "/" + rel
		}
		if m == "" {
			break
		}
	}
	if d == "" {
		return q.goPkgs[""]
	}
	return d
}

func typescript(p string) string {
	s := p
	for _, ext := range []string{".d.ts", ".tsx", ".ts", ".mts", ".cts"} {
		if strings.HasSuffix(s, ext) {
			s = strings.TrimSuffix(s, ext)
			break
		}
	}
	if path.Base(s) == "index" {
		s = dir(s)
	}
	return strings.ReplaceAll(s, "/", ".")
}

func rust(p string) string {
	s := strings.TrimSuffix(p, ".rs")
	if i := strings.LastIndex("/"+s, "/src/"); i >= 0 {
		s = s[i+len("/src/")-1:]
	}
	switch path.Base(s) {
	case "lib", "main", "mod":
		s = dir(s)
	}
	return strings.ReplaceAll(s, "/", ".")
}

// SymbolMatches reports whether written names the definition whose fully
// qualified name is qualified: it is the whole name, or a suffix of it that
// starts right after a "." or a "/" (a Go import path's separator).
// "HTTPAdapter.send" matches "requests.adapters.HTTPAdapter.send";
// "Adapter.send" does not.
func SymbolMatches(qualified, written string) bool {
	if written == "" || !strings.HasSuffix(qualified, written) {
		return false
	}
	if len(written) == len(qualified) {
		return true
	}
	c := qualified[len(qualified)-len(written)-1]
	return (c == '.' || c == '/') && written[0] != '.' && written[0] != '/'
}
