package codetext

import (
	"testing"

	"github.com/retrievalbench/retrievalbench/corpus"
)

// qualifyCorpus is a repository with the layouts Name must tell apart.
func qualifyCorpus() *corpus.Corpus {
	files := map[string]string{
		// Python: a src/ layout package, a flat package, a nested package
		// whose parent is not one, a script and a test directory.
		"src/requests/__init__.py":        "from .api import get\n",
		"src/requests/adapters.py":        "class HTTPAdapter:\n    def send(self): pass\n",
		"src/requests/compat/__init__.py": "",
		"src/requests/compat/py3.py":      "def f(): pass\n",
		"flask/__init__.py":               "",
		"flask/app.py":                    "class Flask: pass\n",
		"tools/gen/__init__.py":           "",
		"tools/gen/run.py":                "def main(): pass\n",
		"setup.py":                        "def setup(): pass\n",
		"tests/test_api.py":               "def test_get(): pass\n",
		"stubs/typing.pyi":                "def cast(): ...\n",
		// Go: a module at the root, a nested module, and a tree without go.mod.
		"go.mod":                    "module example.com/kv // the store\n\ngo 1.22\n",
		"main.go":                   "package main\n",
		"store/store.go":            "package store\n\ntype Store struct{}\n",
		"store/internal/lru/lru.go": "package lru\n",
		"tools/go.mod":              "module \"example.com/kv/tools\"\n",
		"tools/lint/lint.go":        "package lint\n",
		// Java: a package declaration split over spaces, and none.
		"src/main/java/org/acme/Store.java": "// header\npackage org . acme.kv ;\n\npublic class Store {}\n",
		"Plain.java":                        "public class Plain {}\n",
		// TypeScript.
		"src/util/index.ts":   "export function slug() {}\n",
		"src/util/strings.ts": "export function pad() {}\n",
		"types/api.d.ts":      "export interface Req {}\n",
		// Rust.
		"src/lib.rs":     "pub fn root() {}\n",
		"src/net/mod.rs": "pub fn up() {}\n",
		"src/net/tcp.rs": "pub struct Conn;\n",
	}
	c := &corpus.Corpus{ID: "r"}
	for p, text := range files {
		c.Docs = append(c.Docs, corpus.Doc{ID: p, Path: p, Kind: "file", Language: LanguageOf(p), Text: text})
	}
	return c
}

func TestQualifierName(t *testing.T) {
	q := NewQualifier(qualifyCorpus())
	tests := []struct {
		name, path, lang, symbol, want, reason string
	}{
		{"py-src-layout", "src/requests/adapters.py", "", "HTTPAdapter.send", "requests.adapters.HTTPAdapter.send",
			"src/ is not a package (no __init__.py), so the package chain starts at requests"},
		{"py-init", "src/requests/__init__.py", "python", "get", "requests.get",
			"a package's __init__.py is the package itself"},
		{"py-init-module", "src/requests/__init__.py", "python", "", "requests",
			"an empty symbol names the module"},
		{"py-subpackage", "src/requests/compat/py3.py", "", "f", "requests.compat.py3.f",
			"the chain of __init__.py directories goes up to the topmost package"},
		{"py-flat", "flask/app.py", "", "Flask", "flask.app.Flask", "a package at the repository root"},
		{"py-nested-root", "tools/gen/run.py", "", "main", "gen.run.main",
			"tools has no __init__.py, so the package gen is the top"},
		{"py-script", "setup.py", "", "setup", "setup.setup", "a root script is its own module"},
		{"py-no-package", "tests/test_api.py", "", "test_get", "tests.test_api.test_get",
			"outside any package the path names the module"},
		{"py-stub", "stubs/typing.pyi", "", "cast", "stubs.typing.cast", ".pyi is dropped like .py"},
		{"go-module-dir", "store/store.go", "", "Store.Get", "example.com/kv/store.Store.Get",
			"module path of the root go.mod joined with the directory, then receiver type and method"},
		{"go-module-root", "main.go", "", "main", "example.com/kv.main", "a file next to go.mod is in the module's root package"},
		{"go-deep", "store/internal/lru/lru.go", "", "New", "example.com/kv/store/internal/lru.New",
			"every directory below the go.mod is part of the import path"},
		{"go-nested-module", "tools/lint/lint.go", "", "Run", "example.com/kv/tools/lint.Run",
			"the nearest go.mod wins (a quoted module path is unquoted)"},
		{"java-package", "src/main/java/org/acme/Store.java", "", "Store.get", "org.acme.kv.Store.get",
			"the package declaration, not the directory, names a Java package"},
		{"java-default-package", "Plain.java", "", "Plain.run", "Plain.run", "no package declaration: the default package"},
		{"ts-index", "src/util/index.ts", "", "slug", "src.util.slug", "an index file stands for its directory"},
		{"ts-module", "src/util/strings.ts", "", "pad", "src.util.strings.pad", "path without extension, slashes as dots"},
		{"ts-declaration", "types/api.d.ts", "", "Req", "types.api.Req", ".d.ts is one extension"},
		{"rust-lib", "src/lib.rs", "", "root", "root", "lib.rs is the crate root"},
		{"rust-mod", "src/net/mod.rs", "", "up", "net.up", "mod.rs stands for its directory"},
		{"rust-file", "src/net/tcp.rs", "", "Conn", "net.tcp.Conn", "the module path below src/"},
		{"cpp", "src/box.hpp", "", "ns.Box.set", "ns.Box.set", "C++ symbols carry their namespaces already"},
		{"unknown", "README.md", "", "x", "x", "a file of no known language keeps the symbol"},
	}
	seen := map[string]bool{}
	for _, tt := range tests {
		if seen[tt.name] {
			t.Fatalf("duplicate case %s", tt.name)
		}
		seen[tt.name] = true
		t.Run(tt.name, func(t *testing.T) {
			if got := q.Name(tt.path, tt.lang, tt.symbol); got != tt.want {
				t.Errorf("Name(%q, %q, %q) = %q, want %q (%s)", tt.path, tt.lang, tt.symbol, got, tt.want, tt.reason)
			}
		})
	}
}

func TestQualifierGoWithoutModule(t *testing.T) {
	c := &corpus.Corpus{Docs: []corpus.Doc{
		{Path: "kv/store.go", Text: "package kv\n"},
		{Path: "main.go", Text: "// Command x.\npackage app\n"},
	}}
	q := NewQualifier(c)
	for _, tt := range []struct{ path, want, reason string }{
		{"kv/store.go", "kv.Store.Get", "without go.mod the directory is the import path"},
		{"main.go", "app.Store.Get", "at the root without go.mod, the package clause names the package"},
	} {
		if got := q.Name(tt.path, "go", "Store.Get"); got != tt.want {
			t.Errorf("Name(%q) = %q, want %q (%s)", tt.path, got, tt.want, tt.reason)
		}
	}
}

func TestQualifierNilCorpus(t *testing.T) {
	q := NewQualifier(nil)
	if got, want := q.Name("src/requests/adapters.py", "python", "HTTPAdapter.send"), "requests.adapters.HTTPAdapter.send"; got != want {
		t.Errorf("without a corpus: got %q, want %q (src/ is still dropped)", got, want)
	}
}

func TestSymbolMatches(t *testing.T) {
	const py = "requests.adapters.HTTPAdapter.send"
	const goName = "example.com/kv/store.Store.Get"
	tests := []struct {
		qualified, written string
		want               bool
		reason             string
	}{
		{py, py, true, "the fully qualified name"},
		{py, "adapters.HTTPAdapter.send", true, "a suffix after a dot"},
		{py, "HTTPAdapter.send", true, "the chunker's own name"},
		{py, "send", true, "the bare method name is a dotted suffix too"},
		{py, "Adapter.send", false, "a suffix inside a name part"},
		{py, "quests.adapters.HTTPAdapter.send", false, "cut inside the first part"},
		{py, "requests.adapters.HTTPAdapter", false, "a prefix names the class, not the method"},
		{py, "x.requests.adapters.HTTPAdapter.send", false, "longer than the qualified name"},
		{py, "", false, "nothing written matches nothing"},
		{py, ".send", false, "a leading dot is not a name"},
		{goName, "store.Store.Get", true, "a Go package name after the import path's slash"},
		{goName, "kv/store.Store.Get", true, "part of the import path"},
		{goName, goName, true, "the full import path"},
		{goName, "tore.Store.Get", false, "a cut inside the package name"},
		{goName, "/store.Store.Get", false, "a leading slash is not a name"},
	}
	for _, tt := range tests {
		if got := SymbolMatches(tt.qualified, tt.written); got != tt.want {
			t.Errorf("SymbolMatches(%q, %q) = %v, want %v (%s)", tt.qualified, tt.written, got, tt.want, tt.reason)
		}
	}
}

// TestQualifierResolve checks the re-exports of packages' __init__.py
// files, worked out by hand: relative and absolute imports, "as", a
// parenthesised list over lines, a chain of packages; not an indented
// (conditional) import, a star import, nor a plain module's import.
func TestQualifierResolve(t *testing.T) {
	c := &corpus.Corpus{Docs: []corpus.Doc{
		{Path: "src/web/__init__.py", Text: "from . import json as json\nfrom .app import Flask as Flask\nfrom .helpers import (\n    url_for,  # the URL\n    redirect as go_to,\n)\nfrom web.wrappers import Request\nfrom .sub import Engine\nfrom .star import *\nif TYPE_CHECKING:\n    from .typing import Hidden\n"},
		{Path: "src/web/app.py", Text: "from .wrappers import Response\nclass Flask:\n    def run(self): pass\n"},
		{Path: "src/web/helpers.py", Text: "def url_for(): pass\ndef redirect(): pass\n"},
		{Path: "src/web/wrappers.py", Text: "class Request: pass\nclass Response: pass\n"},
		{Path: "src/web/sub/__init__.py", Text: "from ..engine import Engine as Engine\nfrom ...outside import Nothing\n"},
		{Path: "src/web/engine.py", Text: "class Engine: pass\n"},
		{Path: "src/web/json/__init__.py", Text: ""},
	}}
	q := NewQualifier(c)
	tests := []struct{ written, want, why string }{
		{"web.Flask", "web.app.Flask", "from .app import Flask as Flask"},
		{"web.Flask.run", "web.app.Flask.run", "a method through its re-exported class"},
		{"web.url_for", "web.helpers.url_for", "a parenthesised list, a comment after a name"},
		{"web.go_to", "web.helpers.redirect", "imported under another name"},
		{"web.redirect", "web.redirect", "the name it was imported as is the package's, not the original"},
		{"web.Request", "web.wrappers.Request", "an absolute import"},
		{"web.Engine", "web.engine.Engine", "a chain: web imports it from web.sub, which imports it from ..engine"},
		{"web.Hidden", "web.Hidden", "an indented (conditional) import is not a re-export"},
		{"web.app.Response", "web.app.Response", "a plain module's imports are not re-exports"},
		{"web.json", "web.json", "a submodule imported as itself"},
		{"Flask", "Flask", "a bare name needs no resolving"},
		{"webx.Flask", "webx.Flask", "a prefix only at a dot"},
	}
	for _, tc := range tests {
		if got := q.Resolve(tc.written); got != tc.want {
			t.Errorf("Resolve(%q) = %q, want %q (%s)", tc.written, got, tc.want, tc.why)
		}
	}
	if got := (*Qualifier)(nil).Resolve("web.Flask"); got != "web.Flask" {
		t.Errorf("nil Qualifier resolved %q", got)
	}
}
