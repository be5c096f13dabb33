"""What a question asks for: its plain words, the scope it names and the concepts it touches."""

from __future__ import annotations

import re
from dataclasses import dataclass

from retrieval.chat import normalize_chat
from retrieval.scope import Scope, detect_scope
from retrieval.thesaurus import Concept, Equivalences, Thesaurus


@dataclass(frozen=True)
class QueryPlan:
    original: str
    text: str  # chat shorthand expanded
    search_text: str  # without the words that named the scope
    scope: Scope | None
    concepts: tuple[Concept, ...]
    alternatives: tuple[tuple[str, ...], ...] = ()  # each question word, then other translations' words
    quoted: bool = False  # the question is wrapped in quotation marks


    @property
    def expansion(self) -> str:
        """Biblical vocabulary of the concepts touched, for the lexical channel."""
        return " ".join(dict.fromkeys(word for c in self.concepts for word in c.vocabulary))

    @property
    def topics(self) -> list[str]:
        return list(dict.fromkeys(topic for c in self.concepts for topic in c.topics))


_EQUIVALENCES = Equivalences()
_QUOTED = re.compile(r"""^\s*["'“”‘’«].{8,}["'“”‘’»]\s*[?.!]?\s*$""", re.S)


def plan_query(query: str, thesaurus: Thesaurus, scope: Scope | None = None) -> QueryPlan:
    """Normalise chat language, then find the scope (unless given) and the pastoral concepts."""
    text = normalize_chat(query)
    detected, remainder = detect_scope(text)
    if scope is None:
        scope = detected
    search_text = remainder if detected is not None and remainder.strip() else text
    return QueryPlan(query, text, search_text, scope, tuple(thesaurus.match(text)),
                     tuple(_EQUIVALENCES.alternatives(search_text)), bool(_QUOTED.match(query)))
