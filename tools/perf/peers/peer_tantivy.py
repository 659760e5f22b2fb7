"""tantivy's side of "make perf" (its official Python bindings): the same job
as perfgo bm25 -- index docs.jsonl into a new on-disk index, then the top K
ids of every query of queries.jsonl -- on one thread. Prints index seconds
and per-query milliseconds as JSON and writes the run in TREC format.

One text field, "text" (symbol, path and text joined, as peer_bm25s.py and
as FTS5 with all column weights 1 sees them), with tantivy's "en_stem"
analyzer (split on non-alphanumeric characters, drop tokens over 40 bytes,
lower case, Snowball English stemmer); the doc id is a stored field, read
back for every hit. BM25 is tantivy's (k1 1.2, b 0.75).

Index time: the writer (one thread, 1 GB heap: one segment, no merges) adds
every doc and commits, and the index is reloaded so a searcher sees it.
Search time per query: parsing the query (lower-cased, every character that
is not a letter or digit a space, so that the query language's operators
and field syntax never apply: the analyzer splits there anyway) as a
disjunction over "text", the search for the top K, and reading the K ids.

With MODE "ram" the index is built in memory (tantivy's RAM directory: no
files, no fsync at commit) instead of in a new temporary directory ("disk",
the default, which is what retrievalbench does: its index is a file).

Also printed: the CPU seconds (user+sys, every thread of the process) of
indexing and of all the searches.

usage: python peer_tantivy.py DIR K RUN [disk|ram]
"""
import json
import os
import re
import shutil
import sys
import tempfile
import time

import tantivy

NOT_WORD = re.compile(r"[^\w]|_", re.UNICODE)


def main():
    d, k, run_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    mode = sys.argv[4] if len(sys.argv) > 4 else "disk"
    if mode not in ("disk", "ram"):
        sys.exit(f"tantivy: mode {mode!r}: want disk or ram")
    docs = [json.loads(l) for l in open(f"{d}/docs.jsonl")]
    queries = [json.loads(l) for l in open(f"{d}/queries.jsonl")]
    texts = [" ".join(x for x in (doc.get("symbol", ""), doc.get("path", ""), doc["text"]) if x) for doc in docs]
    tmp = tempfile.mkdtemp(prefix="tantivy-")
    try:
        t0, c0 = time.perf_counter(), time.process_time()
        sb = tantivy.SchemaBuilder()
        sb.add_text_field("id", stored=True, tokenizer_name="raw", index_option="basic")
        sb.add_text_field("text", stored=False, tokenizer_name="en_stem")
        schema = sb.build()
        index = tantivy.Index(schema, path=tmp) if mode == "disk" else tantivy.Index(schema)
        writer = index.writer(heap_size=1 << 30, num_threads=1)
        for doc, text in zip(docs, texts):
            writer.add_document(tantivy.Document(id=doc["id"], text=text))
        writer.commit()
        writer.wait_merging_threads()
        index.reload()
        searcher = index.searcher()
        index_s, index_cpu_s = time.perf_counter() - t0, time.process_time() - c0
        if searcher.num_segments != 1 or searcher.num_docs != len(docs):
            sys.exit(f"tantivy: {searcher.num_segments} segments, {searcher.num_docs} docs; want 1 and {len(docs)}")
        k = min(k, len(docs))
        per_query = []
        out = []
        c0 = time.process_time()
        for q in queries:
            t0 = time.perf_counter()
            text = NOT_WORD.sub(" ", q["query"]).lower().strip()
            hits = []
            if text:
                query = index.parse_query(text, ["text"])
                for score, addr in searcher.search(query, k, count=False).hits:
                    hits.append((searcher.doc(addr)["id"][0], score))
            per_query.append((time.perf_counter() - t0) * 1e3)
            for r, (doc_id, s) in enumerate(hits):
                out.append(f"{q['id']} Q0 {doc_id} {r + 1} {float(s)!r} tantivy\n")
        search_cpu_s = time.process_time() - c0
        with open(run_path, "w") as f:
            f.writelines(out)
        json.dump({"docs": len(docs), "index_s": index_s, "index_cpu_s": index_cpu_s, "search_cpu_s": search_cpu_s, "per_query_ms": per_query}, sys.stdout)
        print()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
