#!/usr/bin/env python3
"""Token measures, computed independently of package metrics (budget.go),
from the definition in docs/judging.md ("Tokens").

Reads JSON lines {"ranked": [unit...], "tokens": [int...], "qrels": {unit: grade}}
on stdin and writes, per line, a JSON object {measure: value} for tokens@10,
covered_tok@B and ndcg_tok@B at B in 1000, 2000, 4000, 8000. Run by
metrics' TestTokenMeasuresPython.
"""
import json
import math
import sys

BUDGETS = (1000, 2000, 4000, 8000)


def delivered(tokens, budget):
    """Fraction of each ranked text inside the first `budget` tokens of the
    concatenation, in rank order."""
    out, start = [], 0
    for t in tokens:
        end = start + t
        if end <= budget:
            out.append(1.0)
        elif start >= budget:
            out.append(0.0)
        else:
            out.append((budget - start) / t)
        start = end
    return out


def measures(ranked, tokens, qrels):
    res = {"tokens@10": float(sum(tokens[:10]))}
    relevant = [u for u, g in qrels.items() if g >= 1]
    ideal = sorted((g for g in qrels.values() if g > 0), reverse=True)
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    for b in BUDGETS:
        frac = delivered(tokens, b)
        got = sum(f for u, f in zip(ranked, frac) if qrels.get(u, 0) >= 1)
        res["covered_tok@%d" % b] = got / len(relevant) if relevant else 0.0
        dcg = sum(f * qrels.get(u, 0) / math.log2(i + 2)
                  for i, (u, f) in enumerate(zip(ranked, frac)) if qrels.get(u, 0) > 0)
        res["ndcg_tok@%d" % b] = dcg / idcg if idcg > 0 else 0.0
    return res


for line in sys.stdin:
    if line.strip():
        r = json.loads(line)
        print(json.dumps(measures(r["ranked"], r["tokens"], r["qrels"]), sort_keys=True))
