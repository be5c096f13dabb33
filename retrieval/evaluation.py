"""`python -m retrieval eval FILE.jsonl`: retrieval metrics per kind, beside stock baselines."""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from corpus.text import fold
from retrieval.fusion import rrf
from retrieval.index.lexical import Analyzer, LexicalIndex
from retrieval.results import Status
from retrieval.retriever import Retriever
from retrieval.understand.scope import named

RANKED_KINDS = ("topic", "quote", "scope", "followup", "casual", "knowledge")
REJECT_KINDS = ("offtopic", "offtopic_scope")


def load_items(path: Path) -> list[dict]:
    """Eval items; a file of graded pairs (retrieval/aptness/grades.py) becomes one situation item per message."""
    items = [json.loads(line) for line in Path(path).read_text(encoding="utf-8").splitlines() if line.strip()]
    if items and "verse" in items[0] and "grade" in items[0]:
        pairs = [{"id": i["situation"], "q": i.get("q", ""), "grades": {i["verse"]: int(i["grade"])}} for i in items]
        merged: dict[str, dict] = {}
        for pair in pairs:
            item = merged.setdefault(pair["id"], {"id": pair["id"], "kind": "situation", "q": pair["q"], "grades": {}})
            item["grades"].update(pair["grades"])
        return list(merged.values())
    return items


def query_of(item: dict) -> str:
    """The question to search; a follow-up's turns are joined (the pipeline's no-LLM merge)."""
    return " ".join(item["turns"]) if "turns" in item else item["q"]


def rank_metrics(ranked: list[str], relevant: Iterable[str]) -> tuple[float, float]:
    """(hit@5, reciprocal rank within the top 10)."""
    relevant = set(relevant)
    hit5 = float(any(r in relevant for r in ranked[:5]))
    mrr = next((1.0 / (i + 1) for i, r in enumerate(ranked[:10]) if r in relevant), 0.0)
    return hit5, mrr


def passage_metrics(result, relevant: Iterable[str]) -> tuple[float, float]:
    """(hit@5, reciprocal rank within the top 10) over passages: a named passage answered as one text is
    one passage, every other hit with its merged neighbours is one."""
    units = [result.ranked_ids()] if result.mode == "passagem" else [hit.ids for hit in result.hits]
    relevant = set(relevant)
    found = [i for i, ids in enumerate(units[:10]) if relevant.intersection(ids)]
    return float(bool(found) and found[0] < 5), (1.0 / (found[0] + 1) if found else 0.0)


@dataclass
class Report:
    ranked: dict[str, list[tuple[float, float]]] = field(default_factory=lambda: defaultdict(list))
    checks: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))

    def pooled(self) -> tuple[float, float, int]:
        values = [v for kind, rows in self.ranked.items() if kind in RANKED_KINDS for v in rows]
        if not values:
            return 0.0, 0.0, 0
        return float(np.mean([v[0] for v in values])), float(np.mean([v[1] for v in values])), len(values)

    def lines(self) -> list[str]:
        out = []
        for kind in sorted(self.ranked, key=lambda k: (RANKED_KINDS.index(k.split("/")[0]), k)):
            values = self.ranked[kind]
            out.append(f"  {kind:<18} hit@5 {np.mean([v[0] for v in values]):.2f}  "
                       f"MRR@10 {np.mean([v[1] for v in values]):.2f}  (n={len(values)})")
        hit5, mrr, n = self.pooled()
        out.append(f"  {'todas (ranqueadas)':<18} hit@5 {hit5:.2f}  MRR@10 {mrr:.2f}  (n={n})")
        for name, values in self.checks.items():
            out.append(f"  {name:<18} {np.mean(values):.2f}  (n={len(values)})")
        return out


def passage_grades(hits, grades: dict[str, int], n: int = 3) -> list[int | None]:
    """Grades of the first ``n`` passages: the first verse's grade, or -1 if any verse in it is -1."""
    out: list[int | None] = []
    for hit in hits[:n]:
        ids = hit.ids
        if any(grades.get(i) == -1 for i in ids):
            out.append(-1)
        else:
            out.append(grades.get(ids[0]))
    return out


@dataclass
class SituationReport:
    """Pastoral aptness over life situations (shared/eval/README.md): apt@3, first-apt, harm@3, no_evidence."""

    apt: list[float] = field(default_factory=list)
    first: list[float] = field(default_factory=list)
    harm: list[float] = field(default_factory=list)
    turned_away: list[str] = field(default_factory=list)
    unjudged: list[tuple[str, str]] = field(default_factory=list)  # (situation id, verse id) shown but not graded

    def add(self, item: dict, result) -> None:
        if result.status == Status.NO_EVIDENCE or not result.hits:
            self.turned_away.append(item.get("id", item["q"]))
            self.apt.append(0.0)
            self.first.append(0.0)
            self.harm.append(0.0)
            return
        top = passage_grades(result.hits, item["grades"])
        self.add_shown(item.get("id", ""), [h.id for h in result.hits[:3]], top)

    def add_shown(self, situation: str, shown: list[str], top: list[int | None]) -> None:
        """One situation's first three shown (ids) and their grades (None: not graded)."""
        self.apt.append(sum(1 for g in top if g == 2) / 3)
        self.first.append(float(bool(top) and top[0] == 2))
        self.harm.append(float(-1 in top))
        self.unjudged += [(situation, verse) for verse, g in zip(shown, top) if g is None]

    def lines(self) -> list[str]:
        n = len(self.apt)
        line = (f"  {'situações':<18} apt@3 {np.mean(self.apt):.2f}  first-apt {np.mean(self.first):.2f}  "
                f"harm@3 {np.mean(self.harm):.2f}  no_evidence {len(self.turned_away)} de {n}  "
                f"(sem nota entre os 3 primeiros: {len(self.unjudged)})")
        return [line]


def evaluate_situations(retriever: Retriever, items: list[dict], ranker=None) -> SituationReport:
    report = SituationReport()
    for item in items:
        if item.get("kind") == "situation" and item.get("q"):
            report.add(item, ranker(item["q"]) if ranker else retriever.search(item["q"], k=10))
    return report


def situation_folds(retriever: Retriever, items: list[dict]) -> dict[str, list[dict]]:
    """Situations the aptness ranker was trained on ("treino") apart from those it never saw ("teste")."""
    aptness = getattr(retriever, "aptness", None)
    seen = aptness.model.situations if aptness is not None and aptness.model is not None else frozenset()
    split = {"treino": [i for i in items if i.get("id") in seen],
             "teste": [i for i in items if i.get("id") not in seen]}
    return {name: rows for name, rows in split.items() if rows}


def evaluate(retriever: Retriever, items: list[dict]) -> Report:
    """The system as configured, through `Retriever.search` (its own scope detection and floor)."""
    report = Report()
    for item in items:
        kind = item["kind"]
        result = retriever.search(query_of(item), k=10)
        ranked = result.ranked_ids()
        if kind == "knowledge":  # "a key verse in the first five passages"
            metrics = passage_metrics(result, item["relevant"])
            report.ranked[kind].append(metrics)
            report.ranked[f"knowledge/{item.get('sub', '')}"].append(metrics)
            report.checks["falsa rejeição"].append(float(result.status == Status.NO_EVIDENCE))
        elif kind in RANKED_KINDS:
            report.ranked[kind].append(rank_metrics(ranked, item["relevant"]))
            if kind == "quote":  # a verse quoted from memory comes back among the first three passages
                top3 = [i for hit in result.hits[:3] for i in hit.ids]
                report.checks["citação no top 3"].append(float(bool(set(top3) & set(item["relevant"]))))
            report.checks["falsa rejeição"].append(float(result.status == Status.NO_EVIDENCE))
            if "scope" in item and kind == "scope":
                books = named(item["scope"]).books
                top = [i.split(".")[0] for i in ranked[:5]]
                report.checks["precisão de escopo"].append(float(bool(top) and all(b in books for b in top)))
        elif kind == "ref":
            exact = result.status == Status.REFERENCE and ranked == item["exact"]
            report.checks["referências exatas"].append(float(exact))
        elif kind == "ref_missing":
            report.checks["refs inexistentes"].append(float(result.status == Status.REFERENCE_MISSING and not ranked))
        elif kind == "smalltalk":  # answered as conversation: never the no-evidence text, no verses
            report.checks["conversa reconhecida"].append(float(result.mode == "conversa"))
        elif kind == "welcome":  # someone at the margins of faith opening up: verses or a welcome, never refused
            report.checks["acolhida sem recusa"].append(float(result.status != Status.NO_EVIDENCE))
        elif kind == "life":  # someone telling their own life, whatever church role they name: cared for
            report.checks["vida cuidada"].append(float(result.mode == "cuidado"))
        elif kind == "needs-answer":  # a greeting or thanks that also asks something: answered, not chatted
            answered = result.mode != "conversa" and result.status in (Status.OK, Status.REFERENCE)
            report.checks["pedido atendido"].append(float(answered))
        elif kind in REJECT_KINDS:
            report.checks["rejeição off-topic"].append(float(result.status == Status.NO_EVIDENCE))
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


# frames other than those the intent classifier is trained with (retrieval/understand/intent.py QUOTE_FRAMES)
FRAMES = ("lembro de um versiculo assim: {}", "{} onde ta isso na biblia", "minha avo sempre dizia {}",
          "tem uma parte que fala {}", "{}")


def famous_windows(bible, topics, count: int, length: int = 7) -> list[tuple[str, str]]:
    """(message, verse id): a window from the middle of each verse, in a frame."""
    out = []
    for n, position in enumerate(topics.best_known(range(len(bible.verses)), count)):
        verse = bible.verses[position]
        words = "".join(c if c.isalnum() or c.isspace() else " " for c in fold(verse.text)).split()
        start = max(0, (len(words) - length) // 2)
        out.append((FRAMES[n % len(FRAMES)].format(" ".join(words[start:start + length])), verse.id))
    return out


def famous_verses(retriever, count: int = 1000) -> tuple[float, list[tuple[str, str, list[str]]]]:
    misses = []
    cases = famous_windows(retriever.bible, retriever.topics, count)
    for message, verse_id in cases:
        result = retriever.search(message, k=10)
        top = [i for hit in result.hits[:3] for i in hit.ids]
        if verse_id not in top:
            misses.append((message, verse_id, [h.id for h in result.hits[:3]]))
    return 1 - len(misses) / len(cases), misses


def merge_grades(items: list[dict], extra: list[dict]) -> list[dict]:
    """Situation items with grades added from ``extra`` (same ids; the shared grades win on conflict)."""
    added: dict[str, dict] = {}
    for entry in extra:
        added.setdefault(entry["id"], {}).update(entry["grades"])
    return [{**item, "grades": {**added.get(item.get("id"), {}), **item["grades"]}} if "grades" in item else item
            for item in items]


def run(retriever: Retriever, path: Path, baselines: bool = True, grades: list[Path] = ()) -> list[str]:
    """The printed report: the system, then the stock baselines on the same ranked items."""
    items = merge_grades(load_items(path), [e for g in grades for e in load_items(g) if "grades" in e])
    if unkinded := [n for n, item in enumerate(items, start=1) if "kind" not in item]:
        raise ValueError(f"{path}: não é um conjunto de avaliação (linha {unkinded[0]} sem \"kind\", e não são "
                         "pares avaliados com \"verse\" e \"grade\")")
    lines = [f"arquivo: {path} ({len(items)} itens)", "sistema (Pastor Online):"]
    # a life without grades (a story set's look-alikes) is read only for what it asks, never for aptness
    situations = [item for item in items if item.get("kind") == "situation" and "grades" in item]
    for name, rows in situation_folds(retriever, situations).items() if situations else ():
        report = evaluate_situations(retriever, rows)
        lines += [line.replace("situações", f"situações ({name})", 1) for line in report.lines()]
        lines += [f"    sem nota: {sid} {vid}" for sid, vid in report.unjudged]
        lines += [f"    recusada: {sid}" for sid in report.turned_away]
    if any(item.get("kind") != "situation" for item in items):
        lines += evaluate(retriever, items).lines()
    if baselines and any(item.get("kind") in RANKED_KINDS for item in items):
        stock = StockBaselines(retriever)
        for name, ranker in (("bm25s puro (sem stemmer)", stock.bm25_plain), ("só denso", stock.dense),
                             ("RRF simples dos dois", stock.rrf)):
            hit5, mrr, n = evaluate_baseline(items, ranker).pooled()
            lines.append(f"linha de base — {name}: hit@5 {hit5:.2f}  MRR@10 {mrr:.2f}  (n={n})")
    return lines
