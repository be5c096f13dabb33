"""The aptness ranker: orders the candidates of a life told by what blind judges found apt, and sets aside
what a harm model finds unfit for this reader (a good verse that would wound this person now).

Two linear models over the same features (retrieval/data/aptness/model.json, trained by
`python -m retrieval train-ranker` from the graded pairs beside it): P(apt) orders, P(harm) vetoes."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

import numpy as np

from corpus.canon import BY_CODE
from retrieval.aptness.memory import MEMORY_FEATURES, GradeMemory, VerseVectors
from retrieval.model_file import read_model_file
from retrieval.understand.intent import SITUATION

MODEL_FILE = Path(__file__).resolve().parent.parent / "data" / "aptness" / "model.json"
CANDIDATES = 30  # fused candidates the ranker orders; the rest keep their fused order after them
SURE_LIFE = 0.7  # a life told this surely (intent confidence) is ordered by the ranker alone: no topic asked
SURE_LIFE_SEARCH_WEIGHT = 0.0  # to keep (blind: apt@3 +0.03, harm@3 -0.01 against half the search's order)
CHANNELS = ("need", "topical", "lexical", "dense", "memory")
GROUPS = ("Lei", "Históricos", "Poéticos", "Profetas Maiores", "Profetas Menores", "Evangelhos", "Atos",
          "Cartas Paulinas", "Cartas Gerais", "Apocalipse")
TONES = ("juizo", "morte", "esterilidade", "lei_sexual", "condicao", "pecado_condenado", "culpa_pobreza")
VERSE_RATES = ("verse_apt_rate", "verse_harm_rate")  # whoever reads: the harm model's, never the order's
HARM_FEATURES = ("verse_cosine", "votes", "words", *(f"tone_{t}" for t in ("juizo", "morte", "esterilidade",
                 "lei_sexual", "condicao", "pecado_condenado", "culpa_pobreza")), *MEMORY_FEATURES)
FEATURES = ("fused_rank", "fused_log_rank", "fused_share", *(f"rank_{c}" for c in CHANNELS), "curated",
            "window_cosine", "verse_cosine", "verse_cosine_gap", "situation_score", "recognised", "votes",
            "words", *(f"group_{g}" for g in GROUPS), *(f"tone_{t}" for t in TONES), *MEMORY_FEATURES)
APT_FEATURES = tuple(f for f in FEATURES if f not in VERSE_RATES)


class AptnessModelError(ValueError):
    """The ranker's model file is missing fields or was trained on other features."""


@dataclass(frozen=True)
class LinearModel:
    """A logistic model over some of the features, with its standardisation: P = sigmoid(w · (x - mean) / scale + b)."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float
    features: tuple[str, ...] = FEATURES

    @property
    def columns(self) -> list[int]:
        return [FEATURES.index(name) for name in self.features]

    def probability(self, x: np.ndarray) -> np.ndarray:
        z = ((x[:, self.columns] - self.mean) / self.scale) @ self.weights + self.bias
        return 1.0 / (1.0 + np.exp(-z))

    def as_dict(self) -> dict:
        return {"features": list(self.features), "mean": self.mean.round(6).tolist(),
                "scale": self.scale.round(6).tolist(), "weights": self.weights.round(6).tolist(),
                "bias": round(float(self.bias), 6)}

    @classmethod
    def from_dict(cls, data: dict) -> LinearModel:
        names = tuple(data.get("features", FEATURES))
        unknown = [n for n in names if n not in FEATURES]
        if unknown:
            raise AptnessModelError(f"características desconhecidas no modelo: {unknown}")
        return cls(*(np.asarray(data[k], dtype=np.float32) for k in ("mean", "scale", "weights")),
                   float(data["bias"]), names)


@dataclass(frozen=True)
class AptnessModel:
    apt: LinearModel
    harm: LinearModel
    harm_threshold: float  # P(harm) at or above this sets a verse aside for this reader
    harm_weight: float  # how much P(harm) lowers the order below the veto
    search_weight: float = 0.0  # the search's own order, blended with the ranker's (see `blended`)
    data_sha: str = ""  # the graded pairs it was trained on
    situations: frozenset[str] = frozenset()  # the situations it saw (eval reports them apart)

    @classmethod
    def load(cls, path: Path = MODEL_FILE) -> AptnessModel:
        return read_model_file(path, FEATURES, AptnessModelError, "train-ranker", lambda data: cls(
            LinearModel.from_dict(data["apt"]), LinearModel.from_dict(data["harm"]), float(data["harm_threshold"]),
            float(data["harm_weight"]), float(data.get("search_weight", 0.0)), data.get("data_sha", ""),
            frozenset(data.get("situations", ()))), "modelo do ranqueador")

    def save(self, path: Path, **extra) -> None:
        data = {"features": list(FEATURES), "apt": self.apt.as_dict(), "harm": self.harm.as_dict(),
                "harm_threshold": self.harm_threshold, "harm_weight": self.harm_weight,
                "search_weight": self.search_weight, "data_sha": self.data_sha,
                **extra, "situations": sorted(self.situations)}
        Path(path).write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


class AptnessFeatures:
    """The feature rows of a message's candidates: how the search found them, what they say, what judges said."""

    def __init__(self, bible, verses: VerseVectors, memory: GradeMemory, topics=None, tones=None):
        self.verses = verses
        self.memory = memory
        votes = topics.verse_votes if topics is not None else {}
        self.votes = np.array([math.log1p(votes.get(p, 0.0)) for p in range(len(bible.verses))], np.float32)
        self.words = np.array([math.log1p(len(v.text.split())) for v in bible.verses], np.float32)
        self.group = np.array([GROUPS.index(BY_CODE[v.book].group) for v in bible.verses], np.int8)
        self.tones = tones

    def rows(self, fusion, positions: list[int], exclude: int | None = None) -> np.ndarray:
        fused_rank = {p: i for i, (p, _) in enumerate(fusion.fused)}
        top = fusion.fused[0][1] if fusion.fused else 1.0
        score = dict(fusion.fused)
        seen = list(fusion.similarity.values())
        floor = (min(seen) - 0.05) if seen else 0.0
        cosines = self.verses[positions] @ np.asarray(fusion.vector, np.float32)
        situation = max((r.score for r in fusion.recognised), default=0.0)
        curated = fusion.need.curated if fusion.need is not None else frozenset()
        x = np.zeros((len(positions), len(FEATURES)), np.float32)
        for i, p in enumerate(positions):
            rank = fused_rank.get(p, len(fusion.fused))
            x[i, 0] = 1.0 / (1 + rank)
            x[i, 1] = math.log1p(rank)
            x[i, 2] = score.get(p, 0.0) / top if top else 0.0
            for j, channel in enumerate(CHANNELS):
                r = fusion.ranks.get(channel, {}).get(p)
                x[i, 3 + j] = 1.0 / (1 + r) if r else 0.0
            base = 3 + len(CHANNELS)
            x[i, base] = float(p in curated)
            x[i, base + 1] = fusion.similarity.get(p, floor)
            x[i, base + 2] = cosines[i]
            x[i, base + 3] = cosines[i] - cosines.max()
            x[i, base + 4] = situation
            x[i, base + 5] = float(bool(fusion.recognised))
            x[i, base + 6] = self.votes[p]
            x[i, base + 7] = self.words[p]
            x[i, base + 8 + self.group[p]] = 1.0
            for key in self.tones.of(p) if self.tones is not None else ():
                if key in TONES:
                    x[i, base + 8 + len(GROUPS) + TONES.index(key)] = 1.0
        start = len(FEATURES) - len(MEMORY_FEATURES)
        x[:, start:] = self.memory.features(fusion.vector, positions, exclude)
        return x


    def pair_rows(self, vector: np.ndarray, positions: list[int], exclude: int | None = None) -> np.ndarray:
        """Rows of verses the search did not bring: only what the verse says and what judges said is filled
        (the harm model's features)."""
        from retrieval.results import Fusion

        return self.rows(Fusion([], {}, {}, None, [], [], None, vector, False, False), positions, exclude)


class Reranked(NamedTuple):
    fused: list[tuple[int, float]]  # the candidates in the blended order
    unfit: frozenset[int]  # what the harm model sets aside for this reader
    apt: dict[int, float]  # P(apt) of each ordered candidate: who leads the three shown (see `led`)


class AptnessRanker:
    """The judges' memory as a candidate channel; with a model, re-orders a life told's fused candidates by
    P(apt) - harm_weight * P(harm), blended with the search's order, and vetoes P(harm) >= threshold."""

    def __init__(self, model: AptnessModel | None, features: AptnessFeatures, candidates: int = CANDIDATES):
        self.model = model
        self.features = features
        self.candidates = candidates

    def scores(self, fusion, positions: list[int]) -> tuple[np.ndarray, np.ndarray]:
        x = self.features.rows(fusion, positions)
        return self.model.apt.probability(x), self.model.harm.probability(x)

    def rerank(self, text: str, fusion, retriever=None) -> Reranked:
        head = fusion.fused[:self.candidates]
        if not head:
            return Reranked(fusion.fused, frozenset(), {})
        positions = [p for p, _ in head]
        apt, harm = self.scores(fusion, positions)
        order = blended(apt - self.model.harm_weight * harm, search_weight(self.model, fusion.intent))
        unfit = self._vetoed(fusion, positions, harm)
        ranked = sorted(range(len(positions)), key=lambda i: -order[i])
        top = 1.0 + float(order.max() - order.min())
        reordered = [(positions[i], top + float(order[i])) for i in ranked]
        return Reranked(reordered + fusion.fused[self.candidates:], unfit,
                        {p: float(a) for p, a in zip(positions, apt)})

    def unfit(self, fusion) -> frozenset[int]:
        """The candidates the harm model sets aside for this reader, the order left as it is (a question asked
        by someone who also tells their pain: "tomo remédio pra depressão, é falta de fé?")."""
        positions = [p for p, _ in fusion.fused[:self.candidates]]
        if not positions:
            return frozenset()
        return self._vetoed(fusion, positions, self.model.harm.probability(self.features.rows(fusion, positions)))

    def _vetoed(self, fusion, positions: list[int], harm: np.ndarray) -> frozenset[int]:
        """P(harm) at or above the threshold, never the verse the person says from memory ("todo mundo pecou e tá
        longe da glória de Deus, isso é em Romanos?" asks for Romans 3:23, whatever it tells)."""
        said = set(fusion.remembered)
        return frozenset(p for p, h in zip(positions, harm) if h >= self.model.harm_threshold and p not in said)


def led(hits: list, apt: dict[str, float], keep: frozenset[str] = frozenset(), first: int = 3) -> list:
    """The first ``first`` hits, most apt first by P(apt) of each verse id (the blend chose which three; the
    model alone says which leads); when one of them is a verse the person remembered (``keep``), as they are."""
    head = hits[:first]
    if any(hit.id in keep for hit in head):
        return hits
    return sorted(head, key=lambda hit: -apt.get(hit.id, 0.0)) + hits[first:]


def search_weight(model: AptnessModel, intent) -> float:
    """The search order's share in the blend: the model's, none for a life surely told (the search's order keeps
    taught answers to topic questions near the top; a person telling their pain asked no topic)."""
    if intent is not None and intent.name == SITUATION and intent.confidence >= SURE_LIFE:
        return min(model.search_weight, SURE_LIFE_SEARCH_WEIGHT)
    return model.search_weight


def blended(score: np.ndarray, search_weight: float, k: float = 10.0) -> np.ndarray:
    """Reciprocal-rank blend of the ranker's order and the search's (``score`` lists candidates in search order):
    the search's weight keeps what it put first near the top when the ranker hardly prefers another."""
    ranker_rank = np.empty(len(score))
    ranker_rank[np.argsort(-score, kind="stable")] = np.arange(len(score))
    return 1.0 / (k + ranker_rank) + search_weight / (k + np.arange(len(score)))


def open_ranker(bible, embedder, thesaurus, topics, tones, index_dir: Path, cache_dir: Path,
                model_path: Path = MODEL_FILE) -> AptnessRanker:
    """The ranker as trained, over this index; AptnessModelError says why it cannot serve this index."""
    from retrieval.aptness.grades import grade_files, load_all, position_of
    from retrieval.understand.query import plan_query

    model = AptnessModel.load(model_path)
    trained_for = json.loads(Path(model_path).read_text(encoding="utf-8")).get("embedder", "")
    slug = embedder.identity.slug
    if trained_for and trained_for != slug:
        raise AptnessModelError(f"o ranqueador pastoral foi treinado com o embedder {trained_for}, não {slug}")
    try:
        verses = VerseVectors.of_index(bible, slug, index_dir, cache_dir)
    except (OSError, ValueError) as error:
        raise AptnessModelError(str(error)) from error
    pairs = load_all(grade_files())
    memory = GradeMemory.build(pairs, lambda vid: position_of(bible, vid), embedder.embed, verses, cache_dir, slug,
                               lambda q: plan_query(q, thesaurus).search_text)
    return AptnessRanker(model, AptnessFeatures(bible, verses, memory, topics, tones))
