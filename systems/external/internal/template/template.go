// Package template is the placeholder language of an external system's
// config: {query}, {k}, {corpus}, {work}, {cache}, {port}, {captured.NAME}
// and ${ENV} / ${ENV:-default} references, which a Phase allows where
// (Check), and their expansion (Vars) into strings, argv, URLs with escaped
// data and JSON values.
package template

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// Placeholder names. Which are available depends on where a string is used
// (see Phase); {captured.NAME} is available to a call after the one that
// captures NAME.
const (
	PhQuery   = "query"
	PhK       = "k"
	PhLibrary = "library"
	PhRepo    = "repo"
	PhCorpus  = "corpus"
	PhWork    = "work"
	PhCache   = "cache"
	PhPort    = "port"
	PhCapture = "captured."
)

// A Phase says which placeholders a string may use.
type Phase int

const (
	PhaseCache  Phase = iota // version_command: {cache} only
	PhaseCorpus              // env, files, index, server commands: + {corpus} {work} ({port} with an HTTP server)
	PhaseQuery               // calls, search, http request, result.library: + {query} {k} {library} {repo} {captured.*}
)

func (p Phase) allows(name string, port bool) bool {
	switch name {
	case PhCache:
		return true
	case PhCorpus, PhWork:
		return p >= PhaseCorpus
	case PhPort:
		return p >= PhaseCorpus && port
	case PhQuery, PhK, PhLibrary, PhRepo:
		return p >= PhaseQuery
	}
	return p >= PhaseQuery && strings.HasPrefix(name, PhCapture)
}

// segment is one piece of a parsed template: literal text, a placeholder
// {name}, or an environment reference ${NAME} / ${NAME:-default}.
type segment struct {
	lit    string
	ph     string // placeholder name, "" if none
	env    string // environment variable name, "" if none
	def    string
	hasDef bool
}

// parseTemplate splits s into segments. "{{" and "}}" stand for literal
// braces; a "{" that does not open a placeholder name ({a-z0-9_} with an
// optional ".NAME" suffix) is literal, so YAML or JSON text in a file
// template needs no escaping unless it contains a word in braces.
func parseTemplate(s string) ([]segment, error) {
	var segs []segment
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			segs = append(segs, segment{lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); {
		switch {
		case strings.HasPrefix(s[i:], "{{"):
			lit.WriteByte('{')
			i += 2
		case strings.HasPrefix(s[i:], "}}"):
			lit.WriteByte('}')
			i += 2
		case strings.HasPrefix(s[i:], "${"):
			end := strings.IndexByte(s[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("unterminated ${ in %q", s)
			}
			ref := s[i+2 : i+end]
			name, def, hasDef := strings.Cut(ref, ":-")
			if !IsEnvName(name) {
				return nil, fmt.Errorf("${%s}: %q is not an environment variable name", ref, name)
			}
			flush()
			segs = append(segs, segment{env: name, def: def, hasDef: hasDef})
			i += end + 1
		case s[i] == '{':
			end := strings.IndexByte(s[i:], '}')
			if end > 0 && isPlaceholderName(s[i+1:i+end]) {
				flush()
				segs = append(segs, segment{ph: s[i+1 : i+end]})
				i += end + 1
				continue
			}
			lit.WriteByte('{')
			i++
		default:
			lit.WriteByte(s[i])
			i++
		}
	}
	flush()
	return segs, nil
}

func isPlaceholderName(s string) bool {
	head, tail, dotted := strings.Cut(s, ".")
	if head == "" || !allIn(head, "abcdefghijklmnopqrstuvwxyz0123456789_") {
		return false
	}
	return !dotted || tail != "" && allIn(tail, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")
}

func IsEnvName(s string) bool {
	return s != "" && (s[0] < '0' || s[0] > '9') &&
		allIn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
}

func allIn(s, set string) bool {
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			return false
		}
	}
	return true
}

// Check reports a malformed template or a placeholder that is
// unknown or not available in Phase p. captured lists the names captured by
// earlier calls (nil outside calls).
func Check(s string, p Phase, port bool, captured map[string]bool) error {
	segs, err := parseTemplate(s)
	if err != nil {
		return err
	}
	for _, sg := range segs {
		if sg.ph == "" {
			continue
		}
		if !known(sg.ph) {
			return fmt.Errorf("unknown placeholder {%s} (known: {query} {k} {library} {repo} {corpus} {work} {cache} {port} {captured.NAME}; write {{ for a literal brace)", sg.ph)
		}
		if !p.allows(sg.ph, port) {
			return fmt.Errorf("placeholder {%s} is not available here", sg.ph)
		}
		if name, ok := strings.CutPrefix(sg.ph, PhCapture); ok && !captured[name] {
			return fmt.Errorf("placeholder {%s}: no earlier call captures %q", sg.ph, name)
		}
	}
	return nil
}

// EnvRefs returns the names of the environment variables s reads without
// a default (${NAME}, not ${NAME:-default}), in order; nil for a malformed
// template (Check reports it).
func EnvRefs(s string) []string {
	segs, err := parseTemplate(s)
	if err != nil {
		return nil
	}
	var out []string
	for _, sg := range segs {
		if sg.env != "" && !sg.hasDef {
			out = append(out, sg.env)
		}
	}
	return out
}

func known(name string) bool {
	switch name {
	case PhQuery, PhK, PhLibrary, PhRepo, PhCorpus, PhWork, PhCache, PhPort:
		return true
	}
	return strings.HasPrefix(name, PhCapture)
}

// Vars are the values placeholders expand to, and the environment that
// ${NAME} reads.
type Vars struct {
	Values map[string]string           // placeholder name → value
	Getenv func(string) (string, bool) // what ${NAME} reads
}

func (v Vars) With(kv ...string) Vars {
	m := make(map[string]string, len(v.Values)+len(kv)/2)
	for k, x := range v.Values {
		m[k] = x
	}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return Vars{Values: m, Getenv: v.Getenv}
}

// Expand returns s with its placeholders and environment references
// replaced. A variable that is unset (or empty) without a default is an
// error naming it.
func (v Vars) Expand(s string) (string, error) {
	segs, err := parseTemplate(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, sg := range segs {
		x, err := v.expandSegment(sg)
		if err != nil {
			return "", err
		}
		b.WriteString(x)
	}
	return b.String(), nil
}

// ExpandURL is expand for a URL template: the value of every query-Phase
// placeholder ({query} {k} {library} {repo} {captured.NAME}: data, not
// configuration) is escaped for where it stands — path-escaped before the
// template's first "?", query-escaped after it, path-escaped again after a
// "#" — so a "%", "&", "#", "/" or space in a query reaches the service as
// part of the one value it fills. {port}, {work}, {corpus}, {cache} and
// ${ENV} are inserted as they are (a base URL from the environment stays
// whole).
func (v Vars) ExpandURL(s string) (string, error) {
	segs, err := parseTemplate(s)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	inQuery, inFragment := false, false
	for _, sg := range segs {
		if !isData(sg.ph) {
			x, err := v.expandSegment(sg)
			if err != nil {
				return "", err
			}
			b.WriteString(x)
			if sg.ph == "" { // literal text or ${ENV} (a base URL may bring its "?")
				if strings.Contains(x, "#") {
					inFragment = true
				}
				if strings.Contains(x, "?") && !inFragment {
					inQuery = true
				}
			}
			continue
		}
		x, err := v.expandSegment(sg)
		if err != nil {
			return "", err
		}
		if inQuery && !inFragment {
			b.WriteString(url.QueryEscape(x))
		} else {
			b.WriteString(url.PathEscape(x))
		}
	}
	return b.String(), nil
}

// isData reports whether placeholder name stands for data a query brings
// (rather than the configuration or the machine): the values escaped in URLs.
func isData(name string) bool {
	switch name {
	case PhQuery, PhK, PhLibrary, PhRepo:
		return true
	}
	return strings.HasPrefix(name, PhCapture)
}

// expandSegment returns the value of one template segment.
func (v Vars) expandSegment(sg segment) (string, error) {
	switch {
	case sg.ph != "":
		x, ok := v.Values[sg.ph]
		if !ok {
			return "", fmt.Errorf("placeholder {%s} has no value here", sg.ph)
		}
		return x, nil
	case sg.env != "":
		x, ok := v.Getenv(sg.env)
		if !ok || x == "" {
			if !sg.hasDef {
				return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} for a default)", sg.env, sg.env)
			}
			x = sg.def
		}
		return x, nil
	}
	return sg.lit, nil
}

// ExpandAll expands every string of argv.
func (v Vars) ExpandAll(argv []string) ([]string, error) {
	out := make([]string, len(argv))
	for i, a := range argv {
		x, err := v.Expand(a)
		if err != nil {
			return nil, err
		}
		out[i] = x
	}
	return out, nil
}

// ExpandJSON expands every string inside a decoded JSON value (tool
// arguments, an HTTP body). A string that is exactly "{k}" becomes the
// number k, because tools declare their limit as an integer.
func (v Vars) ExpandJSON(x any) (any, error) {
	switch x := x.(type) {
	case string:
		if x == "{"+PhK+"}" {
			if k, err := strconv.Atoi(v.Values[PhK]); err == nil {
				return k, nil
			}
		}
		return v.Expand(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			y, err := v.ExpandJSON(e)
			if err != nil {
				return nil, err
			}
			out[i] = y
		}
		return out, nil
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			y, err := v.ExpandJSON(e)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[k] = y
		}
		return out, nil
	}
	return x, nil
}

// EachString calls fn for every string inside a decoded JSON value, with
// its dotted path below prefix.
func EachString(prefix string, x any, fn func(path, s string)) {
	switch x := x.(type) {
	case string:
		fn(prefix, x)
	case []any:
		for i, e := range x {
			EachString(prefix+"."+strconv.Itoa(i), e, fn)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(x)) {
			EachString(prefix+"."+k, x[k], fn)
		}
	}
}
