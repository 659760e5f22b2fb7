// Package embed turns text into dense vectors with real embedding models run
// in-process by ONNX Runtime, stores those vectors, and searches them.
//
// The pipeline, in the order a call to (*Embedder).Embed runs it:
//
//  1. Prefix: the caller's prefix (the manifest's query or passage prefix for
//     EmbedQueries and EmbedPassages, none for Embed with "") is prepended.
//  2. Tokenize: the model's tokenizer.json (package embed/tokenizer) turns each
//     text into token ids, truncated at the manifest's max tokens; truncated
//     texts are counted in Stats.
//  3. Batch: texts are sorted by token length and cut into batches of
//     Config.BatchSize; each batch is padded only to its own longest text
//     (dynamic padding), so short texts do not pay for long ones.
//  4. Run: one ONNX Runtime session per Embedder (intra-op threads = cores)
//     takes input_ids and attention_mask, and token_type_ids and
//     position_ids (the real tokens counted from 0) only when the graph
//     declares them. Texts are padded on the model's padding side (right by
//     default; left for decoders exported that way). The output read is the
//     model's Output, else last_hidden_state, token_embeddings or
//     sentence_embedding, in float32 or float16.
//  5. Pool: the model's pooling over the positions the attention mask keeps
//     — the first ([CLS]), the mean, or the last (decoder embedders) — unless
//     the graph gives a ready sentence embedding.
//  6. Truncate: a Matryoshka model (HiddenSize above Dimension) keeps the
//     first Dimension components.
//  7. Normalise: every vector is scaled to unit L2 length, so a dot product
//     is the cosine similarity, unless the model says "normalize": false.
//
// testdata/graphs holds small randomly initialised graphs, built by a
// committed script with the onnx package, covering each of these options,
// and Python ONNX Runtime's vectors for them; they check the plumbing and
// say nothing about any model's quality.
//
// The ONNX Runtime shared library is loaded once per process from
// $RETRIEVALBENCH_ORT_LIB, else from the cache (see LibraryPath); `make setup`
// puts it there. The environment is never torn down: sessions of several
// Embedders share it for the life of the process.
//
// A Store keeps vectors in SQLite keyed by the model's fingerprint and the
// SHA-256 of the exact text embedded, so re-indexing embeds only new or
// changed texts. A Matrix holds vectors in memory and answers exact top-k by
// dot product, split across cores, ties broken by ascending id.
package embed
