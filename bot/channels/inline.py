"""Telegram inline mode: ``@bot João 3:16`` in any chat offers the exact verses; free text, the best three."""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass

from bot.channels.formatting import TELEGRAM_LIMIT, utf16_len
from bot.devotional.verses import passage_label
from corpus.verse import Verse
from retrieval.results import Status
from retrieval.retriever import Retriever

log = logging.getLogger("pastor.telegram")

MIN_QUERY = 3  # characters before a search is worth it
FREE_TEXT_RESULTS = 3


@dataclass(frozen=True)
class InlineVerse:
    """One result to offer: what the list shows, and the message sent when it is chosen."""

    id: str  # the first verse id (a result id, at most 64 bytes)
    title: str
    description: str
    message: str


class InlineVerses:
    """Passages for an inline query, without an LLM: the reference's own verses or the search's best."""

    def __init__(self, retriever: Retriever, translation: str):
        self.retriever, self.translation = retriever, translation

    async def find(self, query: str) -> list[InlineVerse]:
        query = query.strip()
        if len(query) < MIN_QUERY:
            return []
        result = await asyncio.to_thread(self.retriever.search, query, FREE_TEXT_RESULTS)
        if result.status == Status.REFERENCE:
            passages = [[h.verse for h in result.hits if h.verse is not None]]
        elif result.status == Status.OK:
            passages = [sorted((h.verse, *h.merged), key=lambda v: v.verse) for h in
                        result.hits[:FREE_TEXT_RESULTS] if h.verse is not None]
        else:
            return []
        return [self._offer(verses) for verses in passages if verses]

    def _offer(self, verses: list[Verse]) -> InlineVerse:
        """The passage as one message within Telegram's limit: whole verses, and where the rest is if cut."""
        numbered = len(verses) > 1
        footer = f"— {self.translation}"
        lines: list[str] = []
        shown = verses
        for count in range(len(verses), 0, -1):
            shown = verses[:count]
            body = " ".join(f"{v.verse} {v.text}" if numbered else v.text for v in shown)
            rest = f"\n(continua em {passage_label(verses[count:])})" if count < len(verses) else ""
            lines = [f"“{body}” ({passage_label(shown)}){rest}", footer]
            if utf16_len("\n".join(lines)) <= TELEGRAM_LIMIT:
                break
        text = " ".join(v.text for v in shown)
        return InlineVerse(verses[0].id, passage_label(verses), text[:120], "\n".join(lines))
