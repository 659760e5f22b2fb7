// Package graph is reference-graph expansion over a code corpus: a base
// system (BM25, dense, a hybrid, an external system) ranks the chunks, and
// the best of them bring in the chunks they call and the chunks that call
// them.
//
// # The graph
//
// Nodes are the docs of the corpus as package chunk cut them. A doc whose
// Symbol is set and is not "<module>" defines the last component of its
// Symbol ("Line.append" defines "append", "Line" defines "Line"). An edge
// u → v means that the text of u uses a name that resolves to the definition
// v. Names are found lexically: codetext.Tokens lexes the text (comments are
// dropped, string literals are one token, so a name inside a string or a
// comment is not a use), and every identifier token is a use, whether it is
// called, passed, subclassed or read as an attribute, except
//
//   - the name right after a definition keyword (def, class, func, fn, …),
//     which is the doc's own name;
//   - Python import statements, which are read for resolution instead;
//   - dunder names (__init__, __eq__, …), which every class defines and
//     which are called implicitly;
//   - a use that resolves to the doc itself (recursion).
//
// A use of name n in a doc of file F resolves, at the first rule that finds
// at least one definition of n:
//
//  1. definitions of n in F itself (other than the doc);
//  2. Python: if F imports n by name ("from m import n", "from m import x as
//     n"), definitions of the imported name in the files of module m;
//  3. Python: definitions of n in any file F imports (import m, from m import
//     …, and submodules imported by name);
//  4. other languages: definitions of n in F's directory (a Go or Java
//     package);
//  5. anywhere in the corpus, if n has at most Config.MaxCandidates
//     definitions there.
//
// A rule may resolve to several definitions (two classes of one file with a
// method "visit"); the use links to all of them. Python modules are found
// from their path: "src/black/lines.py" is module "src.black.lines" and is
// found by any dotted suffix ("black.lines", "lines"); relative imports
// resolve against F's directory; "pkg/__init__.py" is "pkg".
//
// Limits: there is no type inference, so "x.append(…)" links to every
// "append" a rule finds, whatever x is, and a name shadowed by a local
// variable still links; names re-exported through a package __init__
// resolve by rule 3 or 5 only; imports of other languages are not read (rule
// 4 stands in for them); dynamic dispatch, getattr and string references are
// not seen.
//
// # Expansion
//
// Search asks the base system for max(k, Seeds) hits. Each of the first
// Seeds hits is a seed; every 1-hop neighbour of a seed (callees and
// callers) is scored
//
//	decay × seed score            (seed score ≥ 0)
//	seed score − (1−decay)×|seed score|   (in general: below the seed even for negative scores)
//
// keeping, for a doc reached several ways or also in the base list, its
// maximum score. The merged list is re-ranked by score descending, doc ID
// ascending, and cut to k. With MaxNeighbors > 0 a seed brings in at most that
// many neighbours: its callees in the order they are first used in its text,
// then its callers in corpus order.
//
// # Bases that return locations
//
// The base is any systems.Spec. One that indexes whole files
// (systems.FileIndexer: an external system) is given the corpus's whole
// files (corpus.Corpus.Files, set by harness.Prepare) while the graph is
// built over the chunks, and it answers with locations (a path, maybe lines
// and a symbol; no doc id). Each location hit is expanded as the chunk it
// resolves to, by the rule docs/judging.md states: same path; among the
// chunks that define the hit's symbol, if any do, else among all of the
// file's, the one that owns the most of its lines (a line belongs to the
// narrowest chunk whose range holds it), ties to the earlier chunk; the
// file's first chunk for a hit without lines. A hit whose path is no doc's
// is dropped (no gold can name it), and a chunk that several hits resolve
// to is one seed, at its best rank. Close logs how many location hits were
// resolved and how many dropped (Options.Logf).
//
// The graph is built by Index from the corpus (no cache: it takes well under
// a second per thousand chunks) and is dropped with the next Index.
package graph
