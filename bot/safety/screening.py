"""Crisis screening in layers: precise patterns first, then the message's meaning against the exemplar bank."""

from __future__ import annotations

import time
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from bot.safety.classifier import Embed, RiskModel, by_help, embedding_text, help_of
from bot.safety.lexicon import LEVELS, Lexicon
from corpus.text import fold
from retrieval.understand.chat import normalize_chat

IMMINENT = "imminent"
DANGER = "danger"
CONCERN = "concern"
# a pattern is overruled when the meaning scores below this share of the threshold ("quero morrer kkkk")
VETO_SHARE = 0.75
# a second kind whose help is named too, when the meaning gives it at least this share of the likeliest kind's
# probability ("o namorado da minha mãe me bate": a partner's violence or a child's abuse, 190/180 and Disque
# 100); chosen on crisis-dev and holdouts 5-13 (docs/evaluation.md): one crisis reply in ten names two kinds
ALSO_SHARE = 0.4
# below the threshold but this near it, the meaning of a crisis is watched for: the ordinary answer ends with a
# short word that the bot is there and the services that fit ("já escolhi a música do meu velório"); chosen
# on crisis-dev and holdouts 5-22 (docs/evaluation.md): 5 of their 6 missed risks, 1 look-alike in 10
WATCH_SHARE = 0.6


@dataclass(frozen=True)
class Screening:
    level: str | None  # IMMINENT, DANGER, CONCERN or None
    medical: bool  # asks for medication or diagnosis advice
    signal: str = ""  # the words that matched (the precise layer), or "" when the meaning decided
    kind: str | None = None  # "suicide-indirect", "domestic-violence"... (patterns.toml kinds)
    score: float | None = None  # P(risk) of the semantic layer, when it ran
    layer: str = ""  # "lexical" or "semantic": which layer decided
    seconds: float = 0.0
    also: str | None = None  # a second kind the meaning finds nearly as likely: its help is named too
    watch: str | None = None  # no crisis, but the meaning of this kind is near one: its service is named gently

    @property
    def crisis(self) -> bool:
        return self.level is not None

    def as_dict(self) -> dict:
        return {"level": self.level, "kind": self.kind, "also": self.also, "layer": self.layer, "signal": self.signal,
                "score": None if self.score is None else round(self.score, 3), "medical": self.medical,
                "watch": self.watch}


class Screener:
    """Reads a message for crisis: the lexicon's kinds, else the semantic model over its embedding."""

    def __init__(self, lexicon: Lexicon | None = None, model: RiskModel | None = None, embed: Embed | None = None):
        self.lexicon = lexicon or Lexicon.default()
        self.model, self.embed = model, embed

    @property
    def semantic(self) -> bool:
        return self.model is not None and self.embed is not None

    def screen(self, text: str) -> Screening:
        started = time.perf_counter()
        folded = fold(normalize_chat(text))
        medical = bool(self.lexicon.medical.search(folded))
        found = self.lexicon.match(folded)
        score, kind, vector = None, None, None
        if self.semantic:
            vector = np.asarray(self.embed([embedding_text(text)]), dtype=np.float32)[0]
            score, kind = self.model.risk(text, vector)
        screening = self._decide(found, medical, score, kind)
        if screening.crisis and vector is not None:
            screening = replace(screening, also=self._also(text, vector, screening.kind))
        elif score is not None and score >= self.model.threshold * WATCH_SHARE and \
                self.lexicon.level_of(kind) != CONCERN:
            screening = replace(screening, watch=kind)
        return replace(screening, seconds=time.perf_counter() - started)

    def _decide(self, found, medical: bool, score: float | None, kind: str | None) -> Screening:
        if found is not None:
            rule, words, firm = found
            if score is not None and not firm and rule.kind in self.model.classes and \
                    score < self.model.threshold * VETO_SHARE:
                # the words of a crisis in a message whose meaning is far from one: a joke, a doctrinal question
                return Screening(None, medical, words, None, score, "vetoed")
            if score is not None and score >= self.model.threshold and kind != rule.kind and not firm and \
                    (rule.by_others or rule.level == CONCERN or not self.lexicon.by_others(kind)):
                # both layers see a crisis: the meaning of the whole message tells better who is hurt ("ele me
                # bate, eu tenho 12 anos" is a child), the more serious level of the two stands; what the person
                # says they will do to themselves ("tenho 15 anos e vou me enforcar") stays that. Words of a
                # concern (addiction, panic) name a subject, not who is hurt: a danger the meaning reads wins
                level = min(rule.level, self.lexicon.level_of(kind) or DANGER, key=LEVELS.index)
                return Screening(level, medical, words, kind, score, "lexical")
            return Screening(rule.level, medical, words, rule.kind, score, "lexical")
        if score is None or score < self.model.threshold:
            return Screening(None, medical, score=score)
        return Screening(self.lexicon.level_of(kind) or DANGER, medical, "", kind, score, "semantic")

    def _also(self, text: str, vector: np.ndarray, chosen: str | None) -> str | None:
        """The likeliest kind of another help, when the meaning hesitates between it and the likeliest
        (ALSO_SHARE); kinds that share one help are weighed together."""
        helps = by_help((k, p) for k, p in self.model.kinds_of(text, vector) if self.lexicon.level_of(k) != CONCERN)
        other = next(((k, p) for k, p in helps if help_of(k) != help_of(chosen or "")), None)
        return other[0] if other is not None and other[1] >= ALSO_SHARE * helps[0][1] else None


def semantic_screener(retriever, cache_dir: Path | None) -> Screener:
    """Both layers over the retriever's embedder (the message's vector is the one retrieval uses, cached);
    the model is trained from the bank on first use and kept in ``cache_dir``. Fails loudly, never degrades."""
    from bot.safety.classifier import load_exemplars, quotation_exemplars, small_talk_exemplars, trained_model

    bank = load_exemplars() + quotation_exemplars(retriever.bible, retriever.topics) + small_talk_exemplars()
    model = trained_model(retriever.embedder.embed, retriever.embedder.identity.slug, cache_dir, bank)
    return Screener(model=model, embed=lambda texts: np.stack([retriever.embed_query(t) for t in texts]))


_LEXICAL = Screener()


def screen(text: str) -> Screening:
    """The precise layer alone (chat spelling and accents handled): what needs no embedder."""
    return _LEXICAL.screen(text)
