// Package report turns per-task retrieval results (package resultfmt) into
// the files a person reads and a CI job keeps: TREC-style pools and grading
// sheets, merged judgments, summaries with bootstrap confidence intervals,
// decisions, and Markdown/JSON/CSV/JSONL reports; package report/plots
// draws the figures.
//
// The pipeline, in order:
//
//  1. Records: one Record per (system, task) — the ranked hits with their
//     scores and grades — is the canonical per-task line that both
//     `go test ./bench -results DIR` and `retrievalbench campaign` write
//     (package resultfmt; harness.Result.Records converts a cell).
//  2. Pool: the top-depth hits of every system per task, deduplicated by doc
//     id in a stable order (best rank, then how many systems ranked it, then
//     doc id), go to pooled-results.jsonl and grading-sheet.csv; grades the
//     case file's gold already implies are filled in, the rest left blank.
//  3. Judge: a filled sheet or labels.jsonl is merged with the gold: the
//     case file's gold grades what it names (a person's different grade of
//     such a result is listed, not used), people's grades fill in the rest
//     (grades whose case or hit changed since are stale, listed), and a
//     gold unit no system retrieved stays in the qrels as a placeholder so
//     recall counts it. A hit without a grade is unjudged: non-relevant in
//     the measures (trec_eval's rule) and counted per system as judged@k.
//  4. Summarise: micro means (every case once) and macro means (every
//     repository once) with 95% bootstrap CIs, per-repo and per-intent
//     tables, latency percentiles, failures.
//  5. Decide: each system is decided against a baseline with paired tests on
//     the same cases (DecisionRules); the report names the rule that decided.
//  6. Write: quality-summary.md/.json, per-query-results.jsonl,
//     per-model-ranking.csv, per-repo-summary.csv, per-intent-summary.csv,
//     regressions.md; package report/plots draws the figures. Everything
//     is sorted and rounded, so the same inputs give byte-identical files;
//     the only clock reading is campaignfmt.Meta.Generated.
package report
