// Package promote automates the sweep protocol that keeps a benchmark honest
// when people tune against it: a ladder of three stages over the per-task
// results files that "go test ./bench -split SPLIT -results DIR" writes
// (resultfmt.Record JSONL), and a ledger of every use of the test split.
//
// The ladder, for a candidate system/config against a frozen baseline on one
// primary dataset and one primary measure:
//
//  1. small_dev — free iteration. Evaluate reports the paired numbers and
//     decides nothing (DecisionReport).
//  2. dev — promotion. The candidate is promoted only on a paired per-task
//     win beyond noise: mean gain > Config.MinGain and a two-sided paired
//     p-value (Config.Test: paired bootstrap or randomization) below
//     Config.Stats.Alpha. Overlapping confidence intervals are not the test.
//  3. test — one confirmatory pass, caches off. The same paired win is
//     required on the test split, and every do-no-harm Rule that applies
//     must hold: a rule is violated when the candidate's mean on the rule's
//     dataset and split drops by more than Rule.MaxDrop and that drop is
//     significant (paired p < α). A rule whose results are missing fails
//     closed: the verdict is rejected.
//
// Every test-stage verdict is one line of the ledger (golden/LEDGER.jsonl,
// package ledgerfmt), appended atomically and never rewritten. Check refuses a second
// test evaluation of the same candidate and any test evaluation of a
// variant of a rejected one (see Lineage); a forced override is itself a
// ledger line with Forced set and the reason.
package promote
