"""trec_eval's map and ndcg_cut.10 through ranx (numba), as a user would run
it on files: read the qrels and run with ranx's TREC readers, evaluate,
print trec_eval's "measure all value" lines.

usage: python peer_ranx.py QRELS RUN
"""
import sys

from ranx import Qrels, Run, evaluate


def main():
    qrels = Qrels.from_file(sys.argv[1], kind="trec")
    run = Run.from_file(sys.argv[2], kind="trec")
    # -c: every judged query counts; make_comparable gives a judged query
    # without results an empty ranking (score 0).
    res = evaluate(qrels, run, ["map", "ndcg@10"], make_comparable=True)
    print(f"{'map':<22}\tall\t{res['map']:.4f}")
    print(f"{'ndcg_cut_10':<22}\tall\t{res['ndcg@10']:.4f}")


if __name__ == "__main__":
    main()
