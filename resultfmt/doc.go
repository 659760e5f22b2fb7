// Package resultfmt is the per-task results format that `go test ./bench
// -results DIR` and `retrievalbench campaign` write and every report reads:
// records (one JSON line per system and task: the ranked hits with their
// scores and grades), cell files (what one dataset × system × config cost:
// index time, peak RSS, hashes, versions) and the four-decimal numbers
// (Fixed, Stat) of golden files and reports.
//
// It is a leaf, as x/perf's benchfmt is: it imports only the standard
// library and internal/{atomicfile,datafile}, so reading or writing results never
// links statistics, decisions or plotting. Package report computes
// summaries and decisions above it; package harness converts its results
// to records (Result.Records, Result.Cell).
package resultfmt
