"""One answer pipeline for every channel: `Pastor.reply(chat_id, text) -> Reply`."""

from __future__ import annotations

import logging
import re
import time
import unicodedata
from dataclasses import dataclass, replace
from functools import partial

from bot import texts
from bot.care.mode import CareState
from bot.checks.answer import AnswerRules, check_answer
from bot.checks.guard import Judge
from bot.cpu import on_cpu
from bot.llm.base import CallStats, Completion, LLMError, LLMProvider
from bot.metrics import Metrics
from bot.pastor import passages
from bot.pastor.followup import choice, is_followup, standalone
from bot.pastor.progress import ParagraphProgress, Show
from bot.pastor.prompts import answer_messages, reflection_messages
from bot.pastor.proposals import proposed_sources
from bot.pastor.shown import cited_first, extractive, missing_details, sources_of
from bot.pastor.smalltalk import SmallTalk
from bot.pastor.verse_choice import chosen_first
from bot.reply import ANSWERED, CRISIS, LLM_ERROR, NO_EVIDENCE, REFERENCE, REFERENCE_MISSING, REJECTED, Reply, Source
from bot.safety.care import CrisisCare
from bot.safety.responder import CrisisResponder
from bot.safety.screening import CONCERN, IMMINENT, Screener, Screening
from bot.store.memory import Memory
from retrieval.results import Status
from retrieval.retriever import Retriever
from retrieval.understand.intent import embedding_text
from retrieval.understand.message import sentences
from retrieval.understand.scope import detect_scope

log = logging.getLogger("pastor")

MAX_MESSAGE_CHARS = 4000


@dataclass(frozen=True)
class PastorConfig:
    crisis_contacts: str = ""  # the church's own contacts; with bot/data/crisis/services.toml, the only numbers
    crisis_contacts_replace: bool = False  # name only the church's contacts, not the country's public services
    crisis_country: str = "BR"  # whose services are named when the channel does not know the person's country
    max_sources: int = 8  # verses given to the LLM and shown as sources
    max_reference_verses: int = 30
    max_tokens: int = 700
    translation: str = ""
    provider_name: str = "none"
    propose_passages: bool = False  # with an LLM: it proposes passages for Bible questions, checked before use
    choose_verses: bool = False  # with an LLM: it chooses the three most apt verses for a life told


class Pastor:
    """Keeps the promises of DESIGN.md for every message, whatever the channel."""

    def __init__(self, retriever: Retriever, memory: Memory, llm: LLMProvider | None,
                 config: PastorConfig = PastorConfig(), metrics: Metrics | None = None,
                 screener: Screener | None = None, judge: Judge | None = None):
        self.retriever = retriever
        self.memory = memory
        self.llm = llm
        self.config = config
        self.metrics = metrics or Metrics()
        self.screener = screener or Screener()  # without a model: the precise layer alone
        self.judge = judge  # reads the answer's sentences by meaning (bot.checks.guard_model); None: the patterns alone
        care = CrisisCare(church_contacts=config.crisis_contacts, church_only=config.crisis_contacts_replace,
                          default_country=config.crisis_country)
        self.crisis = CrisisResponder(care, retriever.bible, retriever.tones)
        self.smalltalk = SmallTalk.load(embed=retriever.embedder.embed)

    def _crisis_beside_scripture(self, message: str) -> bool:
        """Whether the sentences that are not Scripture themselves (a passage named, a verse quoted) still read
        as a crisis: "conhece a história de Abraão e Isaque? Deus mandou eu oferecer meu filho, vou obedecer"."""
        said = [s for s in sentences(message, shortest=1) if not _scripture(self.retriever.search(s, 10, None))]
        return bool(said) and self.screener.screen(". ".join(said)).crisis

    def _small_talk(self, message: str, command_style: str) -> str:
        """The small-talk reply, its kind read by meaning too (the message's vector is the one the search cached)."""
        return self.smalltalk.reply(message, command_style, self.retriever.embed_query(embedding_text(message)))

    async def reply(self, chat_id: str, text: str | None, show: Show | None = None,
                    country: str | None = None, command_style: str = "/{}") -> Reply:
        """The answer to ``text``; with ``show``, each validated paragraph is shown while the model writes.
        ``country`` (ISO code, when the channel knows it) chooses the public services named in a crisis;
        ``command_style`` writes a command the way the person's channel takes it ("/{}", "*{}*")."""
        reply = await self._reply(chat_id, text, show, country, command_style)
        m = self.metrics  # pastor_messages_total is counted by the conversation core, once delivered
        m.verses.inc(len(reply.sources))
        if reply.status == NO_EVIDENCE:
            m.no_evidence.inc()
        if reply.crisis_level:
            m.crisis.labels(reply.crisis_level, reply.crisis_kind or "").inc()
        return reply

    async def _reply(self, chat_id: str, text: str | None, show: Show | None, country: str | None,
                     command_style: str) -> Reply:
        started = time.perf_counter()
        timings: dict[str, float] = {}  # this reply's stages, in seconds; returned with it
        message = (text or "").strip()
        if not any(not unicodedata.category(c).startswith(("C", "Z", "M")) for c in message):
            return Reply(texts.EMPTY, REJECTED)  # nothing, or only invisible characters
        if not any(c.isalnum() for c in message):  # only emoji or punctuation: "🙏" is thanks, else an invitation
            kind = self.smalltalk.by_emoji(message)
            said = self.smalltalk.render(kind, command_style) if kind else texts.NO_WORDS
            return Reply(said, REJECTED)
        if len(text) > MAX_MESSAGE_CHARS:
            return Reply(texts.TOO_LONG.format(limit=f"{MAX_MESSAGE_CHARS:,}".replace(",", ".")), REJECTED)
        t = time.perf_counter()
        screening = await on_cpu(self.screener.screen, message)
        if screening.layer == "semantic" or screening.watch:  # meaning alone; Scripture quoted is no crisis
            probe = await on_cpu(self.retriever.search, message, 10, None)  # cached for the answer
            if _scripture(probe) and not (screening.crisis and await on_cpu(self._crisis_beside_scripture, message)):
                screening = replace(screening, level=None, kind=None, also=None, watch=None,
                                    layer="quotation" if screening.layer == "semantic" else screening.layer)
            elif screening.watch and (probe.intent or {}).get("intent") != "situation":
                # near a crisis only in a life told, not a question; a goodbye keeps it ("tchau, não aguento mais")
                screening = replace(screening, watch=None)
        timings["screening"] = time.perf_counter() - t
        db = self.memory.db  # its calls run in the database's threads, never in the event loop
        history = await db.call(self.memory.window, chat_id)
        care = await db.call(self.memory.care.get, chat_id)
        if screening.crisis and screening.level != CONCERN:
            reply = self.crisis.reply(message, screening.kind, screening.level, country, screening.also)
        elif care is not None and self.crisis.care.affirms(message):  # "sim, hoje à noite" after the question
            reply = self.crisis.reply(message, care.kind, IMMINENT, country)
        elif care is not None and self.crisis.care.says_safe(message):
            await db.call(self.memory.care.clear, chat_id)
            reply = Reply(self.crisis.care.texts["seguro"], ANSWERED, query=message)
        else:
            reply = await self._answer(chat_id, message, history, screening, timings, show, started, care, country,
                                       command_style)
            if care is not None and reply.status != LLM_ERROR:
                reply = replace(reply, text=self._join(reply.text, self.crisis.care.reminder(care.kind, country)))
            elif screening.watch and reply.status != LLM_ERROR:  # near a crisis: the door left open
                reply = replace(reply, text=self._join(reply.text, self.crisis.care.watchful(screening.watch,
                                                                                            country)))
        if reply.status == CRISIS and reply.crisis_level != CONCERN:
            await db.call(self.memory.care.enter, chat_id, reply.crisis_kind or "", reply.crisis_level)
        elif care is not None and reply.status != LLM_ERROR and reply.text != self.crisis.care.texts["seguro"]:
            await db.call(self.memory.care.checked, chat_id)
        if reply.status != LLM_ERROR:
            await db.call(self.memory.add_exchange, chat_id, message, reply.query or message, reply.text, reply.status)
            if reply.sources:
                await db.call(self.memory.save_sources, chat_id, reply.query or message, reply.sources)
        timings["total"] = time.perf_counter() - started
        return replace(reply, timings=timings)

    # -- the ordinary path --------------------------------------------------------------
    async def _answer(self, chat_id: str, message: str, history, screening: Screening,
                      timings: dict[str, float], show: Show | None, started: float, care: CareState | None = None,
                      country: str | None = None, command_style: str = "/{}") -> Reply:
        """The ordinary answer; in care mode (``care``) harsh verses are kept out, the model is told the kind
        of crisis, and the reply ends with the help and a check on the person."""
        query, scope, llm_called = message, None, False
        chosen = await on_cpu(choice, message, history, lambda q: self.retriever.search(q, 10, None))
        if chosen:  # "o irmão de João", after "de qual deles você quer saber?"
            query = chosen
        elif is_followup(message, history) and not self.smalltalk.recognises(message):  # "oi" again: a greeting
            t = time.perf_counter()
            complete = None if self.llm is None else (
                lambda msgs: self._complete(msgs, "rewrite", timings, max_tokens=80, temperature=0.0))
            query, llm_called = await standalone(message, history, complete)
            timings["rewrite"] = time.perf_counter() - t
            scope = detect_scope(message)[0]  # scope words of the follow-up itself reach the filter
        t = time.perf_counter()
        result = await on_cpu(self.retriever.search, query, 10, scope)
        timings["retrieval"] = time.perf_counter() - t
        self.metrics.retrieval_seconds.observe(timings["retrieval"])
        if care is not None or screening.crisis or screening.watch:  # near a crisis: no harsh verse either
            result = self.crisis.guard(result)
        if care is not None and result.status == Status.NO_EVIDENCE:  # the kind's vetted verses instead
            body, sources, cited = self.crisis.comfort(care.kind)
            return Reply(body, ANSWERED, sources, cited, query=query)
        prefix = self._safety_prefix(screening, country)
        talk = result.mode == "conversa" or (
            result.status == Status.NO_EVIDENCE and self.smalltalk.recognises(message)) or (
            result.status == Status.OK and self.smalltalk.about_the_bot(message))  # "qual é o seu nome?"
        if talk and not screening.crisis:  # a greeting, thanks, "você é um robô?": answered as a person would
            said = await on_cpu(self._small_talk, message, command_style)
            return Reply(said, ANSWERED, llm_called=llm_called, query=query)
        if result.status == Status.REFERENCE_MISSING:
            body = texts.REFERENCE_MISSING.format(details=missing_details(result.missing, self.retriever.bible),
                                                  translation=self.config.translation or self.retriever.bible.name)
            return Reply(self._join(prefix, body), REFERENCE_MISSING, llm_called=llm_called, query=query)
        if result.status == Status.NO_EVIDENCE:
            return Reply(self._join(prefix, texts.NO_EVIDENCE), CRISIS if screening.crisis else NO_EVIDENCE,
                         llm_called=llm_called, crisis_level=screening.level, query=query)
        sources = sources_of(result, self.config.max_reference_verses, self.config.max_sources)
        if self.llm is not None and self.config.propose_passages and care is None and not screening.crisis \
                and result.status == Status.OK and (result.intent or {}).get("intent") in ("knowledge", "teaching"):
            t = time.perf_counter()
            sources = sources + await proposed_sources(query, lambda msgs: self._text(msgs, "propose", timings),
                                                       self.retriever, {s.id for s in sources})
            timings["proposals"] = time.perf_counter() - t
        if self.llm is not None and self.config.choose_verses and care is None and not screening.crisis \
                and result.status == Status.OK and result.mode == "cuidado":
            t = time.perf_counter()
            sources = await chosen_first(message, sources, lambda msgs: self._text(msgs, "choose", timings))
            timings["choice"] = time.perf_counter() - t
        status = CRISIS if screening.crisis else (REFERENCE if result.status == Status.REFERENCE else ANSWERED)
        before, after = passages.book_facts(self.retriever.bible, result)
        after = after or passages.continuation(result, len(sources), self.config.max_reference_verses)
        after = self._join(after, passages.which_one(result))  # "há mais de um Tiago…: de qual deles…?"
        if self.llm is None:
            body, kept = extractive(result, self.config.max_reference_verses)
            text = self._join(self._join(prefix, before), self._join(body, after))
            return Reply(text, status, sources, kept, [], llm_called, screening.level, query)
        notes = ([texts.MEDICAL] if screening.medical else []) + ([texts.BOOK_NOTE] if before else []) + (
            [self.crisis.care.kind(care.kind).llm_note] if care is not None else []) + (
            [texts.HOMONYMS_NOTE.format(first=result.homonyms[0]["description"])] if result.homonyms else [])
        messages = answer_messages(message if query == message else f"{message}\n(pergunta completa: {query})",
                                   sources, history, notes)
        if screening.medical and not screening.crisis:
            prefix = texts.MEDICAL
        prefix = self._join(prefix, before)
        rules = AnswerRules(self.retriever.bible, [s.id for s in sources], message, self.config.crisis_contacts,
                            referral="" if texts.MEDICAL in prefix else texts.MEDICAL, judge=self.judge)
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
        checked = await on_cpu(check_answer, completion.text, rules)  # the guard model embeds: not in the loop
        if checked.removed_sentences:
            log.warning("resposta: frase(s) removida(s) pela guarda: %s", ", ".join(checked.removed_sentences))
        if care is not None:  # counsel never given to a person in crisis, whatever the model wrote
            text, cut = self.crisis.care.scrub(checked.text)
            if cut:
                log.warning("resposta em modo de cuidado: %d frase(s) cortada(s) pela guarda de crise", len(cut))
                checked = replace(checked, text=text)
        timings["validation"] = time.perf_counter() - t
        text = self._join(self._join(prefix, checked.text), after)
        return Reply(text, status, cited_first(sources, checked.kept, self.retriever.bible), checked.kept,
                     checked.removed, True, screening.level, query, corrected_quotes=checked.corrected_quotes,
                     removed_contacts=checked.removed_contacts, replaced_directives=checked.replaced_directives)

    async def _text(self, messages, purpose: str, timings: dict[str, float]) -> str:
        return (await self._complete(messages, purpose, timings, max_tokens=60, temperature=0.0)).text

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
        rules = AnswerRules(self.retriever.bible, [s.id for s in sources], "", self.config.crisis_contacts,
                            judge=self.judge)
        opening = " ".join(re.split(r"(?<=[.!?…])\s+", " ".join(completion.text.split()))[:2])
        checked = await on_cpu(partial(check_answer, final=False), opening, rules)
        return " ".join(checked.text.split()).strip()  # the two, then checked

    # -- crisis ----------------------------------------------------------------------------
    def crisis_help(self, kind: str | None, country: str | None = None) -> str:
        """The help contacts that fit a crisis kind in the person's country (never empty)."""
        return self.crisis.care.help_lines(kind, country)

    def _safety_prefix(self, screening: Screening, country: str | None) -> str:
        """For a concern (addiction, panic): a word about help before the answer."""
        if not screening.crisis:
            return ""
        opening = self.crisis.care.kind(screening.kind).opening
        church = self.crisis.care.church
        return f"{opening}\n\n{self.crisis.care.texts['igreja_intro']} {church}" if church else opening

    # -- helpers -------------------------------------------------------------------------------
    @staticmethod
    def _join(first: str, second: str) -> str:
        """Two parts as paragraphs; an empty one is left out."""
        return "\n\n".join(part for part in (first, second) if part)


def _scripture(result) -> bool:
    """Whether a search read the message as Scripture itself: a passage it names, a verse it quotes."""
    return result.mode == "passagem" or (result.signals is not None and result.signals.looks_like_a_quote)
