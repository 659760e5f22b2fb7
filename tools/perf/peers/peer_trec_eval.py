"""trec_eval's measures through pytrec_eval (trec_eval's C code), as a user
would run it on files: parse the qrels and run, evaluate, print trec_eval's
"measure all value" lines for -c -m map -m ndcg_cut.10.

usage: python peer_trec_eval.py QRELS RUN
"""
import sys

import pytrec_eval


def main():
    qrels_path, run_path = sys.argv[1], sys.argv[2]
    qrels = {}
    with open(qrels_path) as f:
        for line in f:
            qid, _, doc, rel = line.split()
            qrels.setdefault(qid, {})[doc] = int(rel)
    run = {}
    with open(run_path) as f:
        for line in f:
            qid, _, doc, _, score, _ = line.split()
            run.setdefault(qid, {})[doc] = float(score)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10"})
    res = ev.evaluate(run)
    # -c: every judged query counts; a judged query without results scores 0.
    n = len(qrels)
    for m in ("map", "ndcg_cut_10"):
        total = sum(v[m] for v in res.values())
        print(f"{m:<22}\tall\t{total / n:.4f}")


if __name__ == "__main__":
    main()
