package builtin

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/retrievalbench/retrievalbench/systems"
	"github.com/retrievalbench/retrievalbench/systems/graph"
	"github.com/retrievalbench/retrievalbench/systems/hybrid"
)

// SelectionHelp documents the selection language of Selector.Select, for
// a command's usage text.
const SelectionHelp = `A selection is a comma-separated list of:
  system/config              a built-in config (bm25/porter, dense/bge-small-q, hybrid/rrf-bm25code-bge,
                             graph/bm25code-1hop); dense/ID is any model of the manifests, a user model
                             or an embedding endpoint of -model-manifest among them
  system/all                 every built-in config of a system (bm25/all, hybrid/all, …)
  all                        every built-in config
  FILE.json                  an external system's config (docs/external-systems.md)
  DIR                        a model folder, run as dense/<folder name> (docs/models.md)
  rrf(M,M,…[,k=60][,depth=100][,name=N])
                             reciprocal-rank fusion of any members M (each one item of this list,
                             fusions included); M=W weighs a member (default 1)
  weighted(M=W,M=W,…[,depth=100][,name=N])
                             min-max weighted sum of the members' scores
  graph(M[,seeds=10][,decay=0.9][,max_neighbors=0][,max_candidates=1][,name=N])
                             reference-graph expansion of M's top hits
A fusion is named hybrid/<name>, a graph graph/<name>; the default name is made of the members'.`

// Selector resolves selections of systems by name: the named Specs (a
// function's result, such as Specs, plus what a caller adds) and, for an
// item that names none, Other — a file or a folder the caller knows how to
// read.
type Selector struct {
	Specs []systems.Spec
	// Other resolves an item that is neither a name of Specs, nor
	// "system/all", nor a fusion or graph expression; ok false means it is
	// not one of the caller's forms either. Nil: no other forms.
	Other func(item string) (s systems.Spec, ok bool, err error)
}

// Select resolves a comma-separated selection (SelectionHelp) to Specs, in
// the order given, each once (a system selected twice with the same hash
// is kept at its first place; two different systems of one name are an
// error). An unknown name is an error listing the known ones.
func (sel Selector) Select(list string) ([]systems.Spec, error) {
	items, err := splitTop(list)
	if err != nil {
		return nil, err
	}
	var out []systems.Spec
	for _, it := range items {
		specs, err := sel.item(it, true)
		if err != nil {
			return nil, err
		}
		for _, s := range specs {
			i := slices.IndexFunc(out, func(o systems.Spec) bool { return o.Name() == s.Name() })
			switch {
			case i < 0:
				out = append(out, s)
			case out[i].Hash != s.Hash:
				return nil, fmt.Errorf("two different systems are named %s: give one a name= of its own", s.Name())
			}
		}
	}
	return out, nil
}

// One resolves an item that stands for exactly one system (no "all").
func (sel Selector) One(item string) (systems.Spec, error) {
	specs, err := sel.item(strings.TrimSpace(item), false)
	if err != nil {
		return systems.Spec{}, err
	}
	return specs[0], nil
}

// item resolves one item; many allows the forms that select several.
func (sel Selector) item(it string, many bool) ([]systems.Spec, error) {
	if it == "" {
		return nil, fmt.Errorf("empty system name")
	}
	if open := strings.IndexByte(it, '('); open > 0 && strings.HasSuffix(it, ")") && isWord(it[:open]) {
		s, err := sel.expr(it[:open], it[open+1:len(it)-1])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", it, err)
		}
		return []systems.Spec{s}, nil
	}
	if it == "all" {
		if !many {
			return nil, fmt.Errorf("%q selects several systems: name one", it)
		}
		return slices.Clone(sel.Specs), nil
	}
	sys, config, hasSlash := strings.Cut(it, "/")
	if hasSlash && config == "all" && sel.hasSystem(sys) {
		if !many {
			return nil, fmt.Errorf("%q selects several systems: name one", it)
		}
		var out []systems.Spec
		for _, s := range sel.Specs {
			if s.System == sys {
				out = append(out, s)
			}
		}
		return out, nil
	}
	if s, ok := Find(sel.Specs, it); ok {
		return []systems.Spec{s}, nil
	}
	if sel.Other != nil {
		s, ok, err := sel.Other(it)
		if err != nil {
			return nil, err
		}
		if ok {
			return []systems.Spec{s}, nil
		}
	}
	if hasSlash && sel.hasSystem(sys) {
		return nil, fmt.Errorf("no system %q: %s has %s", it, sys, strings.Join(sel.configs(sys), ", "))
	}
	return nil, fmt.Errorf("no system %q: not a built-in system/config (systems: %s), an external config file or a model folder; %s",
		it, strings.Join(sel.systemNames(), ", "), "`retrievalbench campaign -h` lists the forms")
}

func (sel Selector) hasSystem(sys string) bool {
	return slices.ContainsFunc(sel.Specs, func(s systems.Spec) bool { return s.System == sys })
}

// configs lists the config names of system sys, in order.
func (sel Selector) configs(sys string) []string {
	var out []string
	for _, s := range sel.Specs {
		if s.System == sys {
			out = append(out, s.Config)
		}
	}
	return out
}

// systemNames lists the systems of Specs, in order of first appearance.
func (sel Selector) systemNames() []string {
	var out []string
	for _, s := range sel.Specs {
		if !slices.Contains(out, s.System) {
			out = append(out, s.System)
		}
	}
	return out
}

// expr builds the fusion or graph fn(args).
func (sel Selector) expr(fn, args string) (systems.Spec, error) {
	parts, err := splitTop(args)
	if err != nil {
		return systems.Spec{}, err
	}
	var opts map[string]bool
	switch fn {
	case hybrid.MethodRRF:
		opts = map[string]bool{"k": true, "depth": true, "name": true}
	case hybrid.MethodWeighted:
		opts = map[string]bool{"depth": true, "name": true}
	case "graph":
		opts = map[string]bool{"seeds": true, "decay": true, "max_neighbors": true, "max_candidates": true, "name": true}
	default:
		return systems.Spec{}, fmt.Errorf("unknown function %q: want rrf, weighted or graph", fn)
	}
	set := map[string]string{}
	type member struct {
		spec   systems.Spec
		weight float64
	}
	var members []member
	for _, p := range parts {
		key, val, hasEq := cutLast(p, "=")
		if hasEq && opts[strings.TrimSpace(key)] {
			key = strings.TrimSpace(key)
			if _, dup := set[key]; dup {
				return systems.Spec{}, fmt.Errorf("%s= given twice", key)
			}
			set[key] = strings.TrimSpace(val)
			continue
		}
		w := 1.0
		name := p
		if hasEq {
			if fn == "graph" {
				return systems.Spec{}, fmt.Errorf("%q: a graph takes no weight (options: seeds, decay, max_neighbors, max_candidates, name)", p)
			}
			if w, err = strconv.ParseFloat(strings.TrimSpace(val), 64); err != nil {
				return systems.Spec{}, fmt.Errorf("%q: weight %q is not a number (options of %s: %s)", p, val, fn, strings.Join(sortedKeys(opts), ", "))
			}
			name = key
		}
		s, err := sel.One(name)
		if err != nil {
			return systems.Spec{}, err
		}
		members = append(members, member{s, w})
	}
	intOpt := func(key string, def int) (int, error) {
		v, ok := set[key]
		if !ok {
			return def, nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return 0, fmt.Errorf("%s=%s: not an integer", key, v)
		}
		return n, nil
	}
	var names []string
	for _, m := range members {
		names = append(names, m.spec.System+"-"+m.spec.Config)
	}
	if fn == "graph" {
		if len(members) != 1 {
			return systems.Spec{}, fmt.Errorf("a graph expands one system, not %d", len(members))
		}
		c := graph.Config{Name: set["name"], Base: members[0].spec, Decay: graph.DefaultDecay}
		if c.Name == "" {
			c.Name = cleanName(names[0] + "-1hop")
		}
		if c.Seeds, err = intOpt("seeds", graph.DefaultSeeds); err != nil {
			return systems.Spec{}, err
		}
		if c.MaxNeighbors, err = intOpt("max_neighbors", 0); err != nil {
			return systems.Spec{}, err
		}
		if c.MaxCandidates, err = intOpt("max_candidates", graph.DefaultMaxCandidates); err != nil {
			return systems.Spec{}, err
		}
		if v, ok := set["decay"]; ok {
			if c.Decay, err = strconv.ParseFloat(v, 64); err != nil {
				return systems.Spec{}, fmt.Errorf("decay=%s: not a number", v)
			}
		}
		if err := c.Validate(); err != nil {
			return systems.Spec{}, err
		}
		return graph.Spec(c), nil
	}
	c := hybrid.Config{Name: set["name"], Method: fn}
	if c.Name == "" {
		c.Name = cleanName(fn + "_" + strings.Join(names, "_"))
	}
	if fn == hybrid.MethodRRF {
		if c.K, err = intOpt("k", hybrid.DefaultK); err != nil {
			return systems.Spec{}, err
		}
	}
	if c.Depth, err = intOpt("depth", hybrid.DefaultDepth); err != nil {
		return systems.Spec{}, err
	}
	for _, m := range members {
		c.Members = append(c.Members, hybrid.Member{Spec: m.spec, Weight: m.weight})
	}
	if err := c.Validate(); err != nil {
		return systems.Spec{}, err
	}
	return hybrid.Spec(c), nil
}

// splitTop splits s at the commas outside parentheses, trimming each part
// and dropping empty ones.
func splitTop(s string) ([]string, error) {
	var out []string
	depth, start := 0, 0
	flush := func(end int) {
		if p := strings.TrimSpace(s[start:end]); p != "" {
			out = append(out, p)
		}
	}
	for i, r := range s {
		switch r {
		case '(':
			depth++
		case ')':
			if depth--; depth < 0 {
				return nil, fmt.Errorf("%q: unbalanced ')'", s)
			}
		case ',':
			if depth == 0 {
				flush(i)
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("%q: unbalanced '('", s)
	}
	flush(len(s))
	return out, nil
}

// cutLast cuts s around the last sep outside parentheses.
func cutLast(s, sep string) (string, string, bool) {
	depth := 0
	for i := len(s) - 1; i >= 0; i-- {
		switch s[i] {
		case ')':
			depth++
		case '(':
			depth--
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			return s[:i], s[i+len(sep):], true
		}
	}
	return s, "", false
}

func isWord(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r == '_') {
			return false
		}
	}
	return s != ""
}

// cleanName makes s a config name (a-z, 0-9, '-', '_', '.').
func cleanName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			b.WriteRune(r)
		} else {
			b.WriteByte('-')
		}
	}
	return b.String()
}

func sortedKeys(m map[string]bool) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
