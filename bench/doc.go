// Package bench holds the go test entry points of retrievalbench: one Test
// function per benchmark family (TestRepoQA, TestSWEQA, TestCodeRAG,
// TestCoSQA, TestTREC, TestBEIR, TestCases) whose subtests are
// system/config/dataset cells checked against golden files, and the matching
// Benchmark functions for latency.
//
//	go test ./bench -run 'RepoQA/bm25'             # every BM25 cell of RepoQA
//	go test ./bench -run 'RepoQA/dense/bge-small-q' -v
//	go test ./bench -run RepoQA -update            # rewrite golden files
//
// Flags (after the package): -update, -size fixture|small|full, -split,
// -data DIR (default $RETRIEVALBENCH_DATA), -results DIR (per-task JSONL).
// The package has no non-test code besides this comment.
package bench
