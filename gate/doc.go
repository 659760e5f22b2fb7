// Package gate turns a benchstat-style comparison of two Go benchmark
// result files into a pass/fail verdict, so a CI pipeline can fail on a
// performance or quality regression. benchstat itself only prints tables
// and always exits 0; gate reads the same files with the same statistics
// and decides.
//
// The pipeline is:
//
//  1. Read both files with golang.org/x/perf/benchfmt. Unit metadata lines
//     ("Unit hit@10 better=higher assume=exact") from either file apply to
//     both; values are tidied to base units (ns/op becomes sec/op) as
//     benchstat does.
//  2. Group the values by full benchmark name (with its key=value parts and
//     GOMAXPROCS suffix) and unit. Configuration lines (commit:, cpu:, …)
//     are not part of a benchmark's identity, so the base and head of a pull
//     request, which differ in commit:, still line up.
//  3. For each group present in both files, summarise and compare the two
//     samples with benchmath, as benchstat does by default: the median with
//     its 95% confidence interval and the Mann–Whitney U test
//     (benchmath.AssumeNothing), or the exact value (benchmath.AssumeExact)
//     for units marked assume=exact.
//  4. Give each group a Verdict. A unit with assume=exact (the quality
//     measures hit@1, hit@10, MRR, nDCG@10) regresses when it moves in the
//     bad direction at all. Any other unit regresses when the U test is
//     significant at Config.Alpha, its median moved in the bad direction by
//     more than Config.Threshold, and the confidence interval of the median
//     ratio (new/old, from the two medians' intervals) lies entirely beyond
//     the threshold. The last condition keeps a busy machine from failing a
//     gate over dozens of benchmarks: a shift whose interval still reaches
//     inside the threshold is reported as too noisy to call. Samples so small that the U test could
//     not reach Config.Alpha even if every new value were worse than every
//     old one are "too few runs": reported, never a regression.
//
// The direction of a unit comes from its better= metadata; without it, units
// ending in "/s" (queries/s, docs/s, B/s) are higher-is-better and every
// other unit (sec/op, B/op, allocs/op, peak-RSS-bytes) is lower-is-better.
package gate
