// Package static is dense retrieval with a static embedding model
// (Model2Vec style), in pure Go: no ONNX Runtime, no neural network at query
// or index time. A text's vector is a table lookup:
//
//	ids    = tokenizer(text)                 (Unigram tokenizer.json, no special tokens, at most MaxTokens)
//	vector = mean over ids of weights[t] · embeddings[mapping[t]]
//	vector = vector / ‖vector‖
//
// where model.safetensors holds mapping (I64, one row index per token id),
// weights (F32, one scale per token id) and embeddings (I8 rows, the
// quantized vocabulary). Hits are the docs of largest cosine similarity,
// found exactly (embed.Matrix). The doc text is dense.DocText's (Symbol,
// Path, Title, then Text), so static and ONNX models see the same input.
//
// Embedding is thousands of docs per second, so there is no vector store:
// every Index embeds its corpus (Options.NoCache changes nothing).
//
// There is one Config per static model of the manifest (embed/models),
// named after the model id.
package static
