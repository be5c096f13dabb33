"""Questions about the Bible's content: a passage by its name, a person, a conversation's small talk."""

from __future__ import annotations

import re
from dataclasses import dataclass

from corpus.references import verses_of
from retrieval.intent import KNOWLEDGE, QUOTATION, SITUATION, SMALLTALK, TEACHING, Intent
from retrieval.passages import NamedPassages, words_of
from retrieval.people import PeopleIndex
from retrieval.results import OK, REFERENCE, SearchResult

MAX_PASSAGE_VERSES = 200
SMALLTALK_CONFIDENCE = 0.5
SMALLTALK_MAX_WORDS = 12  # small talk is short; a longer message tells something
SHORT = 6  # a name alone ("bodas de caná") is asked for, whatever the classifier read
# asks who someone was ("quem foi Davi", "me fala de Abraão", "a história de Rute"), not about what they did
_ABOUT_SOMEONE = re.compile(r"\bquem (?:foi|era|e|eh|sao|foram)\b|\b(?:fala|fale|conta|conte|explica|explique)\b"
                            r"(?: \w+){0,3} (?:de|do|da|sobre)\b|\b(?:historia|vida|biografia) d[aeo]\b")


@dataclass
class Knowledge:
    """What answers a message before the hybrid search: small talk, a named passage, a person."""

    passages: NamedPassages | None = None
    people: PeopleIndex | None = None

    def answer(self, retriever, plan, intent: Intent | None, k: int) -> SearchResult | None:
        words = words_of(plan.text).split()
        understood = intent.as_dict() if intent else None
        if intent is not None and intent.name == SMALLTALK and intent.confidence >= SMALLTALK_CONFIDENCE and plan.scope is None \
                and len(words) <= SMALLTALK_MAX_WORDS:
            return SearchResult(plan.original, OK, [], plan.scope, mode="conversa", intent=understood)
        situation = intent is not None and intent.name == SITUATION and len(words) > SHORT
        quoting = intent is not None and intent.name == QUOTATION  # a verse of a passage, not the passage
        named = self.passages.find(plan.text) if self.passages is not None and not (situation or quoting) else None
        if named is not None:
            positions = [retriever.bible.position(*v.key) for v in verses_of(named.reference, retriever.bible)]
            hits = [retriever._hit(p, 1.0, {"passagem": i + 1}) for i, p in enumerate(positions[:MAX_PASSAGE_VERSES])]
            return SearchResult(plan.original, REFERENCE, hits, plan.scope, mode="passagem", total=len(positions),
                                intent=understood, named=named.name)
        asks_about = intent is not None and intent.name in (KNOWLEDGE, TEACHING)
        if self.people is not None and asks_about and plan.scope is None and (
                len(words) <= 3 or _ABOUT_SOMEONE.search(" ".join(words))):
            person = self.people.find(words)
            if person is not None:
                votes = retriever.topics.best_known if retriever.topics is not None else None
                chosen = self.people.key_passages(person, votes)
                fused = [(p, 1.0 / (i + 1)) for i, p in enumerate(chosen)]
                ranks = {"pessoa": {p: i + 1 for i, p in enumerate(chosen)}}
                hits, _ = retriever._select(fused, ranks, {}, k)
                return SearchResult(plan.original, OK, hits, plan.scope, mode="pessoa", intent=understood,
                                    named=person.display)
        return None
