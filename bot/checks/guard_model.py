"""Sentences an answer may never say, read by meaning: a linear model over the sentence embedding, its nearest
exemplars of each kind, character and word n-grams, trained on the exemplar bank (bot/data/guard/exemplars.jsonl),
its threshold from held-out folds."""

from __future__ import annotations

import hashlib
import logging
import os
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from threading import Lock

import numpy as np

from retrieval.index.text_vectors import remembered
from retrieval.understand.intent import embedding_text
from retrieval.understand.textmodel import LinearTextModel, fit, read_bank

log = logging.getLogger("pastor.guard")

SAFE = "safe"
KINDS = ("treatment", "condemnation", "contact", "submission")
MODEL_VERSION = 3  # part of the cache key: bump when training or features change
MAX_FALSE_ALARMS = 0.04  # share of the bank's safe sentences (held-out folds) allowed over the threshold
C = 8.0  # inverse regularisation (README: "Guarda das respostas")
WORD_WEIGHT = 1.0  # the word n-grams' block (1-2 words) beside the character n-grams: 0.76 -> 0.79 recall, bank folds
EXEMPLARS_FILE = Path(__file__).resolve().parent.parent / "data" / "guard" / "exemplars.jsonl"
NEIGHBOURS = 5  # mean similarity to the 5 nearest exemplars of each label: bank folds 0.78 -> 0.82 recall
NEIGHBOUR_WEIGHT = 2.0  # their columns beside the embedding's (both then scaled by textmodel.EMBEDDING_WEIGHT)
CACHE_SIZE = 4096  # sentences whose verdict is kept: a streamed answer is checked again at every paragraph

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Exemplar:
    text: str
    label: str  # one of KINDS or SAFE


def load_exemplars(path: Path = EXEMPLARS_FILE) -> list[Exemplar]:
    """The bank; a malformed line is an error naming the file and the line."""
    return read_bank(path, lambda row: Exemplar(str(row["text"]).strip(), str(row["label"])),
                     lambda e: e.label in (*KINDS, SAFE) and bool(e.text),
                     f"label deve ser um de {(*KINDS, SAFE)}, com texto")


def neighbours(queries: np.ndarray, bank: np.ndarray, labels: np.ndarray, itself: bool = False) -> np.ndarray:
    """Mean cosine similarity of each query to its NEIGHBOURS nearest exemplars of each label (KINDS, then SAFE);
    ``itself``: the queries are the bank, and a sentence is not its own neighbour."""
    sims = queries @ bank.T
    if itself:
        np.fill_diagonal(sims, -1.0)
    columns = []
    for label in (*KINDS, SAFE):
        own = sims[:, labels == label]
        k = max(0, min(NEIGHBOURS, own.shape[1] - itself))  # a small label: its own -1 is never averaged in
        columns.append(np.partition(own, -k, axis=1)[:, -k:].mean(axis=1) if k else np.zeros(len(queries)))
    return np.stack(columns, axis=1).astype(np.float32)


def inputs(vectors: np.ndarray, bank: np.ndarray, labels: np.ndarray, itself: bool = False) -> np.ndarray:
    """The dense block the linear model reads: the embedding beside its nearest exemplars' similarities."""
    return np.hstack([vectors, NEIGHBOUR_WEIGHT * neighbours(vectors, bank, labels, itself)])


@dataclass(frozen=True)
class GuardModel:
    model: LinearTextModel
    threshold: float  # P(harm) = 1 - P(safe) at or above this: the sentence is not said
    report: dict  # cross-validated recall and false alarms on the bank
    bank: np.ndarray  # the exemplars' embeddings, their neighbours
    labels: np.ndarray  # the exemplars' labels

    def judge(self, texts: Sequence[str], vectors: np.ndarray) -> list[tuple[float, str]]:
        """(P(harm), likeliest harmful kind) of each sentence."""
        probs = self.model.probabilities(texts, inputs(vectors, self.bank, self.labels))
        safe = self.model.classes.index(SAFE)
        kinds = [i for i in range(len(self.model.classes)) if i != safe]
        return [(float(1.0 - row[safe]), self.model.classes[max(kinds, key=lambda i: row[i])]) for row in probs]


def _held_out(texts, vectors, labels, train_rows, test_rows) -> np.ndarray:
    """P(harm) of the test rows from a model fitted on the train rows."""
    bank, known = vectors[train_rows], labels[train_rows]
    model = fit([texts[i] for i in train_rows], inputs(bank, bank, known, itself=True), known, C,
                word_weight=WORD_WEIGHT, compact=True)
    probs = model.probabilities([texts[i] for i in test_rows], inputs(vectors[test_rows], bank, known))
    return 1.0 - probs[:, model.classes.index(SAFE)]


def train(exemplars: list[Exemplar], vectors: np.ndarray, max_false_alarms: float = MAX_FALSE_ALARMS,
          folds: int = 5, seed: int = 7) -> GuardModel:
    """Fit on the whole bank; the threshold lets through at most ``max_false_alarms`` of the safe sentences
    of held-out folds. The folds and the final model are fitted side by side, one process per core (each fit
    is compact, on one thread: 33-41 s -> 26 s on 2 cores)."""
    from joblib import Parallel, delayed
    from joblib.externals.loky import get_reusable_executor
    from sklearn.model_selection import StratifiedKFold

    texts = [e.text for e in exemplars]
    labels = np.array([e.label for e in exemplars])
    harmful = labels != SAFE
    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(vectors, labels))
    work = [delayed(_held_out)(texts, vectors, labels, train_rows, test_rows) for train_rows, test_rows in splits]
    work.append(delayed(fit)(texts, inputs(vectors, vectors, labels, itself=True), labels, C,
                             word_weight=WORD_WEIGHT, compact=True))
    done = Parallel(n_jobs=min(len(work), os.cpu_count() or 1))(work)
    get_reusable_executor().shutdown(wait=True)  # the workers' memory goes back now
    scores = np.zeros(len(texts))
    for (_, test_rows), held_out in zip(splits, done[:folds]):
        scores[test_rows] = held_out
    safe_scores = np.sort(scores[~harmful])[::-1]
    allowed = int(np.floor(max_false_alarms * len(safe_scores)))
    threshold = float(np.nextafter(safe_scores[min(allowed, len(safe_scores) - 1)], 2.0))
    flagged = scores >= threshold
    report = {"exemplars": len(exemplars), "harmful": int(harmful.sum()), "folds": folds,
              "recall": round(float(flagged[harmful].mean()), 3),
              "false_alarms": round(float(flagged[~harmful].mean()), 3), "threshold": round(threshold, 4),
              "recall_by_kind": {k: round(float(flagged[labels == k].mean()), 3) for k in KINDS if (labels == k).any()}}
    return GuardModel(done[folds], threshold, report, vectors, labels)


def bank_key(exemplars: list[Exemplar], embedder_slug: str) -> str:
    digest = hashlib.sha256(f"{MODEL_VERSION}|{C}|{WORD_WEIGHT}|{MAX_FALSE_ALARMS}|{NEIGHBOURS}|{NEIGHBOUR_WEIGHT}|"
                            f"{embedder_slug}".encode())
    for e in exemplars:
        digest.update(f"{e.label}\t{e.text}\n".encode())
    return digest.hexdigest()[:16]


def trained_model(embed: Embed, embedder_slug: str, cache_dir: Path | None,
                  exemplars: list[Exemplar] | None = None) -> GuardModel:
    """The model for this bank and embedder: from ``cache_dir`` or trained now (and cached there)."""
    exemplars = load_exemplars() if exemplars is None else exemplars
    labels = np.array([e.label for e in exemplars])
    path = cache_dir / f"guard-{bank_key(exemplars, embedder_slug)}.npz" if cache_dir else None
    bank_path = path.with_name(path.stem + "-bank.npy") if path else None
    if path is not None and path.exists():
        try:
            model, extra = LinearTextModel.load(path)
            bank = np.load(bank_path, allow_pickle=False)
            if bank.shape[0] != len(exemplars):
                raise ValueError(f"{bank_path.name}: {bank.shape[0]} vetores para {len(exemplars)} exemplos")
            return GuardModel(model, float(extra["threshold"]), extra["report"], bank, labels)
        except (OSError, ValueError, KeyError) as error:
            log.warning("modelo da guarda em cache ilegível (%s): treinando de novo", error)
    embed = remembered(embed, embedder_slug, cache_dir)  # an edited bank embeds only its new lines
    vectors = np.asarray(embed([embedding_text(e.text) for e in exemplars]), dtype=np.float32)
    model = train(exemplars, vectors)
    log.info("guarda semântica das respostas treinada: %s", model.report)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = bank_path.with_name(f"{bank_path.stem}.{os.getpid()}.tmp.npy")  # whole or absent, for replicas too
        np.save(tmp, model.bank)
        tmp.replace(bank_path)  # before the model: a model file found means its bank is there
        model.model.save(path, threshold=model.threshold, report=model.report)
    return model


class SentenceJudge:
    """Reads an answer's sentences by meaning; verdicts are kept by sentence (drafts repeat the same ones)."""

    def __init__(self, model: GuardModel, embed: Embed):
        self.model, self.embed = model, embed
        self._seen: OrderedDict[str, str | None] = OrderedDict()
        self._lock = Lock()

    def __call__(self, sentences: Sequence[str]) -> list[str | None]:
        """The harmful kind of each sentence, or None."""
        with self._lock:
            verdicts = {s: self._seen[s] for s in dict.fromkeys(sentences) if s in self._seen}
        new = [s for s in dict.fromkeys(sentences) if s not in verdicts]
        if new:
            vectors = np.asarray(self.embed([embedding_text(s) for s in new]), dtype=np.float32)
            for sentence, (score, kind) in zip(new, self.model.judge(new, vectors)):
                verdicts[sentence] = kind if score >= self.model.threshold else None
            with self._lock:
                self._seen.update((s, verdicts[s]) for s in new)
                while len(self._seen) > CACHE_SIZE:
                    self._seen.popitem(last=False)
        return [verdicts[s] for s in sentences]


def sentence_judge(embedder, cache_dir: Path | None) -> SentenceJudge:
    """The judge over the bot's embedder, its model from the cache in ``cache_dir`` or trained on first use."""
    model = trained_model(embedder.embed, embedder.identity.slug, cache_dir)
    return SentenceJudge(model, embedder.embed)
