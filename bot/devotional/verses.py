"""The verse of the day: one well-loved passage per date, the same for everyone, with a short reflection."""

from __future__ import annotations

import asyncio
import logging
import random
import time
import tomllib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from bot.reply import Source
from bot.store.subscriptions import Subscriptions
from corpus.bible import Bible
from corpus.references import Reference, parse_reference, verses_of
from corpus.verse import Verse
from retrieval.retriever import label

log = logging.getLogger("pastor.daily")

DATA = Path(__file__).resolve().parent.parent / "data" / "daily_verses.toml"
MAX_CHARS = 400  # a passage short enough for a notification and a card
MIN_CHARS = 40  # shorter verses are mostly fragments of a sentence
TOPIC_VERSES = 120  # best-voted verses of the loaded topics added to the curated list

RETRY_REFLECTION = 600  # seconds: meanwhile the verse goes alone, without asking the model again

Reflect = Callable[[str, list[Source]], Awaitable[str]]


def sources_of(verses: list[Verse]) -> tuple[Source, ...]:
    return tuple(Source(v.id, label(v), v.text) for v in verses)


def passage_label(verses: list[Verse]) -> str:
    first, last = verses[0], verses[-1]
    if len(verses) == 1:
        return label(first)
    return Reference(first.book, first.chapter, first.verse, last.chapter, last.verse).label()


@dataclass(frozen=True)
class DailyWord:
    day: date
    reference: str
    sources: tuple[Source, ...]
    reflection: str = ""

    @property
    def text(self) -> str:
        return " ".join(s.text for s in self.sources)


class DailyVerses:
    """The pool of passages (tuples of consecutive verses) and the pick for each date."""

    def __init__(self, passages: list[tuple[Verse, ...]]):
        if not passages:
            raise ValueError("nenhum versículo do dia disponível neste texto bíblico")
        self.passages = passages

    @classmethod
    def load(cls, bible: Bible, topics=None, tones=None, path: Path = DATA) -> DailyVerses:
        """The curated list of ``path``, plus the best-voted verses of the loaded topics without a harsh tone."""
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        excluded = {v.id for ref in data.get("excluir", []) for v in _verses(ref, bible)}
        passages: dict[str, tuple[Verse, ...]] = {}
        absent = []
        for ref in data.get("versiculos", []):
            verses = _verses(ref, bible)
            if not verses:
                absent.append(ref)
            elif sum(len(v.text) for v in verses) <= MAX_CHARS:
                passages[verses[0].id] = tuple(verses)
        if absent:
            log.warning("%d versículo(s) do dia não existem neste texto bíblico e ficam de fora (%s…)", len(absent),
                        ", ".join(absent[:3]))
        if topics is not None:
            for position, _share in topics.ranking(list(topics.topics), limit=TOPIC_VERSES * 3):
                verse = bible.verses[position]
                if MIN_CHARS <= len(verse.text) <= MAX_CHARS and not (tones and tones.of(position)):
                    passages.setdefault(verse.id, (verse,))
                if len(passages) >= len(data.get("versiculos", [])) + TOPIC_VERSES:
                    break
        order = {v.id: i for i, v in enumerate(bible.verses)}
        kept = [p for p in passages.values() if not excluded & {v.id for v in p}]
        return cls(sorted(kept, key=lambda p: order[p[0].id]))

    def for_date(self, day: date) -> tuple[Verse, ...]:
        """The same passage for everyone on ``day``; each year goes through the pool in its own order."""
        order = list(range(len(self.passages)))
        random.Random(f"verse-of-the-day-{day.year}").shuffle(order)
        return self.passages[order[(day.timetuple().tm_yday - 1) % len(order)]]


def _verses(reference: str, bible: Bible) -> list[Verse]:
    ref = parse_reference(reference)
    return verses_of(ref, bible) if ref else []


class VerseOfTheDay:
    """Today's word in ``timezone``: the passage, and a reflection written once and kept for the day."""

    def __init__(self, pool: DailyVerses, bible: Bible, store: Subscriptions, reflect: Reflect | None,
                 timezone: ZoneInfo, clock: Callable[[], float] = time.time):
        self.pool, self.bible, self.store, self.reflect = pool, bible, store, reflect
        self.timezone, self.clock = timezone, clock
        self._writing = asyncio.Lock()  # one reflection per day, however many chats ask at once
        self._failed: dict[date, float] = {}  # when writing a day's reflection last failed

    def now(self) -> datetime:
        return datetime.fromtimestamp(self.clock(), self.timezone)

    async def word(self, day: date | None = None) -> DailyWord:
        day = day or self.now().date()
        async with self._writing:
            db = self.store.db  # its calls run in the database's threads, never in the event loop
            kept = await db.call(self._kept, day)
            if kept is not None:
                return kept
            verses = list(self.pool.for_date(day))
            reference, sources = passage_label(verses), sources_of(verses)
            reflection = ""
            if self.reflect is not None and self.clock() - self._failed.get(day, 0.0) > RETRY_REFLECTION:
                reflection = await self.reflect(reference, list(sources))
            if reflection or self.reflect is None:
                await db.call(self.store.keep_word, day, [v.id for v in verses], reflection)
            elif day not in self._failed or self.clock() - self._failed[day] > RETRY_REFLECTION:
                self._failed[day] = self.clock()
                log.warning("reflexão do versículo do dia não gerada: o versículo vai sozinho (nova tentativa em "
                            "%d min)", RETRY_REFLECTION // 60)
            return await db.call(self._kept, day) or DailyWord(day, reference, sources, reflection)

    def _kept(self, day: date) -> DailyWord | None:
        stored = self.store.word(day)
        if stored is None:
            return None
        ids, reflection = stored
        verses = [v for v in (self.bible.get(*_key(i)) for i in ids) if v is not None]
        if len(verses) != len(ids):
            return None  # the corpus changed since: pick again
        return DailyWord(day, passage_label(verses), sources_of(verses), reflection)


def _key(verse_id: str) -> tuple[str, int, int]:
    book, chapter, verse = verse_id.split(".")
    return book, int(chapter), int(verse)
