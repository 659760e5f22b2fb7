// Package dense is dense retrieval with a real embedding model run
// in-process by ONNX Runtime (package embed): every doc of a corpus is
// embedded as a passage, every query as a query, and the hits are the docs
// with the largest cosine similarity, found exactly (no approximate index).
//
// There is one Config per model of the manifest (embed/models), named after
// the model id. The text embedded for a doc is its Symbol, Path and Title
// (each on its own line, when set) followed by its Text: the names carry
// much of what a query asks for ("where is the retry logic"), and putting
// them first keeps them inside the model's max tokens when a long body is
// truncated. The model's passage prefix comes before all of it.
//
// Vectors are kept in the vector store of the model
// (<cache>/dense/<model id>/vectors.db), keyed by the model's fingerprint
// and the SHA-256 of the exact text embedded, so indexing a corpus again —
// or another corpus that shares files — embeds only docs that are new or
// changed. Options.NoCache neither reads nor writes the store: index
// benchmarks measure cold embedding.
package dense
