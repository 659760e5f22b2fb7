// Package harness runs one (dataset × system × config) cell of the
// benchmark matrix and keeps its golden baseline.
//
// The pipeline, in order:
//
//  1. Prepare: a loaded datasets.Dataset has its code corpora (file-level
//     docs with a language) split into function/method/class chunks by the
//     chunk package, once per dataset, shared by every system.
//  2. Run: for each corpus, the system indexes it once (progress goes to the
//     test log); then every task of that corpus is searched with a per-task
//     timeout. A system error or panic is recorded against the task id and
//     fails the cell, never the whole run.
//  3. Judge: each hit is matched against the task's graded gold
//     (datasets.Relevant): doc id, file path, symbol, or needle body by token
//     equivalence. Each gold unit is credited once, at its first matching hit.
//  4. Measure: the judged ranked list goes to the metrics package (trec_eval
//     semantics) per task; aggregates are micro means with bootstrap CIs,
//     macro means and per-group tables over repo / intent / library / qa_type.
//  5. Check: the result is checked against its golden file (CheckGolden); equal or
//     better passes, a drop below golden − tolerance fails with the tasks that
//     flipped, a changed corpus or config hash is a stale baseline.
package harness
