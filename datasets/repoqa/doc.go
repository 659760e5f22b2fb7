// Package repoqa loads RepoQA "search needle function" (SNF) datasets: a
// natural-language description of one function → that function in its
// repository.
//
// Every dataset has one corpus per repository (ID = repo, Commit = the
// pinned commit) whose Docs are whole files (Kind "file", ID = Path); the
// harness chunks them. The gold of a task is one Relevant of Kind "needle"
// whose Body is the function's source, judged by token equivalence, so any
// chunk that holds the function counts.
//
// Datasets (name: source → query, gold):
//
//	repoqa-official              the official release file (Fetch) → needle description, needle
//	repoqa-fixture               fixtures/repoqa (hermetic, official schema) → same
//	repoqa-mini                  the seed harness's pydocs-eval/repoqa_mini.json, unchanged → same
//	repoqa-python-docstring      data pack Python corpora, no needles → a docstring
//	                             summary chosen by Generate (NOT an official
//	                             description), that docstring removed from the corpus
//	repoqa-LANG-doc              data pack corpora of cpp, go, java, rust,
//	                             typescript → a doc-comment summary chosen by
//	                             GenerateDoc (NOT an official description),
//	                             that comment removed (docs/repoqa-languages.md)
//	repoqa-python-official-desc  pydocs-eval/structural_recall.json → official
//	                             description, the described function
//	repoqa-structural            same rows → same description, its 1-hop
//	                             call-graph neighbour (the seed's structural split)
//
// Each loader applies datasets.Split (salted with the dataset name) and keeps
// only the corpora its tasks use. Bad input is an error naming the file and
// the place in it (see the Err… values).
package repoqa
