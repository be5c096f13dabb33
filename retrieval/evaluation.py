"""`python -m retrieval eval FILE.jsonl`: retrieval metrics per kind, beside stock baselines."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from retrieval.fusion import rrf
from retrieval.lexical import Analyzer, LexicalIndex
from retrieval.retriever import Retriever
from retrieval.scope import named

RANKED_KINDS = ("topic", "quote", "scope", "followup", "casual")
REJECT_KINDS = ("offtopic", "offtopic_scope")


def load_items(path: Path) -> list[dict]:
    return [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]


def query_of(item: dict) -> str:
    """The question to search; a follow-up's turns are joined (the pipeline's no-LLM merge)."""
    return " ".join(item["turns"]) if "turns" in item else item["q"]


def rank_metrics(ranked: list[str], relevant: Iterable[str]) -> tuple[float, float]:
    """(hit@5, reciprocal rank within the top 10)."""
    relevant = set(relevant)
    hit5 = float(any(r in relevant for r in ranked[:5]))
    mrr = next((1.0 / (i + 1) for i, r in enumerate(ranked[:10]) if r in relevant), 0.0)
    return hit5, mrr


@dataclass
class Report:
    ranked: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: defaultdict(list))
    checks: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def pooled(self) -> tuple[float, float, int]:
        values = [v for kind in RANKED_KINDS for v in self.ranked.get(kind, [])]
        if not values:
            return 0.0, 0.0, 0
        return float(np.mean([v[0] for v in values])), float(np.mean([v[1] for v in values])), len(values)

    def lines(self) -> list[str]:
        out = []
        for kind in [k for k in RANKED_KINDS if k in self.ranked]:
            values = self.ranked[kind]
            out.append(f"  {kind:<18} hit@5 {np.mean([v[0] for v in values]):.2f}  "
                       f"MRR@10 {np.mean([v[1] for v in values]):.2f}  (n={len(values)})")
        hit5, mrr, n = self.pooled()
        out.append(f"  {'todas (ranqueadas)':<18} hit@5 {hit5:.2f}  MRR@10 {mrr:.2f}  (n={n})")
        for name, values in self.checks.items():
            out.append(f"  {name:<18} {np.mean(values):.2f}  (n={len(values)})")
        return out


def evaluate(retriever: Retriever, items: list[dict]) -> Report:
    """The system as configured, through `Retriever.search` (its own scope detection and floor)."""
    report = Report()
    for item in items:
        kind = item["kind"]
        result = retriever.search(query_of(item), k=10)
        ranked = result.ranked_ids()
        if kind in RANKED_KINDS:
            report.ranked[kind].append(rank_metrics(ranked, item["relevant"]))
            report.checks["falsa rejeição"].append(float(result.status == "no_evidence"))
            if "scope" in item and kind == "scope":
                books = named(item["scope"]).books
                top = [i.split(".")[0] for i in ranked[:5]]
                report.checks["precisão de escopo"].append(float(bool(top) and all(b in books for b in top)))
        elif kind == "ref":
            report.checks["referências exatas"].append(float(result.status == "reference" and ranked == item["exact"]))
        elif kind == "ref_missing":
            report.checks["refs inexistentes"].append(float(result.status == "reference_missing" and not ranked))
        elif kind in REJECT_KINDS:
            report.checks["rejeição off-topic"].append(float(result.status == "no_evidence"))
    return report


def evaluate_baseline(items: list[dict], ranker: Callable[[str], list[str]]) -> Report:
    report = Report()
    for item in items:
        if item["kind"] in RANKED_KINDS:
            report.ranked[item["kind"]].append(rank_metrics(ranker(query_of(item)), item["relevant"]))
    return report


class StockBaselines:
    """Plain bm25s (no stemming, Portuguese stopwords) and dense only, over the same corpus and vectors."""

    def __init__(self, retriever: Retriever):
        self.retriever = retriever
        bible = retriever.bible
        plain = Analyzer(_NoStemmer())
        self.bm25 = LexicalIndex.build([v.text for v in bible.verses], plain)
        self.ids = [v.id for v in bible.verses]

    def bm25_plain(self, query: str) -> list[str]:
        return [self.ids[p] for p in _top(self.bm25.scores(query))]

    def dense(self, query: str) -> list[str]:
        vector = self.retriever.embedder.embed([query])[0]
        uuid_pos = self.retriever._uuid_pos
        return [self.ids[uuid_pos[m.id]] for m in self.retriever.store.query(vector, 100)]

    def rrf(self, query: str) -> list[str]:
        return [d for d, _ in rrf({"l": self.bm25_plain(query), "d": self.dense(query)})]


class _NoStemmer:
    name = "none"

    def __call__(self, word: str) -> str:
        return word


def _top(scores: np.ndarray, n: int = 100) -> list[int]:
    top = np.argpartition(-scores, n)[:n]
    return [int(p) for p in top[np.argsort(-scores[top])] if scores[p] > 0]


def run(retriever: Retriever, path: Path, baselines: bool = True) -> list[str]:
    """The printed report: the system, then the stock baselines on the same ranked items."""
    items = load_items(path)
    lines = [f"arquivo: {path} ({len(items)} itens)", "sistema (Pastor Online):"]
    lines += evaluate(retriever, items).lines()
    if baselines:
        stock = StockBaselines(retriever)
        for name, ranker in (("bm25s puro (sem stemmer)", stock.bm25_plain), ("só denso", stock.dense),
                             ("RRF simples dos dois", stock.rrf)):
            hit5, mrr, n = evaluate_baseline(items, ranker).pooled()
            lines.append(f"linha de base — {name}: hit@5 {hit5:.2f}  MRR@10 {mrr:.2f}  (n={n})")
    return lines
