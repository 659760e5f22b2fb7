// Package metrics computes retrieval quality measures with the semantics of
// trec_eval 10.0, and aggregates them: means, per-group tables, bootstrap
// confidence intervals and paired significance tests.
//
// It uses only the standard library and imports nothing else of this module,
// so every layer above it (harness, the eval command, report writers) shares
// one definition of each measure.
//
// # Pipeline
//
// A query's results are ordered the way trec_eval orders them (SortRun: score
// descending, ties by document id descending; the rank column of a run file is
// ignored). Each retrieved document gets the grade it has in the query's
// judgments; a document without a judgment counts as non-relevant. A document
// is relevant when its grade is at least Options.RelLevel (default 1). Score
// turns one ranked list into one value per Measure; Evaluate (or an Evaluator
// fed one query at a time) does the same for a whole run and averages the
// per-query values the way trec_eval does. Bootstrap, PerGroup, Macro,
// PairedBootstrap, Permutation and McNemar work on the resulting per-query
// value slices.
//
// Bootstrap, PerGroup, Macro, PairedBootstrap and Permutation take their
// resamples and seed from a Stats value wherever the project uses them
// (DefaultStats unless a caller sets another).
//
// # Measures
//
// A measure is a value: a Def (its name, trec_eval's names, the cutoffs it
// takes, which direction is better, how it scores one Ranking) at a cutoff
// (Measure). Builtin returns the ones below; another package supplies its
// own Def (the judge's library_resolution), and Score computes it like a
// built-in. Nothing in the module switches on a measure's name.
//
// For a query with R relevant documents (grade ≥ RelLevel) and a ranked list
// r_1, r_2, …, r_n:
//
//   - hit@k (trec_eval success_k): 1 if a relevant document is within the
//     first k, else 0. hit without k looks at the whole list.
//   - recall@k (recall_k): relevant within the first k / R; 0 when R = 0.
//     recall without k (set_recall) uses the whole list.
//   - P@k (P_k): relevant within the first k / k; a list shorter than k is
//     padded with non-relevant documents. P without k (set_P) divides by n.
//   - mrr (recip_rank): 1 / rank of the first relevant document, 0 if none;
//     mrr@k only looks at the first k.
//   - ndcg@k (ndcg_cut_k) and ndcg (whole list): DCG = Σ grade_i / log2(i+1)
//     over documents with grade > 0, divided by the DCG of the ideal ranking
//     of all judged documents with grade > 0 (cut at k too). The gain is the
//     grade itself, independent of RelLevel, as in trec_eval.
//   - map (map) and map@k (map_cut_k): Σ over relevant documents retrieved
//     (within k) of precision at their rank, divided by R; 0 when R = 0.
//   - rprec (Rprec): relevant within the first R / R; 0 when R = 0.
//   - pass@1-needle: 1 if the first document is relevant and carries the
//     highest grade judged for the query (the gold needle), else 0.
//   - coverage: 1 if any relevant document was retrieved at all, else 0.
package metrics
