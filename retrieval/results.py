"""Typed search results."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum

import numpy as np

from corpus.verse import Verse
from retrieval.evidence import EvidenceSignals
from retrieval.understand.scope import Scope


class Status(StrEnum):
    """Every outcome a search or a reply can have; one set shared by retrieval and the bot."""

    OK = "ok"  # a search found evidence
    REFERENCE = "reference"
    REFERENCE_MISSING = "reference_missing"
    NO_EVIDENCE = "no_evidence"
    ANSWERED = "answered"  # a reply grounded in the verses found
    CRISIS = "crisis"
    REJECTED = "rejected"  # empty or over-long input
    LLM_ERROR = "llm_error"


OK, REFERENCE, NO_EVIDENCE = Status.OK, Status.REFERENCE, Status.NO_EVIDENCE
REFERENCE_MISSING = Status.REFERENCE_MISSING


@dataclass(frozen=True)
class Hit:
    """One retrieved verse."""

    id: str  # "JHN.3.16"
    reference: str  # "João 3:16"
    text: str
    score: float  # fused score (1.0 for verses named by an explicit reference)
    ranks: dict[str, int] = field(default_factory=dict)  # per channel, from 1
    verse: Verse | None = None
    similarity: float | None = None  # dense cosine similarity, when the dense channel saw it
    merged: tuple[Verse, ...] = ()  # adjacent verses that also matched, folded into this hit
    context: tuple[Verse, ...] = ()  # neighbours shown for context, not sources of their own
    why: dict = field(default_factory=dict)  # why it ranked here: the need that brought it, or the guard

    @property
    def ids(self) -> list[str]:
        """This hit's verse and the adjacent matches merged into it."""
        return [self.id, *(v.id for v in self.merged)]

    def as_dict(self) -> dict:
        out = {"id": self.id, "reference": self.reference, "text": self.text, "score": round(self.score, 6),
               "merged": [v.id for v in self.merged], "context": [v.id for v in self.context]}
        if self.ranks or self.why:
            out["why"] = {"ranks": dict(self.ranks), **self.why}
        return out


@dataclass(frozen=True)
class SearchResult:
    query: str
    status: str
    hits: list[Hit]
    scope: Scope | None = None
    missing: list[str] = field(default_factory=list)  # references that do not exist ("MAT.29.3")
    signals: EvidenceSignals | None = None  # why the evidence floor decided as it did
    mode: str = ""  # "cuidado" (a life told: ordered for the person, guarded), "ensino" (asks for the teaching) or ""
    situations: list[dict] = field(default_factory=list)  # recognised life situations, closest first
    demoted: list[Hit] = field(default_factory=list)  # kept from the top by the harm guard, never offered
    total: int = 0  # verses the references name, before any cap (a reference result)
    intent: dict | None = None  # what the message asks for, as the intent classifier read it (understand/intent.py)
    named: str = ""  # the named passage or person that answered it ("Parábola do filho pródigo", "David")
    # people the name said may mean, the one answered first: [{"id": "james_717", "description": "Tiago, …"}]
    homonyms: list[dict] = field(default_factory=list)

    def ranked_ids(self) -> list[str]:
        """Verse ids in rank order, merged neighbours right after their hit."""
        return [i for hit in self.hits for i in hit.ids]

    def as_dict(self) -> dict:
        out = {"q": self.query, "status": self.status,
               "scope": self.scope.as_dict() if self.scope else None,
               "hits": [h.as_dict() for h in self.hits]}
        if self.mode:
            out["mode"] = self.mode
        if self.situations:
            out["situations"] = self.situations
        if self.demoted:
            out["demoted"] = [h.as_dict() for h in self.demoted]
        if self.total > len(self.hits):
            out["total"] = self.total
        if self.intent is not None:
            out["intent"] = self.intent
        if self.named:
            out["named"] = self.named
        if self.homonyms:
            out["homonyms"] = self.homonyms
        return out


@dataclass
class Fusion:
    """The fused candidates of one message and what was read on the way (the ranker's and the guard's input)."""

    fused: list[tuple[int, float]]  # (verse position, fused score), best first
    ranks: dict[str, dict[int, int]]  # channel -> position -> rank from 1
    similarity: dict[int, float]  # dense cosine of the candidates the dense channel saw
    need: object | None  # NeedRanking (retrieval/understand/pastoral.py)
    recognised: list
    situations: list[dict]
    signals: EvidenceSignals
    vector: np.ndarray
    teaching: bool
    quote: bool
    care: bool = False  # a life told: the learned ranker may order it
    intent: object | None = None  # Intent (retrieval/understand/intent.py)
    turned_away: bool = False
    lexical_scores: np.ndarray | None = None  # every verse's BM25 score for the question's own words
    told: int | None = None  # the named passage (StoryMeanings row) a story retold asks for: its verses lead
    remembered: tuple[int, ...] = ()  # the verse a message says from memory (its sayings): first, whatever orders
