package sweqa

import (
	"path"
	"regexp"
	"strings"
)

// fileExts are the extensions a bare token must end with to be taken as a
// file name. Wider than the corpus rule on purpose: a cited ".c" file that
// the corpus lacks stays unresolved instead of being misread as a module.
var fileExts = map[string]bool{
	"py": true, "pyi": true, "pyx": true, "pxd": true, "md": true, "rst": true, "txt": true,
	"toml": true, "cfg": true, "ini": true, "yaml": true, "yml": true, "json": true,
	"c": true, "h": true, "cpp": true, "js": true, "ts": true, "html": true, "css": true,
	"sql": true, "sh": true, "in": true, "lock": true,
}

// tokenRE finds candidate citations: runs of path and dotted-name
// characters. Colons, backticks, parentheses and spaces end a token, so
// "app.py:12", "`app.py`" and "app.py (lines 3-9)" all yield "app.py".
var tokenRE = regexp.MustCompile(`[A-Za-z0-9_./\-]+`)

// identRE is one Python identifier.
var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// Resolver maps the citations of an answer to files of one corpus.
type Resolver struct {
	paths   []string
	exact   map[string]bool
	byBase  map[string][]string
	modules map[string][]string // dotted module name → files
}

// NewResolver indexes the file paths of one corpus.
func NewResolver(paths []string) *Resolver {
	r := &Resolver{
		paths:   paths,
		exact:   make(map[string]bool, len(paths)),
		byBase:  make(map[string][]string),
		modules: make(map[string][]string),
	}
	for _, p := range paths {
		r.exact[p] = true
		b := path.Base(p)
		r.byBase[b] = append(r.byBase[b], p)
		for _, m := range moduleNames(p) {
			r.modules[m] = append(r.modules[m], p)
		}
	}
	return r
}

// moduleNames returns the dotted import names of a Python file: its path
// as a module, and again without a leading "src/" or "lib/" (the usual
// source roots). Packages are named by their __init__.py.
func moduleNames(p string) []string {
	var stem string
	switch {
	case strings.HasSuffix(p, ".py"):
		stem = strings.TrimSuffix(p, ".py")
	case strings.HasSuffix(p, ".pyi"):
		stem = strings.TrimSuffix(p, ".pyi")
	default:
		return nil
	}
	stem = strings.TrimSuffix(stem, "/__init__")
	if stem == "__init__" {
		return nil
	}
	names := []string{strings.ReplaceAll(stem, "/", ".")}
	for _, root := range []string{"src/", "lib/"} {
		if s, ok := strings.CutPrefix(stem, root); ok {
			names = append(names, strings.ReplaceAll(s, "/", "."))
		}
	}
	return names
}

// Resolve returns the corpus files an answer cites, in order of first
// citation, without duplicates. It recognises:
//
//   - paths with a slash, with or without a line range
//     ("src/flask/app.py (lines 10-20)", "flask/json/provider.py:144"):
//     exact match, else the unique corpus path ending in "/"+cited, else the
//     longest corpus path the citation ends with (a repo-name prefix);
//   - dotted module names ("requests.exceptions", "_pytest.reports.TestReport"):
//     the name, or the name without its last one or two parts (an attribute,
//     Class.method), when that names exactly one module of two or more
//     parts rooted at the repository root or at src/ or lib/;
//   - bare file names ("debughelpers.py") when exactly one corpus file has
//     that base name.
//
// Anything else (ambiguous names, files outside the corpus) is ignored.
func (r *Resolver) Resolve(answer string) []string {
	var out []string
	seen := make(map[string]bool)
	add := func(p string) {
		if p != "" && !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, tok := range tokenRE.FindAllString(answer, -1) {
		tok = strings.Trim(tok, ".-")
		tok = strings.TrimPrefix(tok, "./")
		tok = strings.TrimLeft(tok, "/")
		if tok == "" {
			continue
		}
		switch {
		case strings.Contains(tok, "/"):
			add(r.resolvePath(tok))
		case fileExts[strings.ToLower(ext(tok))]:
			if ps := r.byBase[tok]; len(ps) == 1 {
				add(ps[0])
			} else if len(ps) == 0 {
				// "flask.json.provider.py" style: a module written as a file.
				add(r.resolveModule(strings.TrimSuffix(tok, "."+ext(tok))))
			}
		default:
			add(r.resolveModule(tok))
		}
	}
	return out
}

func (r *Resolver) resolvePath(p string) string {
	if r.exact[p] {
		return p
	}
	var suffix []string
	best := ""
	for _, c := range r.paths {
		if strings.HasSuffix(c, "/"+p) {
			suffix = append(suffix, c)
		}
		if strings.HasSuffix(p, "/"+c) && len(c) > len(best) {
			best = c
		}
	}
	if len(suffix) == 1 {
		return suffix[0]
	}
	if len(suffix) > 1 {
		return ""
	}
	return best
}

func (r *Resolver) resolveModule(name string) string {
	parts := strings.Split(name, ".")
	for _, p := range parts {
		if !identRE.MatchString(p) {
			return ""
		}
	}
	// The name itself, or a module followed by an attribute or by
	// Class.method; a package's __init__.py only when named exactly, so
	// "pkg.sub.gone" (a module absent at this commit) cites nothing.
	for n := len(parts); n >= 2 && n >= len(parts)-2; n-- {
		ps := preferSource(r.modules[strings.Join(parts[:n], ".")])
		if n < len(parts) && len(ps) == 1 && strings.HasSuffix(ps[0], "__init__.py") {
			return ""
		}
		if len(ps) == 1 {
			return ps[0]
		}
		if len(ps) > 1 {
			return "" // ambiguous: cite nothing
		}
	}
	return ""
}

func ext(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return ""
	}
	return name[i+1:]
}

// preferSource drops .pyi stubs when the module also has a .py source.
func preferSource(ps []string) []string {
	if len(ps) < 2 {
		return ps
	}
	var src []string
	for _, p := range ps {
		if strings.HasSuffix(p, ".py") {
			src = append(src, p)
		}
	}
	if len(src) == 0 {
		return ps
	}
	return src
}
