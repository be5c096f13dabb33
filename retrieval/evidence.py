"""The evidence floor: does the indexed Bible address this question at all?"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass

from corpus.text import fold

_WORD = re.compile(r"[^\W\d_]+")

# Words that make a question about faith whatever else it asks ("o que a Bíblia diz
# sobre..."): folded, whole words.
FAITH_WORDS = frozenset(
    "deus jesus cristo senhor biblia biblico biblica espirito santo oracao orar ore fe igreja pecado pecados "
    "ceu salvacao evangelho apostolo profeta profetas versiculo versiculos escritura escrituras palavra "
    "pastor cristao crista cristaos alma anjo anjos diabo satanas inferno bencao abencoe amem glorias "
    "louvor adoracao milagre milagres perdao graca aventurado aventurados aventurada aventuradas bendito "
    "benditos bendita benditas vinde eis vos vosso vossa vossos vossas porquanto".split()
)


CALIBRATED_BACKENDS = ("use-m3",)  # embedders the dense thresholds below were measured with


@dataclass(frozen=True)
class EvidenceSignals:
    """Calibrated signals about one question; see bench/calibrate_floor.py."""

    dense_top: float  # best cosine similarity of the dense channel
    dense_margin: float  # best minus the 50th best: how much the top stands out
    lexical_terms: int  # content stems of the question that occur in the Bible
    lexical_best: int  # most question stems found together in one verse
    concepts: int  # pastoral concepts the question touches
    faith_words: int  # faith vocabulary in the question
    scoped: bool = False  # the question names books to look in; every signal is measured inside them
    scope_topics: int = 0  # verses in the scope that people turn to for the concepts the question touches
    theme_words: int = 0  # in a scope: the question's content words, beyond those framing it ("diz", "sobre")
    theme_found: int = 0  # ... and the most of them (or an equivalent of each) one verse of the scope holds

    @property
    def quote_like(self) -> bool:
        """One verse holds at least three and most of the question's words."""
        return self.lexical_best >= 3 and self.lexical_best >= 0.7 * self.lexical_terms

    @property
    def looks_like_a_quote(self) -> bool:
        """Stricter than quote_like: one verse holds four or more of the words, or every one of three."""
        return (self.lexical_best >= 4 and self.quote_like) or \
            (self.lexical_best >= 3 and self.lexical_best == self.lexical_terms)

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class EvidenceFloor:
    """Thresholds chosen on the dev set plus the calibration questions (bench/calibration.jsonl).

    Dense similarities are only comparable within one embedder, so the dense
    thresholds hold for the embedder they were calibrated on; with any other
    embedder the floor says so (``calibrated`` False, shown in /status) and decides
    from the question's words alone.
    """

    calibrated: bool = True
    dense_alone: float = 0.55  # a dense match this strong is evidence by itself
    dense_with_words: float = 0.46  # ... or this strong with two question words in one verse
    dense_pastoral: float = 0.30  # a pastoral concept or faith words need only this much
    dense_quote: float = 0.35  # a verse holding most of the question's words (a quote) needs this

    @classmethod
    def for_embedder(cls, identity: dict) -> EvidenceFloor:
        return cls() if identity.get("backend") in CALIBRATED_BACKENDS else cls(calibrated=False)

    def has_evidence(self, s: EvidenceSignals) -> bool:
        if s.scoped and self.scope_treats_it(s):
            return True
        if not self.calibrated:
            return bool(s.concepts or s.faith_words) or s.lexical_best >= 2
        if s.concepts or s.faith_words:  # a concept's name said alone ("luto"): one word is far from any verse
            alone = bool(s.concepts) and s.lexical_terms == 1
            return s.dense_top >= self.dense_pastoral or s.lexical_best >= 2 or alone
        if s.quote_like:
            return s.dense_top >= self.dense_quote
        if s.dense_top >= self.dense_alone:
            return True
        return s.dense_top >= self.dense_with_words and s.lexical_best >= 2

    @staticmethod
    def scope_treats_it(s: EvidenceSignals) -> bool:
        """Inside a scope: a verse holding every theme word (or an equivalent), or the theme's topical verses.

        A book is small, and a theme of one or two words is far from any verse in dense space,
        so inside a scope the floor asks whether the scope's own verses speak of the theme.
        """
        return (s.theme_words >= 1 and s.theme_found >= s.theme_words) or (s.concepts >= 1 and s.scope_topics >= 2)


def faith_word_count(text: str) -> int:
    return sum(1 for word in _WORD.findall(fold(text)) if word in FAITH_WORDS)
