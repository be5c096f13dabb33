"""The relevance model file and the ranker that applies it to a fused question."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from retrieval.model_file import read_model_file
from retrieval.relevance.features import FEATURES, CandidateFeatures
from retrieval.relevance.trees import TreeEnsemble
from retrieval.understand.intent import KNOWLEDGE, SITUATION

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "relevance"
MODEL_FILE = DATA_DIR / "model.json"


class RelevanceModelError(ValueError):
    """The relevance model file is missing, unreadable, or made for other features or another embedder."""


@dataclass(frozen=True)
class RelevanceModel:
    trees: TreeEnsemble
    embedder: str  # the embedder slug whose vectors the features were read with
    data_sha: str = ""
    report: dict = field(default_factory=dict)  # cross-validation and training figures, as trained

    def save(self, path: Path = MODEL_FILE) -> None:
        data = {"features": list(FEATURES), "embedder": self.embedder, "data_sha": self.data_sha,
                "report": self.report, "trees": self.trees.as_dict()}
        Path(path).write_text(json.dumps(data, ensure_ascii=False) + "\n", encoding="utf-8")

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> RelevanceModel:
        return read_model_file(path, FEATURES, RelevanceModelError, "train-relevance", lambda data: cls(
            TreeEnsemble.from_dict(data["trees"]), str(data["embedder"]), data.get("data_sha", ""),
            data.get("report", {})), "modelo de relevância")


def orders(fusion) -> bool:
    """Whether the ranker orders this fused question: not a life told (the care path and the aptness ranker
    answer it, and a person asking from their own pain is cared for first), not a quotation, not a story of
    Scripture (knowledge), and something was found."""
    intent = fusion.intent
    return not (fusion.care or fusion.quote or fusion.turned_away or not fusion.fused or fusion.told is not None
                or (intent is not None and intent.name in (KNOWLEDGE, SITUATION)))


class RelevanceRanker:
    """Re-orders a fused question's candidates by P(relevant); the rest keep their fused order after them."""

    def __init__(self, model: RelevanceModel, features: CandidateFeatures):
        self.model = model
        self.features = features

    def rerank(self, plan, fusion) -> list[tuple[int, float]]:
        pool, x = self.features.rows(plan, fusion)
        if not pool:
            return fusion.fused
        score = self.model.trees.probability(x)
        order = np.argsort(-score, kind="stable")
        head = [(pool[i], 1.0 + float(score[i])) for i in order]
        chosen = set(pool)
        return head + [(p, s) for p, s in fusion.fused if p not in chosen]


def open_relevance(retriever, verses, path: Path = MODEL_FILE) -> RelevanceRanker:
    """The ranker as trained, over this retriever; RelevanceModelError says why it cannot serve it."""
    model = RelevanceModel.load(path)
    slug = retriever.embedder.identity.slug
    if model.embedder != slug:
        raise RelevanceModelError(f"o ranqueador de relevância foi treinado com o embedder {model.embedder}, "
                                  f"não {slug}")
    if retriever.topics is None or retriever.topic_meanings is None:
        raise RelevanceModelError("o ranqueador de relevância lê os tópicos do OpenBible (TOPICS_PATH)")
    return RelevanceRanker(model, CandidateFeatures(retriever, verses))
