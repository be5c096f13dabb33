"""The conversation around a request: a greeting before it, a verse said before a remark about it, and small talk
that no verse answers (a mixin of the retriever, like its channels and its hit selection)."""

from __future__ import annotations

from dataclasses import replace

from retrieval.results import OK, SearchResult
from retrieval.understand.intent import OFFTOPIC, QUOTATION, SMALLTALK, Intent
from retrieval.understand.message import after_opener, names_scripture_or_prayer, verse_then_remark
from retrieval.understand.query import QueryPlan, plan_query

VERSE_BEFORE_REMARK_MARGIN = 0.2  # dense lead of a verse said before a remark over the next verses
REQUEST_SURE = 0.5  # what follows a greeting is read as the message when its own intent is this likely


def conversation(plan: QueryPlan, intent: Intent | None) -> SearchResult:
    """A reply in words, no verse: a greeting, thanks, "kkk", an opener the search cannot answer."""
    return SearchResult(plan.original, OK, [], plan.scope, mode="conversa",
                        intent=intent.as_dict() if intent is not None else None)


class ConversationReading:
    """Reads the conversation around what is asked; needs ``understand``, ``_hybrid`` and ``thesaurus``."""

    def _verse_before_remark(self, plan: QueryPlan, intent: Intent | None, k: int) -> SearchResult | None:
        """A verse said from memory, then a short word about it ("a resposta branda desvia o furor… preciso
        mandar isso pro meu marido kkk"): the verse, when its sentence alone is surely read as one."""
        said = verse_then_remark(plan.original) if intent is not None and intent.name != QUOTATION else None
        first = self.understand(said) if said else None
        if first is None or first.name != QUOTATION or first.confidence < REQUEST_SURE:
            return None
        found = self._hybrid(plan_query(said, self.thesaurus, plan.scope), k, first)
        sure = found.signals is not None and (found.signals.looks_like_a_quote or
                                              found.signals.dense_margin >= VERSE_BEFORE_REMARK_MARGIN)
        return replace(found, query=plan.original, intent=first.as_dict()) if found.mode == "citacao" and sure \
            else None  # "Deus não dá um fardo maior do que podemos carregar. mas tô no limite": a life told

    def _request_after_small_talk(self, plan: QueryPlan, intent: Intent | None) -> tuple[QueryPlan, Intent | None]:
        """A greeting or thanks before a request ("obg! tem alguma oração pra antes de viajar?"): the request,
        when the message as a whole reads as small talk and what follows its first clause surely does not, or
        asks for a verse or a prayer without surely being small talk itself."""
        if intent is None or intent.name != SMALLTALK or (rest := after_opener(plan.original)) is None:
            return plan, intent
        asked = self.understand(rest)
        if asked is None:
            return plan, intent
        sure = asked.confidence >= REQUEST_SURE
        request = asked.name not in (SMALLTALK, OFFTOPIC) and sure
        if not request and not (names_scripture_or_prayer(rest) and not (asked.name == SMALLTALK and sure)):
            return plan, intent
        return plan_query(rest, self.thesaurus, plan.scope), asked
