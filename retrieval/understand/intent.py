"""What a message asks for, before any search: a classifier over its embedding and character n-grams,
trained on the exemplar bank (data/intents.jsonl) plus Scripture windows made from the corpus."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from corpus.text import fold
from retrieval.index.text_vectors import remembered
from retrieval.understand.chat import normalize_chat
from retrieval.understand.textmodel import LinearTextModel, fit, read_bank

log = logging.getLogger(__name__)

SMALLTALK, KNOWLEDGE, TEACHING = "smalltalk", "knowledge", "teaching"
SITUATION, QUOTATION, OFFTOPIC = "situation", "quotation", "offtopic"
INTENTS = (SMALLTALK, KNOWLEDGE, TEACHING, SITUATION, QUOTATION, OFFTOPIC)
INTENTS_FILE = Path(__file__).resolve().parent.parent / "data" / "intents.jsonl"
LIFE_BEFORE_TEACHING = 0.9  # a life told this surely is cared for, whatever teaching it also asks for
LIFE_TOO, LIFE_TOO_MARGIN = 0.35, 0.15  # a teaching this close to a life told is cared for (life_told_too)
MODEL_VERSION = 1  # part of the cache key: bump when training or features change
C = 8.0

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Intent:
    """The intent the classifier read, how sure it is, and every class's probability."""

    name: str
    confidence: float
    probabilities: dict[str, float]

    def as_dict(self) -> dict:
        return {"intent": self.name, "confidence": round(self.confidence, 3),
                "probabilities": {k: round(v, 3) for k, v in self.probabilities.items() if v >= 0.01}}


def life_told_too(intent: Intent) -> bool:
    """A question of doctrine the classifier reads almost as much as a life told ("o psiquiatra passou remédio,
    tomar é falta de fé?"): the person is cared for first, not taught."""
    situation = intent.probabilities.get(SITUATION, 0.0)
    return situation >= LIFE_TOO and intent.probabilities.get(TEACHING, 0.0) - situation < LIFE_TOO_MARGIN


def life_surely_told(intent: Intent | None) -> bool:
    """The classifier surely reads a life told, whatever question it holds."""
    return intent is not None and intent.name == SITUATION and intent.confidence >= LIFE_BEFORE_TEACHING


def load_bank(path: Path = INTENTS_FILE) -> list[tuple[str, str]]:
    """(text, intent) pairs; a malformed line is an error naming the file and the line."""
    return read_bank(path, lambda row: (str(row["text"]), str(row["intent"])),
                     lambda pair: pair[1] in INTENTS and bool(pair[0].strip()),
                     f"intent deve ser um de {', '.join(INTENTS)}, com texto")


QUOTE_FRAMES = ("{}", "aquele versiculo que diz {}", "onde esta escrito {}?", "o que significa {}", "{} amem 🙏",
                "pastor me explica {}", "{} ne")


def quoted_windows(bible, topics, count: int = 300, frames: Sequence[str] = QUOTE_FRAMES, length: int = 8,
                   shift: int = 0) -> list[str]:
    """Windows of the most-voted verses, typed loosely (folded, no punctuation) in everyday frames; made at
    run time from the corpus, so no verse text is kept in a file."""
    if topics is None:
        return []
    out = []
    for n, position in enumerate(topics.best_known(range(len(bible.verses)), count)):
        words = "".join(c if c.isalnum() or c.isspace() else " " for c in fold(bible.verses[position].text)).split()
        start = (n + shift) % max(1, len(words) - length + 1)
        out.append(frames[(n + shift) % len(frames)].format(" ".join(words[start:start + length])))
    return out


def embedding_text(text: str) -> str:
    """What is embedded: the chat spelling expanded, as retrieval and the crisis screening embed it."""
    return normalize_chat(text) or text


class IntentModel:
    """Reads one message's intent from its text and its embedding."""

    def __init__(self, model: LinearTextModel, report: dict | None = None):
        self.model = model
        self.report = report or {}

    def classify(self, text: str, vector: np.ndarray) -> Intent:
        probs = self.model.probabilities([text], np.asarray(vector, dtype=np.float32).reshape(1, -1))[0]
        best = int(np.argmax(probs))
        return Intent(self.model.classes[best], float(probs[best]),
                      {c: float(p) for c, p in zip(self.model.classes, probs)})


def training_set(bank: list[tuple[str, str]], bible=None, topics=None) -> list[tuple[str, str]]:
    """The bank plus loosely typed windows of well-known verses (quotations) at two window lengths."""
    windows = quoted_windows(bible, topics, 600, length=7, shift=3) + quoted_windows(bible, topics, 300, length=5)
    return bank + [(w, QUOTATION) for w in windows]


def bank_key(examples: list[tuple[str, str]], embedder_slug: str) -> str:
    digest = hashlib.sha256(f"{MODEL_VERSION}|{C}|{embedder_slug}".encode())
    for text, intent in examples:
        digest.update(f"{intent}\t{text}\n".encode())
    return digest.hexdigest()[:16]


def intent_model(embed: Embed, embedder_slug: str, cache_dir: Path | None, bible=None, topics=None,
                 bank: list[tuple[str, str]] | None = None) -> IntentModel:
    """The model for this bank and embedder: from the cache in ``cache_dir`` or trained now (and cached)."""
    examples = training_set(load_bank() if bank is None else bank, bible, topics)
    key = bank_key(examples, embedder_slug)
    if key in _TRAINED:  # one training per process for the same bank and embedder, whatever the index
        return _TRAINED[key]
    _TRAINED[key] = model = _cached_or_trained(remembered(embed, embedder_slug, cache_dir), examples, key, cache_dir)
    return model


_TRAINED: dict[str, IntentModel] = {}


def _cached_or_trained(embed: Embed, examples: list[tuple[str, str]], key: str, cache_dir: Path | None) -> IntentModel:
    path = cache_dir / f"intent-{key}.npz" if cache_dir else None
    if path is not None and path.exists():
        try:
            model, extra = LinearTextModel.load(path)
            return IntentModel(model, extra)
        except (OSError, ValueError, KeyError) as error:
            log.warning("modelo de intenção em cache ilegível (%s): treinando de novo", error)
    vectors = np.asarray(embed([embedding_text(t) for t, _ in examples]), dtype=np.float32)
    model = fit([t for t, _ in examples], vectors, [i for _, i in examples], c=C, compact=True)  # the same, 4x faster
    report = {"exemplars": len(examples), "intents": {i: sum(1 for _, x in examples if x == i) for i in INTENTS}}
    log.info("intenções treinadas: %s", report)
    if path is not None:
        model.save(path, **report)
    return IntentModel(model, report)
