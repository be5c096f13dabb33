"""`python -m retrieval train-relevance`: the relevance model from questions whose answering verses blind helpers
chose (retrieval/data/relevance/train-*.jsonl), cross-validated by question, written to model.json."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

from retrieval.relevance.features import FEATURES, CandidateFeatures
from retrieval.relevance.model import DATA_DIR, MODEL_FILE, RelevanceModel, orders
from retrieval.relevance.trees import export
from retrieval.understand.query import plan_query

FOLDS = 5
TREES = dict(max_iter=200, learning_rate=0.05, max_depth=6, max_leaf_nodes=31, min_samples_leaf=40,
             l2_regularization=1.0, early_stopping=False, random_state=0)


def training_files(directory: Path = DATA_DIR) -> list[Path]:
    return sorted(Path(directory).glob("train-*.jsonl"))


def load_questions(paths: list[Path]) -> list[dict]:
    """Every {"id", "q", "relevant"} line; a malformed line is an error naming the file and the line."""
    questions = []
    for path in paths:
        for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                item = json.loads(line)
                if not (isinstance(item["q"], str) and item["q"].strip() and item["relevant"]):
                    raise ValueError("q vazio ou relevant vazio")
            except (ValueError, KeyError, TypeError) as error:
                raise ValueError(f"{path}:{number}: linha inválida ({error})") from error
            questions.append(item)
    return questions


@dataclass
class Examples:
    x: np.ndarray
    relevant: np.ndarray  # bool, per row
    question: np.ndarray  # question index, per row


def examples(retriever, features: CandidateFeatures, questions: list[dict],
             log: Callable[[str], None] = print) -> Examples:
    """Feature rows of every question the ranker would order (`orders`)."""
    xs, ys, qs = [], [], []
    for n, item in enumerate(questions):
        plan = plan_query(item["q"], retriever.thesaurus)
        if not plan.text.strip():
            continue
        # a question is left out of the answered questions it is trained against
        fusion = retriever.fuse(plan, retriever.understand(item["q"]), exclude=str(item.get("id") or item["q"]))
        if not orders(fusion):
            continue
        pool, x = features.rows(plan, fusion)
        wanted = set(item["relevant"])
        xs.append(x)
        ys += [retriever.bible.verses[p].id in wanted for p in pool]
        qs += [n] * len(pool)
        if (n + 1) % 100 == 0:
            log(f"características: {n + 1}/{len(questions)} perguntas")
    return Examples(np.vstack(xs), np.array(ys), np.array(qs))


def ranking_metrics(score: np.ndarray, data: Examples) -> dict[str, float]:
    """hit@5 and MRR@10 of the candidates ordered by ``score`` (verses, not merged passages)."""
    hits, reciprocal = [], []
    for q in np.unique(data.question):
        rows = np.flatnonzero(data.question == q)
        top = data.relevant[rows[np.argsort(-score[rows], kind="stable")][:10]]
        found = np.flatnonzero(top)
        hits.append(bool(found.size) and found[0] < 5)
        reciprocal.append(1.0 / (found[0] + 1) if found.size else 0.0)
    return {"hit@5": round(float(np.mean(hits)), 3), "MRR@10": round(float(np.mean(reciprocal)), 3)}


def fit(data: Examples) -> HistGradientBoostingClassifier:
    return HistGradientBoostingClassifier(**TREES).fit(data.x, data.relevant)


def cross_validated(data: Examples) -> np.ndarray:
    """Every row's score from a model that never saw its question."""
    fold = np.random.default_rng(7).permutation(data.question.max() + 1)[data.question] % FOLDS
    score = np.zeros(len(data.relevant))
    for f in range(FOLDS):
        train = fold != f
        model = fit(Examples(data.x[train], data.relevant[train], data.question[train]))
        score[~train] = model.decision_function(data.x[~train])
    return score


def data_sha(questions: list[dict]) -> str:
    rows = sorted(f"{q['q']}\t{','.join(sorted(q['relevant']))}" for q in questions)
    return hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]


def train(retriever, features: CandidateFeatures, questions: list[dict], out: Path = MODEL_FILE,
          log: Callable[[str], None] = print) -> RelevanceModel:
    data = examples(retriever, features, questions, log)
    fused = ranking_metrics(data.x[:, FEATURES.index("fused_rr")], data)
    learned = ranking_metrics(cross_validated(data), data)
    log(f"{len(np.unique(data.question))} perguntas, {len(data.relevant)} candidatos "
        f"({int(data.relevant.sum())} relevantes)")
    log(f"validação cruzada por pergunta: ordem da fusão {fused} → ranqueador {learned}")
    model = RelevanceModel(export(fit(data)), retriever.embedder.identity.slug, data_sha(questions),
                           {"questions": int(len(np.unique(data.question))),
                            "cross_validation": {"fused": fused, "ranker": learned}})
    model.save(out)
    log(f"modelo gravado em {out}")
    return model
