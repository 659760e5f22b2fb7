// Package hybrid fuses the ranked lists of two or more member systems (BM25
// and dense configurations, or any other Spec) into one list.
//
// # Members
//
// A member is any systems.Spec: a built-in config (BM25, dense), a user's
// system, an external one (systems/external). New builds it with the same
// systems.Options the hybrid receives, so each member keeps its own cache (a
// BM25 index, a dense vector store). Index indexes the corpus with every
// member in turn: the chunks, or, for a member that indexes whole files
// (systems.FileIndexer: an external system), the same corpus as whole files
// (corpus.Corpus.Files, which harness.Prepare sets), as the harness would
// hand it. Search asks every member for max(Config.Depth, k) hits (Depth 100
// by default), fuses those lists and returns the best k.
//
// Fusion is by doc id, and a whole-file member answers with locations (a
// path, maybe lines and a symbol; no doc id). Each location hit is fused as
// the chunk it resolves to, by the rule docs/judging.md states: same path;
// among the chunks that define the hit's symbol, if any do, else among all
// of the file's, the one that owns the most of its lines (a line belongs to
// the narrowest chunk whose range holds it), ties to the earlier chunk; the
// file's first chunk for a hit without lines. A hit whose path is no doc's
// is dropped (no gold can name it); a chunk that several hits resolve to
// counts once, at its best rank. Close logs, per member, how many location
// hits were resolved and how many dropped (Options.Logf).
//
// # Fusion
//
// Reciprocal rank fusion (MethodRRF, Cormack, Clarke and Büttcher, SIGIR
// 2009) ignores scores and uses ranks only:
//
//	score(d) = Σ_members weight × 1 / (K + rank(d))
//
// with rank 1-based within the member's list and K = 60 by default, the
// value of the paper. Weights are 1 in the plain method.
//
// Weighted fusion (MethodWeighted) uses the scores. Each member's list is
// min-max normalised on its own, over the hits it returned (its Depth best):
//
//	norm(d) = (s(d) − min) / (max − min)
//
// so the member's best hit gets 1 and its worst returned hit 0; a list whose
// scores are all equal (one hit, or ties) normalises every hit to 1. The
// fused score is Σ_members weight × norm(d).
//
// In both methods a doc missing from a member's list gets nothing from that
// member: 0, the same as the worst hit in weighted fusion, and less than any
// listed doc in RRF. Depth bounds what "missing" means, so it is part of the
// config hash.
//
// Ties are broken by doc ID ascending, so the fused list is deterministic
// whenever the members' lists are.
package hybrid
