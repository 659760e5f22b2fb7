"""bm25s's side of "make perf": index docs.jsonl (symbol, path and text
joined, as FTS5 with all column weights 1 scores them), search every query of
queries.jsonl at depth K, print index seconds and per-query milliseconds as
JSON (and the CPU seconds, user+sys of every thread, of indexing and of all
the searches), write the run in TREC format.

Robertson BM25, k1 1.2, b 0.75 (FTS5's constants), PyStemmer's porter.

usage: python peer_bm25s.py DIR K RUN
"""
import json
import sys
import time

import bm25s
import Stemmer


def main():
    d, k, run_path = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    docs = [json.loads(l) for l in open(f"{d}/docs.jsonl")]
    queries = [json.loads(l) for l in open(f"{d}/queries.jsonl")]
    texts = [" ".join(x for x in (doc.get("symbol", ""), doc.get("path", ""), doc["text"]) if x) for doc in docs]
    stemmer = Stemmer.Stemmer("porter")
    t0, c0 = time.perf_counter(), time.process_time()
    tokens = bm25s.tokenize(texts, stopwords=None, stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(method="robertson", k1=1.2, b=0.75)
    retriever.index(tokens, show_progress=False)
    index_s, index_cpu_s = time.perf_counter() - t0, time.process_time() - c0
    k = min(k, len(docs))
    per_query = []
    out = []
    c0 = time.process_time()
    for q in queries:
        t0 = time.perf_counter()
        qt = bm25s.tokenize([q["query"]], stopwords=None, stemmer=stemmer, show_progress=False)
        if len(qt.vocab) == 0:
            per_query.append((time.perf_counter() - t0) * 1e3)
            continue
        idx, scores = retriever.retrieve(qt, k=k, show_progress=False, n_threads=1)
        per_query.append((time.perf_counter() - t0) * 1e3)
        for r, (i, s) in enumerate(zip(idx[0], scores[0])):
            if s > 0:
                out.append(f"{q['id']} Q0 {docs[i]['id']} {r + 1} {float(s)!r} bm25s\n")
    search_cpu_s = time.process_time() - c0
    with open(run_path, "w") as f:
        f.writelines(out)
    json.dump({"docs": len(docs), "index_s": index_s, "index_cpu_s": index_cpu_s, "search_cpu_s": search_cpu_s, "per_query_ms": per_query}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
