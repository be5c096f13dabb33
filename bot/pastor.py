"""One answer pipeline for every channel: `Pastor.reply(chat_id, text) -> Reply`."""

from __future__ import annotations

import asyncio
import logging
import re
import time
import unicodedata
from dataclasses import dataclass, replace

from bot import passages, texts
from bot.checks import AnswerRules, check_answer
from bot.followup import is_followup, standalone
from bot.llm.base import CallStats, Completion, LLMError, LLMProvider
from bot.memory import Memory
from bot.metrics import Metrics
from bot.progress import ParagraphProgress, Show
from bot.prompts import answer_messages, reflection_messages
from bot.reply import ANSWERED, CRISIS, LLM_ERROR, NO_EVIDENCE, REFERENCE, REFERENCE_MISSING, REJECTED, Reply, Source
from bot.safety import DANGER, IMMINENT, Screening, screen
from corpus.canon import BY_CODE
from corpus.references import Reference, find_references, verses_of
from retrieval.results import SearchResult, Status
from retrieval.retriever import Retriever, label
from retrieval.scope import detect_scope

log = logging.getLogger("pastor")

MAX_MESSAGE_CHARS = 4000


@dataclass(frozen=True)
class PastorConfig:
    crisis_contacts: str = ""  # the only place phone numbers come from
    max_sources: int = 8  # verses given to the LLM and shown as sources
    max_reference_verses: int = 30
    max_tokens: int = 700
    translation: str = ""
    provider_name: str = "none"


class Pastor:
    """Keeps the promises of DESIGN.md for every message, whatever the channel."""

    def __init__(self, retriever: Retriever, memory: Memory, llm: LLMProvider | None,
                 config: PastorConfig = PastorConfig(), metrics: Metrics | None = None):
        self.retriever = retriever
        self.memory = memory
        self.llm = llm
        self.config = config
        self.metrics = metrics or Metrics()

    async def reply(self, chat_id: str, text: str | None, show: Show | None = None,
                    country: str | None = None) -> Reply:
        """The answer to ``text``; with ``show``, each validated paragraph is shown while the model writes.
        ``country`` (ISO code, when the channel knows it) chooses the public services named in a crisis."""
        reply = await self._reply(chat_id, text, show, country)
        m = self.metrics  # pastor_messages_total is counted by the conversation core, once delivered
        m.verses.inc(len(reply.sources))
        if reply.status == NO_EVIDENCE:
            m.no_evidence.inc()
        if reply.crisis_level:
            m.crisis.labels(reply.crisis_level, reply.crisis_kind or "").inc()
        return reply

    async def _reply(self, chat_id: str, text: str | None, show: Show | None, country: str | None) -> Reply:
        started = time.perf_counter()
        timings: dict[str, float] = {}  # this reply's stages, in seconds; returned with it
        message = (text or "").strip()
        if not any(not unicodedata.category(c).startswith(("C", "Z", "M")) for c in message):
            return Reply(texts.EMPTY, REJECTED)  # nothing, or only invisible characters
        if not any(c.isalnum() for c in message):
            return Reply(texts.NO_WORDS, REJECTED)  # only emoji or punctuation: an invitation to write
        if len(text) > MAX_MESSAGE_CHARS:
            return Reply(texts.TOO_LONG.format(limit=f"{MAX_MESSAGE_CHARS:,}".replace(",", ".")), REJECTED)
        screening = screen(message)
        history = self.memory.window(chat_id)
        if screening.level == IMMINENT:
            reply = await self._imminent(message, screening)
        else:
            reply = await self._answer(chat_id, message, history, screening, timings, show, started)
        if reply.status != LLM_ERROR:
            self.memory.add_exchange(chat_id, message, reply.query or message, reply.text, reply.status)
            if reply.sources:
                self.memory.save_sources(chat_id, reply.query or message, reply.sources)
        timings["total"] = time.perf_counter() - started
        return replace(reply, timings=timings)

    # -- the ordinary path --------------------------------------------------------------
    async def _answer(self, chat_id: str, message: str, history, screening: Screening,
                      timings: dict[str, float], show: Show | None, started: float) -> Reply:
        query, scope, llm_called = message, None, False
        if is_followup(message, history):
            t = time.perf_counter()
            complete = None if self.llm is None else (
                lambda msgs: self._complete(msgs, "rewrite", timings, max_tokens=80, temperature=0.0))
            query, llm_called = await standalone(message, history, complete)
            timings["rewrite"] = time.perf_counter() - t
            scope = detect_scope(message)[0]  # scope words of the follow-up itself reach the filter
        t = time.perf_counter()
        result = await asyncio.to_thread(self.retriever.search, query, 10, scope)
        timings["retrieval"] = time.perf_counter() - t
        self.metrics.retrieval_seconds.observe(timings["retrieval"])
        prefix = self._safety_prefix(screening)
        if result.status == Status.REFERENCE_MISSING:
            body = texts.REFERENCE_MISSING.format(details=self._missing_details(result.missing),
                                                  translation=self.config.translation or self.retriever.bible.name)
            return Reply(self._join(prefix, body), REFERENCE_MISSING, llm_called=llm_called, query=query)
        if result.status == Status.NO_EVIDENCE:
            return Reply(self._join(prefix, texts.NO_EVIDENCE), CRISIS if screening.crisis else NO_EVIDENCE,
                         llm_called=llm_called, crisis_level=screening.level, query=query)
        sources = self._sources(result)
        status = CRISIS if screening.crisis else (REFERENCE if result.status == Status.REFERENCE else ANSWERED)
        before, after = passages.book_facts(self.retriever.bible, result)
        after = after or passages.continuation(result, len(sources), self.config.max_reference_verses)
        if self.llm is None:
            body, kept = self._extractive(result)
            text = self._join(self._join(prefix, before), self._join(body, after))
            return Reply(text, status, sources, kept, [], llm_called, screening.level, query)
        notes = ([texts.MEDICAL] if screening.medical else []) + ([texts.BOOK_NOTE] if before else [])
        messages = answer_messages(message if query == message else f"{message}\n(pergunta completa: {query})",
                                   sources, history, notes)
        if screening.medical and not screening.crisis:
            prefix = texts.MEDICAL
        prefix = self._join(prefix, before)
        rules = AnswerRules(self.retriever.bible, [s.id for s in sources], message, self.config.crisis_contacts,
                            referral="" if texts.MEDICAL in prefix else texts.MEDICAL)
        progress = ParagraphProgress(show, rules, prefix, started) if show is not None else None
        try:
            completion = await self._complete(messages, "answer", timings,
                                              on_text=progress.feed if progress else None)
        except LLMError:
            return Reply(texts.LLM_ERROR.format(provider=self.config.provider_name), LLM_ERROR, sources,
                         llm_called=True, query=query)
        if not completion.text.strip():
            return Reply(texts.LLM_ERROR.format(provider=self.config.provider_name), LLM_ERROR, sources,
                         llm_called=True, query=query)
        if progress is not None and progress.first_shown is not None:
            timings["first_text"] = progress.first_shown
        t = time.perf_counter()
        checked = check_answer(completion.text, rules)
        timings["validation"] = time.perf_counter() - t
        text = self._join(self._join(prefix, checked.text), after)
        return Reply(text, status, self._used_first(sources, checked.kept), checked.kept,
                     checked.removed, True, screening.level, query, corrected_quotes=checked.corrected_quotes,
                     removed_contacts=checked.removed_contacts, replaced_directives=checked.replaced_directives)

    async def _complete(self, messages, purpose: str, timings: dict[str, float], max_tokens: int | None = None,
                        temperature: float = 0.3, on_text=None) -> Completion:
        """One streamed LLM call, timed and counted; ``on_text`` sees the text so far at every line break."""
        provider, m = self.llm.name, self.metrics
        m.llm_calls.labels(provider, purpose).inc()
        stats, pieces = CallStats(), []
        t = time.perf_counter()
        try:
            async for piece in self.llm.stream(messages, max_tokens=max_tokens or self.config.max_tokens,
                                               temperature=temperature, stats=stats):
                pieces.append(piece)
                if on_text is not None and "\n" in piece:
                    await on_text("".join(pieces))
        except LLMError as error:
            m.llm_errors.labels(provider, error.kind).inc()
            log.error("LLM falhou: %s", error)
            raise
        finally:
            elapsed = time.perf_counter() - t
            timings["llm"] = timings.get("llm", 0.0) + elapsed
            m.llm_seconds.labels(provider).observe(elapsed)
        m.llm_tokens.labels(provider, "input").inc(stats.input_tokens)
        m.llm_tokens.labels(provider, "output").inc(stats.output_tokens)
        return Completion("".join(pieces).strip(), stats.input_tokens, stats.output_tokens, attempts=stats.attempts)

    async def reflect(self, reference: str, sources: list[Source]) -> str:
        """At most two checked sentences on the verse of the day; "" without an LLM or when it fails (logged)."""
        if self.llm is None:
            return ""
        text = " ".join(s.text for s in sources)
        try:
            completion = await self._complete(reflection_messages(reference, text), "reflection", {}, max_tokens=160)
        except LLMError:
            return ""
        rules = AnswerRules(self.retriever.bible, [s.id for s in sources], "", self.config.crisis_contacts)
        checked = " ".join(check_answer(completion.text, rules, final=False).text.split())
        sentences = re.split(r"(?<=[.!?…])\s+", checked)
        return " ".join(sentences[:2]).strip()

    # -- crisis ----------------------------------------------------------------------------
    def crisis_help(self, kind: str | None, country: str | None = None) -> str:
        """The help contacts that fit a crisis kind in the person's country (never empty)."""
        contacts = self.config.crisis_contacts.strip()
        return f"{texts.CRISIS_CONTACTS_INTRO} {contacts}" if contacts else texts.CRISIS_IMMINENT

    async def _imminent(self, message: str, screening: Screening) -> Reply:
        """Safety first, then a few comforting verses; no generation at all."""
        result = await asyncio.to_thread(self.retriever.search, message, 5, None)
        sources = self._sources(result)[:3] if result.status == Status.OK else []
        parts = [self._safety_prefix(screening)]
        if sources:
            parts.append(texts.CRISIS_VERSES_INTRO)
            parts += [f"“{s.text}” ({s.reference})" for s in sources]
        return Reply("\n\n".join(parts), CRISIS, sources, [s.reference for s in sources], [], False,
                     screening.level, message, offer_care=True)

    def _safety_prefix(self, screening: Screening) -> str:
        if not screening.crisis:
            return ""
        text = {IMMINENT: texts.CRISIS_IMMINENT, DANGER: texts.CRISIS_DANGER}.get(screening.level,
                                                                                 texts.CRISIS_CONCERN)
        contacts = self.config.crisis_contacts.strip()
        return f"{text}\n\n{texts.CRISIS_CONTACTS_INTRO} {contacts}" if contacts else text

    # -- helpers -------------------------------------------------------------------------------
    def _sources(self, result: SearchResult) -> list[Source]:
        limit = self.config.max_reference_verses if result.status == Status.REFERENCE else self.config.max_sources
        out, seen = [], set()
        for hit in result.hits:
            for verse in (hit.verse, *hit.merged):
                if verse is not None and verse.id not in seen:
                    seen.add(verse.id)
                    out.append(Source(verse.id, label(verse), verse.text))
        return out[:limit]

    def _used_first(self, sources: list[Source], citations: list[str]) -> list[Source]:
        """The sources the answer cites first, in the order it cites them; the others after, in rank order."""
        bible = self.retriever.bible
        cited = [v.id for label_ in citations for ref in find_references(label_) for v in verses_of(ref, bible)]
        order = {verse_id: i for i, verse_id in enumerate(dict.fromkeys(cited))}
        return sorted(sources, key=lambda s: order.get(s.id, len(order)))

    def _extractive(self, result: SearchResult) -> tuple[str, list[str]]:
        """The `none` provider: the best passages themselves with a short framing, no generation."""
        reference = result.status == Status.REFERENCE
        hits = result.hits[: self.config.max_reference_verses] if reference else result.hits[:3]
        if reference:
            passages = [([h.verse], label(h.verse)) for h in hits]
        else:
            passages = []
            for hit in hits:
                verses = sorted((hit.verse, *hit.merged), key=lambda v: v.verse)
                ref = Reference(verses[0].book, verses[0].chapter, verses[0].verse,
                                *((verses[-1].chapter, verses[-1].verse) if len(verses) > 1 else ()))
                passages.append((verses, ref.label()))
        intro = texts.EXTRACTIVE_REFERENCE_INTRO if reference else (
            texts.EXTRACTIVE_BOOK_INTRO if result.mode == "livro" else texts.EXTRACTIVE_INTRO)
        lines = [intro] + [f"“{' '.join(v.text for v in verses)}” ({where})" for verses, where in passages]
        return "\n\n".join(lines), [where for _, where in passages]

    def _missing_details(self, ids: list[str]) -> str:
        """What does exist, without repeating the reference that does not ("Mateus tem 28 capítulos")."""
        bible, out = self.retriever.bible, []
        for osis in ids:
            ref = Reference.from_osis(osis)
            name, chapters = BY_CODE[ref.book].name, bible.chapters(ref.book)
            if not chapters:
                continue
            if ref.chapter in chapters and ref.last_chapter in chapters:
                out.append(texts.CHAPTER_VERSES.format(book=name, chapter=ref.chapter, count=chapters[ref.chapter]))
            else:
                out.append(texts.BOOK_CHAPTERS.format(book=name, count=len(chapters)))
        return "".join(dict.fromkeys(out))

    @staticmethod
    def _join(first: str, second: str) -> str:
        """Two parts as paragraphs; an empty one is left out."""
        return "\n\n".join(part for part in (first, second) if part)
