package chunk

import (
	"strings"

	sitter "github.com/tree-sitter/go-tree-sitter"

	"github.com/retrievalbench/retrievalbench/codetext"
)

// role says what a syntax node means for chunking.
type role int

const (
	roleFunction    role = iota // a chunk; nothing inside is split out
	roleClass                   // a chunk; members in body are split out
	roleScope                   // no chunk (namespace, module): members in body are qualified by name
	roleTransparent             // no chunk (if/try/#ifdef/export…): members in body keep the scope
)

// def is a classified node.
type def struct {
	role   role
	outer  *sitter.Node // the node whose lines the chunk covers (with its decorators, template header, export…)
	name   string
	body   *sitter.Node // members, for classes, scopes and transparent nodes
	method bool         // a function that is a method wherever it appears (Go receivers, C++ A::f)
}

// classify tells whether n is a definition, a scope or a transparent
// wrapper in f's language.
func (f *file) classify(n *sitter.Node) (def, bool) {
	switch f.lang {
	case codetext.Python:
		return f.classifyPython(n)
	case codetext.Go:
		return f.classifyGo(n)
	case codetext.Java:
		return f.classifyJava(n)
	case codetext.TypeScript:
		return f.classifyTS(n)
	case codetext.Rust:
		return f.classifyRust(n)
	case codetext.Cpp:
		return f.classifyCpp(n)
	}
	return def{}, false
}

func (f *file) text(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	return string(f.src[n.StartByte():n.EndByte()])
}

func (f *file) fieldText(n *sitter.Node, field string) string {
	return f.text(n.ChildByFieldName(field))
}

// wrap returns a function reporting d with its outer node replaced by a
// wrapping node (decorators, template header, export).
func wrap(d def, ok bool) func(w *sitter.Node) (def, bool) {
	return func(w *sitter.Node) (def, bool) {
		if ok && (d.role == roleFunction || d.role == roleClass) {
			d.outer = w
		}
		return d, ok
	}
}

func (f *file) classifyPython(n *sitter.Node) (def, bool) {
	switch n.Kind() {
	case "function_definition":
		return def{role: roleFunction, outer: n, name: f.fieldText(n, "name")}, true
	case "class_definition":
		return def{role: roleClass, outer: n, name: f.fieldText(n, "name"), body: n.ChildByFieldName("body")}, true
	case "decorated_definition":
		if inner := n.ChildByFieldName("definition"); inner != nil {
			return wrap(f.classifyPython(inner))(n)
		}
	case "if_statement", "elif_clause", "else_clause", "try_statement", "except_clause",
		"except_group_clause", "finally_clause", "with_statement", "block":
		return def{role: roleTransparent, body: n}, true
	}
	return def{}, false
}

func (f *file) classifyGo(n *sitter.Node) (def, bool) {
	switch n.Kind() {
	case "function_declaration":
		return def{role: roleFunction, outer: n, name: f.fieldText(n, "name")}, true
	case "method_declaration":
		name := f.fieldText(n, "name")
		if recv := goReceiverType(n.ChildByFieldName("receiver")); recv != nil {
			name = f.text(recv) + "." + name
		}
		return def{role: roleFunction, outer: n, name: name, method: true}, true
	case "type_declaration":
		// A grouped declaration "type ( A …; B … )" is one chunk named
		// after its first type.
		for i := uint(0); i < n.NamedChildCount(); i++ {
			c := n.NamedChild(i)
			if c.Kind() == "type_spec" || c.Kind() == "type_alias" {
				return def{role: roleClass, outer: n, name: f.fieldText(c, "name")}, true
			}
		}
	}
	return def{}, false
}

// goReceiverType returns the type name node of a method receiver
// ("(s *Stack[T])" → Stack).
func goReceiverType(params *sitter.Node) *sitter.Node {
	if params == nil {
		return nil
	}
	for i := uint(0); i < params.NamedChildCount(); i++ {
		p := params.NamedChild(i)
		if p.Kind() != "parameter_declaration" {
			continue
		}
		t := p.ChildByFieldName("type")
		for t != nil {
			switch t.Kind() {
			case "pointer_type", "parenthesized_type":
				t = t.NamedChild(0)
			case "generic_type":
				t = t.ChildByFieldName("type")
			default:
				return t
			}
		}
	}
	return nil
}

func (f *file) classifyJava(n *sitter.Node) (def, bool) {
	switch n.Kind() {
	case "class_declaration", "interface_declaration", "enum_declaration", "record_declaration",
		"annotation_type_declaration":
		return def{role: roleClass, outer: n, name: f.fieldText(n, "name"), body: n.ChildByFieldName("body")}, true
	case "method_declaration", "constructor_declaration", "compact_constructor_declaration":
		// Abstract and interface methods without a body stay in their type.
		if n.ChildByFieldName("body") != nil {
			return def{role: roleFunction, outer: n, name: f.fieldText(n, "name")}, true
		}
	case "enum_body_declarations":
		return def{role: roleTransparent, body: n}, true
	}
	return def{}, false
}

func (f *file) classifyTS(n *sitter.Node) (def, bool) {
	switch n.Kind() {
	case "function_declaration", "generator_function_declaration":
		return def{role: roleFunction, outer: n, name: f.fieldText(n, "name")}, true
	case "method_definition":
		return def{role: roleFunction, outer: n, name: f.fieldText(n, "name")}, true
	case "public_field_definition":
		// A class property holding a function ("handle = (e) => {…}").
		if isTSFunction(n.ChildByFieldName("value")) {
			return def{role: roleFunction, outer: n, name: f.fieldText(n, "name")}, true
		}
	case "class_declaration", "abstract_class_declaration", "class":
		return def{role: roleClass, outer: n, name: f.fieldText(n, "name"), body: n.ChildByFieldName("body")}, true
	case "interface_declaration", "enum_declaration":
		return def{role: roleClass, outer: n, name: f.fieldText(n, "name")}, true
	case "lexical_declaration", "variable_declaration":
		// "const f = (…) => {…}": a function bound to a single name.
		if n.NamedChildCount() == 1 {
			v := n.NamedChild(0)
			if v.Kind() == "variable_declarator" && isTSFunction(v.ChildByFieldName("value")) {
				return def{role: roleFunction, outer: n, name: f.fieldText(v, "name")}, true
			}
		}
	case "export_statement":
		if decl := n.ChildByFieldName("declaration"); decl != nil {
			return wrap(f.classifyTS(decl))(n)
		}
		if v := n.ChildByFieldName("value"); v != nil {
			if isTSFunction(v) {
				return def{role: roleFunction, outer: n, name: "default"}, true
			}
			if v.Kind() == "class" {
				d, ok := f.classifyTS(v)
				if d.name == "" {
					d.name = "default"
				}
				return wrap(d, ok)(n)
			}
		}
	case "internal_module", "module":
		name := strings.Trim(f.fieldText(n, "name"), `"'`+"`")
		if body := n.ChildByFieldName("body"); body != nil {
			return def{role: roleScope, name: name, body: body}, true
		}
	case "ambient_declaration":
		// "declare class C {…}" is the class with its "declare" prefix.
		for i := uint(0); i < n.NamedChildCount(); i++ {
			if d, ok := f.classifyTS(n.NamedChild(i)); ok {
				return wrap(d, ok)(n)
			}
		}
	case "expression_statement":
		return def{role: roleTransparent, body: n}, true
	}
	return def{}, false
}

func isTSFunction(n *sitter.Node) bool {
	if n == nil {
		return false
	}
	switch n.Kind() {
	case "arrow_function", "function_expression", "function", "generator_function":
		return true
	}
	return false
}

func (f *file) classifyRust(n *sitter.Node) (def, bool) {
	switch n.Kind() {
	case "function_item":
		return def{role: roleFunction, outer: n, name: f.fieldText(n, "name")}, true
	case "impl_item":
		return def{role: roleClass, outer: n, name: f.rustTypeName(n.ChildByFieldName("type")), body: n.ChildByFieldName("body")}, true
	case "trait_item":
		return def{role: roleClass, outer: n, name: f.fieldText(n, "name"), body: n.ChildByFieldName("body")}, true
	case "struct_item", "enum_item", "union_item":
		return def{role: roleClass, outer: n, name: f.fieldText(n, "name")}, true
	case "mod_item":
		if body := n.ChildByFieldName("body"); body != nil {
			return def{role: roleScope, name: f.fieldText(n, "name"), body: body}, true
		}
	}
	return def{}, false
}

// rustTypeName strips generics, references and paths from an impl's type
// ("Wrapper<T>" → "Wrapper", "&'a mut fmt::Formatter" → "Formatter").
func (f *file) rustTypeName(t *sitter.Node) string {
	for t != nil {
		switch t.Kind() {
		case "generic_type":
			t = t.ChildByFieldName("type")
		case "reference_type", "pointer_type":
			t = t.ChildByFieldName("type")
		case "scoped_type_identifier":
			t = t.ChildByFieldName("name")
		default:
			return f.text(t)
		}
	}
	return ""
}

func (f *file) classifyCpp(n *sitter.Node) (def, bool) {
	switch n.Kind() {
	case "function_definition":
		name, qualified := f.cppDeclName(n.ChildByFieldName("declarator"))
		return def{role: roleFunction, outer: n, name: name, method: qualified}, true
	case "class_specifier", "struct_specifier", "union_specifier":
		if body := n.ChildByFieldName("body"); body != nil {
			return def{role: roleClass, outer: n, name: f.cppName(n.ChildByFieldName("name")), body: body}, true
		}
	case "enum_specifier":
		if n.ChildByFieldName("body") != nil {
			return def{role: roleClass, outer: n, name: f.cppName(n.ChildByFieldName("name"))}, true
		}
	case "template_declaration":
		for i := uint(0); i < n.NamedChildCount(); i++ {
			c := n.NamedChild(i)
			if c.Kind() == "template_parameter_list" {
				continue
			}
			if d, ok := f.classifyCpp(c); ok && (d.role == roleFunction || d.role == roleClass) {
				return wrap(d, ok)(n)
			}
		}
	case "declaration", "field_declaration":
		// "struct Inner { … };" inside a class or namespace.
		if t := n.ChildByFieldName("type"); t != nil {
			if d, ok := f.classifyCpp(t); ok && d.role == roleClass {
				return wrap(d, ok)(n)
			}
		}
	case "namespace_definition":
		if body := n.ChildByFieldName("body"); body != nil {
			name := strings.ReplaceAll(f.fieldText(n, "name"), "::", ".")
			return def{role: roleScope, name: name, body: body}, true
		}
	case "linkage_specification":
		// extern "C" { … } is looked through; extern "C" int f() {…} is f.
		if body := n.ChildByFieldName("body"); body != nil {
			if body.Kind() == "declaration_list" {
				return def{role: roleTransparent, body: body}, true
			}
			return wrap(f.classifyCpp(body))(n)
		}
	case "declaration_list", "preproc_if", "preproc_ifdef", "preproc_else",
		"preproc_elif", "preproc_elifdef":
		return def{role: roleTransparent, body: n}, true
	}
	return def{}, false
}

// cppDeclName returns the name a function declarator declares, with
// scopes joined by "." ("ns::Box<T>::set" → "ns.Box.set"), and whether it
// was qualified (an out-of-line member definition).
func (f *file) cppDeclName(d *sitter.Node) (string, bool) {
	for d != nil {
		switch d.Kind() {
		case "function_declarator", "pointer_declarator", "reference_declarator",
			"parenthesized_declarator", "attributed_declarator":
			next := d.ChildByFieldName("declarator")
			if next == nil && d.NamedChildCount() > 0 {
				next = d.NamedChild(d.NamedChildCount() - 1)
			}
			d = next
		case "qualified_identifier":
			return f.cppName(d), true
		default:
			return f.cppName(d), false
		}
	}
	return "", false
}

// cppName renders a (possibly qualified or templated) name without
// template arguments, scopes joined by ".".
func (f *file) cppName(n *sitter.Node) string {
	if n == nil {
		return ""
	}
	switch n.Kind() {
	case "qualified_identifier":
		scope := f.cppName(n.ChildByFieldName("scope"))
		name := f.cppName(n.ChildByFieldName("name"))
		if scope == "" {
			return name
		}
		return scope + "." + name
	case "template_type", "template_function", "template_method":
		return f.cppName(n.ChildByFieldName("name"))
	}
	return strings.Join(strings.Fields(f.text(n)), "")
}
