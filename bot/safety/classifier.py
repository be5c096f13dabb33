"""The semantic layer of crisis screening: a logistic regression over message embeddings, trained on the
exemplar bank, its threshold calibrated on held-out folds of the bank; and a second one, over the bank's risk
exemplars and the kind bank, that tells which kind of crisis it is (who is hurt, by whom: the help differs)."""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from retrieval.index.text_vectors import remembered
from retrieval.understand.intent import embedding_text, quoted_windows
from retrieval.understand.textmodel import LinearTextModel, fit, read_bank

log = logging.getLogger("pastor.safety")

SAFE = "safe"
SUICIDE_SIGNALS = ("suicide-direct", "suicide-passive", "suicide-indirect")  # three kinds, one help
MODEL_VERSION = 5  # part of the cache key: bump when training or features change
MAX_FALSE_ALARMS = 0.07  # share of the bank's look-alikes (held-out folds) allowed over the threshold
# the safe kinds that look like a crisis (the kinds of the shared crisis set's look-alikes): the threshold is
# calibrated on them, not on greetings and quotations that any threshold lets pass
LOOK_ALIKES = ("hyperbole", "idiom", "theology", "fiction/news", "third-person-past", "medical-nonurgent",
               "ordinary-sadness")
EXEMPLARS_FILE = Path(__file__).resolve().parent.parent / "data" / "crisis" / "exemplars.jsonl"
# risk messages that teach the kind only (a teenager's own plan vs a teenager beaten at home): they never move
# the line between risk and safe, so adding some cannot change what is recognised as a crisis
KINDS_FILE = EXEMPLARS_FILE.with_name("kinds.jsonl")
SMALL_TALK_FILE = EXEMPLARS_FILE.with_name("small_talk.jsonl")  # the screening's own: the intent bank may change

Embed = Callable[[Sequence[str]], np.ndarray]


@dataclass(frozen=True)
class Exemplar:
    text: str
    label: str  # "risk" or "safe"
    kind: str


def load_exemplars(path: Path = EXEMPLARS_FILE) -> list[Exemplar]:
    """The bank; a malformed line is an error naming the file and the line."""
    return read_bank(path, lambda row: Exemplar(str(row["text"]), str(row["label"]), str(row["kind"])),
                     lambda e: e.label in ("risk", "safe") and bool(e.text.strip()),
                     "label deve ser 'risk' ou 'safe', com texto")


def load_kind_exemplars(path: Path = KINDS_FILE) -> list[Exemplar]:
    """The kind bank: risk exemplars only."""
    return read_bank(path, lambda row: Exemplar(str(row["text"]), str(row["label"]), str(row["kind"])),
                     lambda e: e.label == "risk" and bool(e.kind) and bool(e.text.strip()),
                     "label deve ser 'risk', com kind e texto")


def target(exemplar: Exemplar) -> str:
    return exemplar.kind if exemplar.label == "risk" else SAFE


C = 16.0  # inverse regularisation, chosen by cross-validation on the bank (docs/evaluation.md: "Triagem de crise")


@dataclass(frozen=True)
class RiskModel:
    """A multinomial logistic regression over n-grams and the embedding; classes: risk kinds and "safe"."""

    classes: tuple[str, ...]
    coef: np.ndarray  # (classes, N_FEATURES + dims)
    intercept: np.ndarray  # (classes,)
    idf: np.ndarray  # (N_FEATURES,)
    threshold: float  # P(risk) = 1 - P(safe) at or above this is a crisis
    report: dict  # cross-validated recall and false alarms on the bank, for /status and docs/evaluation.md
    kinds: LinearTextModel | None = None  # which kind, among risk messages; None: the likeliest non-safe class

    @functools.cached_property
    def _linear(self) -> LinearTextModel:
        return LinearTextModel(self.classes, self.coef, self.intercept, self.idf)  # one: it keeps its blocks

    def probabilities(self, texts: Sequence[str], vectors: np.ndarray) -> np.ndarray:
        return self._linear.probabilities(texts, vectors)

    def risk(self, text: str, vector: np.ndarray) -> tuple[float, str]:
        """P(risk) of one message (its whole text: scoring sentences apart measured worse) and its likeliest
        kind of risk."""
        probs = self.probabilities([text], vector.reshape(1, -1))[0]
        safe = self.classes.index(SAFE)
        if self.kinds is not None:
            return float(1.0 - probs[safe]), self.kinds_of(text, vector)[0][0]
        kind = max((i for i in range(len(self.classes)) if i != safe), key=lambda i: probs[i])
        return float(1.0 - probs[safe]), self.classes[kind]

    def kinds_of(self, text: str, vector: np.ndarray) -> list[tuple[str, float]]:
        """The kinds of risk with their probabilities among kinds of risk, likeliest help first: the three kinds
        of suicide risk share one help, so they are weighed against the other kinds together."""
        if self.kinds is not None:
            classes, probs = self.kinds.classes, self.kinds.probabilities([text], vector.reshape(1, -1))[0]
        else:
            all_probs = self.probabilities([text], vector.reshape(1, -1))[0]
            kept = [i for i, c in enumerate(self.classes) if c != SAFE]
            classes = tuple(self.classes[i] for i in kept)
            probs = all_probs[kept] / max(float(all_probs[kept].sum()), 1e-12)
        ranked = [(c, float(p)) for c, p in zip(classes, probs)]
        share = {help_of(kind): p for kind, p in by_help(ranked)}
        return sorted(ranked, key=lambda pair: (-share[help_of(pair[0])], -pair[1]))

    def save(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp.npz")
        kinds = {} if self.kinds is None else {
            "kind_classes": np.array(self.kinds.classes), "kind_coef": self.kinds.coef,
            "kind_intercept": self.kinds.intercept, "kind_idf": self.kinds.idf}
        np.savez(tmp, classes=np.array(self.classes), coef=self.coef, intercept=self.intercept, idf=self.idf,
                 threshold=np.array(self.threshold), report=np.array(json.dumps(self.report)), **kinds)
        tmp.replace(path)

    @classmethod
    def load(cls, path: Path) -> RiskModel:
        with np.load(path, allow_pickle=False) as data:
            kinds = LinearTextModel(tuple(str(c) for c in data["kind_classes"]), data["kind_coef"],
                                    data["kind_intercept"], data["kind_idf"]) if "kind_classes" in data.files else None
            return cls(tuple(str(c) for c in data["classes"]), data["coef"], data["intercept"], data["idf"],
                       float(data["threshold"]), json.loads(str(data["report"])), kinds)


def help_of(kind: str) -> str:
    """Kinds that share one help share this name."""
    return "suicide" if kind in SUICIDE_SIGNALS else kind


def by_help(ranked: Iterable[tuple[str, float]]) -> list[tuple[str, float]]:
    """Each help's likeliest kind with the probability of all the kinds it serves, likeliest help first."""
    shares: dict[str, list] = {}
    for kind, p in sorted(ranked, key=lambda pair: -pair[1]):
        shares.setdefault(help_of(kind), [kind, 0.0])[1] += p
    return sorted(((kind, p) for kind, p in shares.values()), key=lambda pair: -pair[1])


def _held_out(texts: list[str], vectors, labels, train_rows, test_rows) -> np.ndarray:
    """P(risk) of the test rows from a model fitted on the train rows."""
    model = fit([texts[i] for i in train_rows], vectors[train_rows], labels[train_rows], c=C, compact=True)
    probs = model.probabilities([texts[i] for i in test_rows], vectors[test_rows])
    return 1.0 - probs[:, model.classes.index(SAFE)]


def train_kinds(exemplars: list[Exemplar], vectors: np.ndarray) -> LinearTextModel:
    """Which kind of crisis, fitted on risk exemplars alone."""
    return fit([e.text for e in exemplars], vectors, [e.kind for e in exemplars], c=C, compact=True)


def train(exemplars: list[Exemplar], vectors: np.ndarray, max_false_alarms: float = MAX_FALSE_ALARMS,
          folds: int = 5, seed: int = 7, kind_exemplars: Sequence[Exemplar] = (),
          kind_vectors: np.ndarray | None = None) -> RiskModel:
    """Fit on the whole bank; the threshold comes from out-of-fold P(risk) of the safe exemplars. With
    ``kind_exemplars`` (and their vectors), the kind is told by a model of the bank's risk rows and those."""
    from sklearn.model_selection import StratifiedKFold

    labels = np.array([target(e) for e in exemplars])
    risky = np.array([e.label == "risk" for e in exemplars])
    alike = np.array([e.label == "safe" and e.kind in LOOK_ALIKES for e in exemplars])
    alike = alike if alike.any() else ~risky
    texts = [e.text for e in exemplars]
    from joblib import Parallel, delayed

    splits = list(StratifiedKFold(folds, shuffle=True, random_state=seed).split(vectors, labels))
    rows = np.flatnonzero(risky)
    work = [delayed(_held_out)(texts, vectors, labels, train_rows, test_rows) for train_rows, test_rows in splits]
    work.append(delayed(fit)(texts, vectors, labels, c=C, compact=True))  # the final model beside the folds
    if kind_exemplars:
        work.append(delayed(train_kinds)([exemplars[i] for i in rows] + list(kind_exemplars),
                                         np.vstack([vectors[rows], kind_vectors])))
    done = Parallel(n_jobs=min(len(work), os.cpu_count() or 1))(work)  # one process per core: ~2x on 2 cores
    from joblib.externals.loky import get_reusable_executor

    get_reusable_executor().shutdown(wait=True)  # the workers' memory goes back now, not after their idle timeout
    out_of_fold = np.zeros(len(exemplars))
    for (_, test_rows), scores in zip(splits, done[:folds]):
        out_of_fold[test_rows] = scores
    safe_scores = np.sort(out_of_fold[alike])[::-1]
    allowed = int(np.floor(max_false_alarms * len(safe_scores)))  # safe exemplars that may score above
    threshold = float(np.nextafter(safe_scores[min(allowed, len(safe_scores) - 1)], 2.0))
    flagged = out_of_fold >= threshold
    report = {"exemplars": len(exemplars), "risk": int(risky.sum()), "folds": folds,
              "recall": round(float(flagged[risky].mean()), 3),
              "false_alarms": round(float(flagged[alike].mean()), 3),
              "false_alarms_all_safe": round(float(flagged[~risky].mean()), 3), "threshold": round(threshold, 4)}
    final = done[folds]
    kinds = done[folds + 1] if kind_exemplars else None
    if kind_exemplars:
        report["kind_exemplars"] = len(kind_exemplars)
    return RiskModel(final.classes, final.coef, final.intercept, final.idf, threshold, report, kinds)


def bank_key(exemplars: Sequence[Exemplar], embedder_slug: str) -> str:
    digest = hashlib.sha256(f"{MODEL_VERSION}|{MAX_FALSE_ALARMS}|{embedder_slug}".encode())  # a new cap retrains
    for e in exemplars:
        digest.update(f"{e.label}\t{e.kind}\t{e.text}\n".encode())
    return digest.hexdigest()[:16]


def trained_model(embed: Embed, embedder_slug: str, cache_dir: Path | None,
                  exemplars: list[Exemplar] | None = None, kind_exemplars: list[Exemplar] | None = None) -> RiskModel:
    """The model for this bank (and kind bank, default kinds.jsonl) and embedder: from the cache in
    ``cache_dir`` or trained now (and cached)."""
    exemplars = load_exemplars() if exemplars is None else exemplars
    kind_exemplars = load_kind_exemplars() if kind_exemplars is None else kind_exemplars
    key = bank_key([*exemplars, *(Exemplar(e.text, "kind-" + e.label, e.kind) for e in kind_exemplars)],
                   embedder_slug)
    path = cache_dir / f"risk-{key}.npz" if cache_dir else None
    if path is not None and path.exists():
        try:
            return RiskModel.load(path)
        except (OSError, ValueError, KeyError) as error:
            log.warning("modelo de triagem em cache ilegível (%s): treinando de novo", error)
    embed = remembered(embed, embedder_slug, cache_dir)  # an edited bank embeds only its new lines
    vectors = np.asarray(embed([embedding_text(e.text) for e in [*exemplars, *kind_exemplars]]), dtype=np.float32)
    model = train(exemplars, vectors[:len(exemplars)], kind_exemplars=kind_exemplars,
                  kind_vectors=vectors[len(exemplars):])
    log.info("triagem semântica treinada: %s", model.report)
    if path is not None:
        model.save(path)
    return model


def small_talk_exemplars(path: Path = SMALL_TALK_FILE) -> list[Exemplar]:
    """Greetings, thanks and goodbyes are no farewell: safe exemplars of the screening's own (a copy of the intent
    bank's small talk once, kept apart so that teaching the intent model never moves the crisis triage)."""
    return [e for e in load_exemplars(path) if e.label == "safe"]


def quotation_exemplars(bible, topics, count: int = 300) -> list[Exemplar]:
    """Scripture quoted from memory is not a crisis: windows of the most-voted verses, typed loosely in
    everyday frames, made at run time from the corpus (no verse text is kept in the bank's file)."""
    return [Exemplar(window, "safe", "scripture-quote") for window in quoted_windows(bible, topics, count)]
