"""Dev-set evaluation of retrieval (../shared/eval/dev.jsonl): hit@5 and MRR@10 per kind.

Run after `python -m retrieval build`:
    .venv/bin/python bench/dev_eval.py            # the configured system, through Retriever
    .venv/bin/python bench/dev_eval.py --variants # stemmers and dense windows, measured side by side

Follow-up items are searched as their turns joined (the deterministic merge the
pipeline uses when no LLM rewrite is available).
"""

from __future__ import annotations

import argparse
import json
from collections import defaultdict
from pathlib import Path

import numpy as np

from bot.settings import Settings
from retrieval.fusion import rrf
from retrieval.index import documents
from retrieval.index.config import IndexConfig
from retrieval.index.lexical import LexicalIndex, analyzer
from retrieval.startup import open_retriever

DEV = Path(__file__).resolve().parent.parent.parent / "shared" / "eval" / "dev.jsonl"
RETRIEVAL_KINDS = ("topic", "quote", "scope", "followup")


def load_items(path: Path = DEV) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def query_of(item: dict) -> str:
    return " ".join(item["turns"]) if item["kind"] == "followup" else item["q"]


def rank_metrics(ranked: list[str], relevant: set[str]) -> tuple[float, float]:
    hit5 = float(any(r in relevant for r in ranked[:5]))
    mrr = next((1.0 / (i + 1) for i, r in enumerate(ranked[:10]) if r in relevant), 0.0)
    return hit5, mrr


def summarise(per_kind: dict[str, list[tuple[float, float]]]) -> dict[str, tuple[float, float, int]]:
    out = {}
    for kind, values in per_kind.items():
        out[kind] = (float(np.mean([v[0] for v in values])), float(np.mean([v[1] for v in values])), len(values))
    pooled = [v for kind in RETRIEVAL_KINDS for v in per_kind.get(kind, [])]
    if pooled:
        out["retrieval"] = (float(np.mean([v[0] for v in pooled])), float(np.mean([v[1] for v in pooled])),
                            len(pooled))
    return out


def evaluate_system(config: IndexConfig) -> None:
    retriever = open_retriever(config)
    per_kind: dict[str, list] = defaultdict(list)
    other = defaultdict(list)
    for item in load_items():
        kind = item["kind"]
        result = retriever.search(query_of(item), k=10)
        ranked = result.ranked_ids()
        if kind in RETRIEVAL_KINDS:
            per_kind[kind].append(rank_metrics(ranked, set(item["relevant"])))
            if kind == "scope":
                from retrieval.understand.scope import named

                books = named(item["scope"]).books
                other["scope_precision"].append(np.mean([h.split(".")[0] in books for h in ranked[:5]] or [0]))
            other["false_rejection"].append(result.status == "no_evidence")
        elif kind == "ref":
            other["ref_exact"].append(ranked == item["exact"] and result.status == "reference")
        elif kind == "ref_missing":
            other["ref_missing"].append(result.status == "reference_missing" and not ranked)
        elif kind == "offtopic":
            other["offtopic_rejected"].append(result.status == "no_evidence")
    print(f"system: stemmer={config.stemmer} window={config.window} embedder={config.embedding_backend}")
    for kind, (hit5, mrr, n) in summarise(per_kind).items():
        print(f"  {kind:<10} hit@5 {hit5:.2f}  MRR@10 {mrr:.2f}  (n={n})")
    for name, values in other.items():
        print(f"  {name:<18} {np.mean(values):.2f}  (n={len(values)})")


def evaluate_variants(config: IndexConfig) -> None:
    """Lexical stemmers and dense windows side by side, computed exactly in memory."""
    from corpus import load
    from retrieval.index.embedders import create_embedder

    bible = load(config.corpus_path)
    items = [i for i in load_items() if i["kind"] in RETRIEVAL_KINDS]
    embedder = create_embedder(config.embedding_backend, config.embedding_model)
    cache = documents.EmbeddingCache(config.index_dir / "embeddings" / f"{embedder.identity.slug}.npz",
                                     embedder.identity.dimension)
    cache.ensure([v.text for v in bible.verses], embedder)
    queries = embedder.embed([query_of(i) for i in items])
    ids = [v.id for v in bible.verses]
    everything = list(range(len(bible.verses)))

    lexical_runs = {}
    for stemmer in ("none", "snowball-pt", "rslp-lite"):
        if stemmer == "none":
            from retrieval.index.lexical import Analyzer

            an = Analyzer(type("NoStem", (), {"name": "none", "__call__": lambda self, w: w})())
        else:
            an = analyzer(stemmer)
        index = LexicalIndex.build([v.text for v in bible.verses], an)
        lexical_runs[stemmer] = [_top(index.scores(query_of(i))) for i in items]
    dense_runs = {}
    for window, weight in ((0, 0.0), (1, 0.5), (1, 1.0), (2, 0.5)):
        matrix = documents.window_vectors(bible, everything, cache, window, weight)
        dense_runs[(window, weight)] = [_top(matrix @ q) for q in queries]

    def report(name, runs):
        per_kind = defaultdict(list)
        for item, ranked in zip(items, runs):
            per_kind[item["kind"]].append(rank_metrics([ids[p] for p in ranked], set(item["relevant"])))
        s = summarise(per_kind)
        hit5, mrr, _ = s["retrieval"]
        print(f"  {name:<34} hit@5 {hit5:.2f}  MRR@10 {mrr:.2f}  topic hit@5 {s['topic'][0]:.2f}")

    print("lexical only (bm25s, isolated verses):")
    for stemmer, runs in lexical_runs.items():
        report(stemmer, runs)
    print("dense only (USE m3, window of neighbours in the same chapter, blended vectors):")
    for (window, weight), runs in dense_runs.items():
        report(f"window {window}, neighbour weight {weight}", runs)
    print("fused by RRF (k=60, equal weights):")
    for stemmer in ("snowball-pt", "rslp-lite"):
        for key in dense_runs:
            fused = [[p for p, _ in rrf({"l": lex, "d": den})]
                     for lex, den in zip(lexical_runs[stemmer], dense_runs[key])]
            report(f"{stemmer} + window {key[0]} w{key[1]}", fused)


def _top(scores: np.ndarray, n: int = 100) -> list[int]:
    top = np.argpartition(-scores, n)[:n]
    return [int(p) for p in top[np.argsort(-scores[top])] if scores[p] > 0]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--variants", action="store_true")
    args = parser.parse_args()
    config = IndexConfig.from_settings(Settings())
    (evaluate_variants if args.variants else evaluate_system)(config)


if __name__ == "__main__":
    main()
