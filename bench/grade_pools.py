"""Pools of verses for blind grading: each situation's current top passages, deeper fused candidates and
the stock dense top, shuffled, with the verse text, so a judge who never sees the code grades them.

    python bench/grade_pools.py SITUATIONS.jsonl [...] --out pools.jsonl [--deep 3] [--dense 1]

A situation file holds {"id", "q"} per line (grades, if present, are ignored). Verses already graded in
``--graded`` files are left out of the pool (graded once, by one judge); with ``--regrade`` the verses a
situation file already grades join its pool, to be graded again blind; with ``--proposed`` the verses a
situation file proposes (``"verses": [ids]``, e.g. a pastor's own picks) join it, shuffled among the rest."""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from retrieval.__main__ import _config, ready_retriever
from retrieval.aptness.grades import load_pairs
from retrieval.evaluation import StockBaselines, load_items
from retrieval.understand.query import plan_query


def pool(retriever, stock, q: str, rng: random.Random, top: int, deep: int, dense: int,
         extra: list[list[str]] = (), exclude: str | None = None) -> list[str]:
    """Verse ids to grade for one message: the system's first passages, deeper candidates, stock dense."""
    result = retriever.search(q, k=10, exclude=exclude)
    chosen = [hit.id for hit in result.hits[:top]]
    plan = plan_query(q, retriever.thesaurus)
    fusion = retriever.fuse(plan, retriever.understand(q), exclude)
    ids = [retriever.bible.verses[p].id for p, _ in fusion.fused[:40]]
    deeper = [i for i in ids[top:] if i not in chosen]
    chosen += rng.sample(deeper, min(deep, len(deeper)))
    chosen += [i for i in stock.dense(q)[:dense] if i not in chosen]
    for ranked in extra:
        chosen += [i for i in ranked if i not in chosen]
    return chosen


def main(argv=None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("paths", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--top", type=int, default=5)
    parser.add_argument("--deep", type=int, default=3)
    parser.add_argument("--dense", type=int, default=1)
    parser.add_argument("--graded", type=Path, action="append", default=[])
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--leave-out", action="store_true",
                        help="each situation searched without its own grades in the judges' memory")
    parser.add_argument("--baseline", action="store_true", help="the search without the aptness ranker")
    parser.add_argument("--regrade", action="store_true", help="the verses the file already grades join the pool")
    parser.add_argument("--proposed", action="store_true", help="the verses the file proposes join the pool")
    args = parser.parse_args(argv)
    retriever = ready_retriever(_config(argparse.Namespace()), build=False)
    stock = StockBaselines(retriever)
    if args.baseline:
        retriever.aptness = None
    graded = {(p.situation, p.verse) for path in args.graded for p in load_pairs(path)}
    rng = random.Random(args.seed)
    by_id = {v.id: v for v in retriever.bible.verses}
    with args.out.open("w", encoding="utf-8") as out:
        for path in args.paths:
            for item in load_items(path):
                again = [list(item.get("grades", {}))] if args.regrade else []
                again += [list(item.get("verses", []))] if args.proposed else []
                verses = [v for v in pool(retriever, stock, item["q"], rng, args.top, args.deep, args.dense, again,
                                          item["id"] if args.leave_out else None)
                          if (item["id"], v) not in graded and v in by_id]
                rng.shuffle(verses)
                out.write(json.dumps({"id": item["id"], "q": item["q"],
                                      "verses": [{"verse": v, "text": by_id[v].text} for v in verses]},
                                     ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
