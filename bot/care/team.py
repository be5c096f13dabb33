"""The human in the loop: offers the care team, alerts it, relays its replies and the person's messages.

Every relay is a synthetic inbox entry (kind ``relay``) for the target chat, under an id made of the case
code and the message that caused it (``caso-K7MX-alerta-<chat>``, ``caso-K7MX-resposta-te-<id>``…): it is
delivered like any answer, survives a restart, and a second queueing after a crash is a redelivery the
inbox refuses. Logs name the case and the channel, never what was said.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from bot import commands
from bot import messages as m
from bot.buttons import CareButton
from bot.care.cases import CLOSED, OFFERED, OPEN, Case, valid_code
from bot.metrics import Metrics
from bot.outgoing import ButtonAnswer, CareOffer, Notice, Outgoing
from bot.reply import Reply
from bot.safety import IMMINENT
from bot.safety.country import country_of
from bot.store.inbox import Inbound, InboundKind
from bot.store.memory import Memory
from corpus.text import fold
from retrieval.understand.chat import normalize_chat

log = logging.getLogger("pastor.care")

ASKS_FILE = Path(__file__).resolve().parent.parent / "data" / "care" / "asks_for_a_person.txt"
LAST_MESSAGES = 5  # the person's messages shown in an alert
SAID_CHARS = 600  # each one at most this long in the alert
OFFER_AGAIN_SECONDS = 1800.0  # an unanswered or declined offer is not repeated sooner


@dataclass(frozen=True)
class Team:
    """Where the care team reads: a Telegram group and/or WhatsApp numbers (CARE_TEAM_*)."""

    telegram_chat: str = ""
    whatsapp: frozenset[str] = frozenset()
    alert_imminent: bool = False  # alert at once on imminent risk, before the person accepts
    country: str = "BR"  # whose public services are named when the person's country is unknown

    @property
    def targets(self) -> list[tuple[str, str]]:
        return ([("telegram", self.telegram_chat)] if self.telegram_chat else []) + \
            [("whatsapp", number) for number in sorted(self.whatsapp)]

    @property
    def configured(self) -> bool:
        return bool(self.targets)


@cache
def _asks() -> re.Pattern:
    lines = [line.strip() for line in ASKS_FILE.read_text(encoding="utf-8").splitlines()]
    return re.compile("|".join(f"(?:{line})" for line in lines if line and not line.startswith("#")))


def asks_for_a_person(text: str) -> bool:
    """The person asks to talk to a human ("quero falar com um pastor", "tem uma pessoa aí?")."""
    return bool(_asks().search(fold(normalize_chat(text))))


class CareTeam:
    """The care team's side of the conversation core; ``bind`` gives it the core's intake and command styles."""

    def __init__(self, team: Team, memory: Memory, crisis_help: Callable[[str | None, str], str],
                 metrics: Metrics, clock: Callable[[], float] = time.time):
        self.team, self.memory, self.cases = team, memory, memory.cases
        self.crisis_help, self.metrics, self.clock = crisis_help, metrics, clock
        self.accept: Callable[[Inbound], bool] = lambda inbound: False
        self.style: Callable[[str], str] = lambda channel: "/{}"

    def bind(self, accept: Callable[[Inbound], bool], style: Callable[[str], str]) -> None:
        self.accept, self.style = accept, style

    def from_team(self, inbound: Inbound) -> bool:
        """The team's Telegram group (everything in it), or a team number's team command (WhatsApp)."""
        if (inbound.channel, inbound.chat_id) == ("telegram", self.team.telegram_chat):
            return True
        return inbound.channel == "whatsapp" and inbound.chat_id in self.team.whatsapp and \
            inbound.kind == InboundKind.COMMAND and commands.is_team_command(inbound.text)

    # -- the person's side -----------------------------------------------------------------------
    def request(self, inbound: Inbound) -> list[Outgoing]:
        """/pastor, or the request in words: the team is alerted at once (asking is consent)."""
        if not self.team.configured:
            return [Notice(m.CARE_NO_TEAM.format(help=self._help(inbound)))]
        if inbound.meta.get("private") is False:  # a group: its window mixes people, and others would read
            return [Notice(m.CARE_PRIVATE_ONLY)]
        origin = _origin(inbound)
        current = self.cases.current(inbound.channel, inbound.chat_id)
        if current is not None and current.origin != origin:
            if current.state == OPEN:
                return [Notice(m.CARE_ALREADY)]
            self.cases.close(current.code, "superseded")  # an offer not answered yet: the request replaces it
        state = self.memory.care.get(inbound.chat_id)
        case, created = self.cases.create(origin, inbound.channel, inbound.chat_id, OPEN,
                                          state.level if state else None, state.kind if state else None)
        if created:
            self._count(case, "requested")
            self._count(case, "alerted")
        self._alert(case, "requested")
        return [Notice(m.CARE_ACCEPTED.format(help=self._help(inbound, case.kind)))]

    def after_reply(self, inbound: Inbound, reply: Reply) -> list[Outgoing]:
        """What follows the pastor's answer when it asks for the team: the offer, the alert, or plain words."""
        if not reply.offer_care or inbound.meta.get("private") is False:
            return []
        if not self.team.configured:
            return [Notice(m.CARE_NO_TEAM_NOTE)]
        origin, now = _origin(inbound), self.clock()
        current = self.cases.current(inbound.channel, inbound.chat_id)
        if current is not None and current.origin != origin:
            if current.state == OPEN or now - current.offered_at < OFFER_AGAIN_SECONDS:
                return []  # the team has it (this message was forwarded), or the offer is still on screen
            self.cases.close(current.code, "expired")
        latest = self.cases.latest(inbound.channel, inbound.chat_id)
        if latest is not None and latest.origin != origin and latest.closed_by == "person" and \
                now - (latest.closed_at or 0) < OFFER_AGAIN_SECONDS:
            return []  # just declined: not asked again at once
        at_once = self.team.alert_imminent and reply.crisis_level == IMMINENT
        case, created = self.cases.create(origin, inbound.channel, inbound.chat_id, OPEN if at_once else OFFERED,
                                          reply.crisis_level, reply.crisis_kind)
        if at_once:
            if created:
                self._count(case, "alerted")
            self._alert(case, "imminent")
            return [Notice(m.CARE_ALERTED)]
        if created:
            self._count(case, "offered")
        return [CareOffer(m.CARE_OFFER, case.code)]

    def button(self, inbound: Inbound, button: CareButton) -> list[Outgoing]:
        """The person's answer to the offer ("equipe:sim:K7MX" / "equipe:nao:K7MX")."""
        code = button.case
        case = self.cases.get(code)
        command = self.style(inbound.channel).format(commands.PASTOR.name)
        if case is None or (case.channel, case.chat_id) != (inbound.channel, inbound.chat_id):
            return [ButtonAnswer(m.CARE_GONE.format(command=command))]
        if button.accepted:
            if self.cases.accept(code):
                self._count(case, "accepted")
                self._count(case, "alerted")
            case = self.cases.get(code)
            if case.state != OPEN:
                return [ButtonAnswer(m.CARE_GONE.format(command=command))]
            self._alert(case, "accepted")
            return [ButtonAnswer(m.CARE_ACCEPTED.format(help=self._help(inbound, case.kind)))]
        if self.cases.decline(code):
            self._count(case, "declined")
        case = self.cases.get(code)
        if case.state == OPEN:
            return [ButtonAnswer(m.CARE_ALREADY)]
        return [ButtonAnswer(m.CARE_DECLINED.format(command=command))]

    def forward(self, inbound: Inbound, text: str) -> None:
        """While the team has the case, each message of the person goes to it too (the bot still answers)."""
        case = self.cases.current(inbound.channel, inbound.chat_id)
        if case is None or case.state != OPEN or case.origin == _origin(inbound):
            return
        for channel, chat_id in self.team.targets:
            style = self.style(channel)
            self._queue(channel, chat_id, f"caso-{case.code}-msg-{inbound.message_id}-{chat_id}",
                        m.TEAM_FORWARD.format(code=case.code, text=text, answer=style.format(commands.REPLY.name)))
        log.info("caso %s: mensagem da pessoa repassada à equipe", case.code)

    def erased(self, chat_id: str) -> None:
        """The person erased the conversation: their cases close, the team is told, the relays are redacted."""
        for case in self.cases.erase_chat(chat_id):
            self.memory.inbox.redact_prefix(f"caso-{case.code}-")
            if case.state == OPEN:
                self._count(case, "closed")
                self._to_team(f"caso-{case.code}-apagado", m.TEAM_ERASED.format(code=case.code))
                log.info("caso %s encerrado: a pessoa apagou a conversa", case.code)

    # -- the team's side -------------------------------------------------------------------------
    def team_message(self, inbound: Inbound) -> list[Outgoing]:
        """A reply to a case message answers it; anything else but a team command gets the team's help."""
        if inbound.kind == InboundKind.TEXT and inbound.meta.get("case"):
            return self._answer(inbound, inbound.meta["case"], inbound.text)
        return [Notice(m.TEAM_HELP.format(**self._words(inbound.channel)))]

    def reply_command(self, inbound: Inbound) -> list[Outgoing]:
        """/responder CASO texto: the text goes to the person of the case."""
        code, _, text = str(inbound.meta.get("args", "")).strip().partition(" ")
        if not code:
            return [Notice(m.TEAM_USAGE.format(**self._words(inbound.channel)))]
        return self._answer(inbound, code, text)

    def close_command(self, inbound: Inbound) -> list[Outgoing]:
        """/encerrar CASO: the case is closed and the person told."""
        args = str(inbound.meta.get("args", "")).strip()
        return self._close(inbound, args.split()[0]) if args else self.team_message(inbound)

    def cases_command(self, inbound: Inbound) -> list[Outgoing]:
        """/casos: the open cases."""
        return [Notice(self._listing())]

    def _answer(self, inbound: Inbound, given: str, text: str) -> list[Outgoing]:
        words = self._words(inbound.channel)
        case, problem = self._case(given, words)
        if case is None:
            return problem
        text = text.strip()
        if not text:
            return [Notice(m.TEAM_USAGE.format(**words))]
        seconds = self.cases.answered(case.code, _member(inbound))
        if seconds is not None:
            self._count(case, "answered")
            self.metrics.first_human_reply.labels(case.channel).observe(seconds)
        self.memory.care.clear(case.chat_id)  # a person of the team took over: the bot's care mode ends
        key = f"caso-{case.code}-resposta-{inbound.channel[:2]}-{inbound.message_id}"
        self._queue(case.channel, case.chat_id, key, m.CARE_HUMAN.format(text=text))
        self._to_team(key, m.TEAM_COPY.format(code=case.code, text=text), but=inbound)
        log.info("caso %s: resposta da equipe na fila para a pessoa (%s)", case.code, case.channel)
        return [Notice(m.TEAM_SENT.format(code=case.code))]

    def _close(self, inbound: Inbound, given: str) -> list[Outgoing]:
        words = self._words(inbound.channel)
        case, problem = self._case(given, words, closed_ok=True)
        if case is None:
            return problem
        member = _member(inbound)
        if self.cases.close(case.code, member):
            self._count(case, "closed")
        elif case.closed_by != member:
            return [Notice(m.TEAM_NOT_OPEN.format(code=case.code))]
        command = self.style(case.channel).format(commands.PASTOR.name)
        self._queue(case.channel, case.chat_id, f"caso-{case.code}-encerrado", m.CARE_CLOSED.format(command=command))
        self._to_team(f"caso-{case.code}-encerrado", m.TEAM_CLOSED_ELSEWHERE.format(code=case.code), but=inbound)
        log.info("caso %s encerrado pela equipe", case.code)
        return [Notice(m.TEAM_CLOSED.format(code=case.code))]

    def _case(self, given: str, words: dict, closed_ok: bool = False) -> tuple[Case | None, list[Outgoing]]:
        code = valid_code(given)
        case = self.cases.get(code) if code else None
        if case is None:
            return None, [Notice(m.TEAM_UNKNOWN.format(code=given.strip()[:12], **words))]
        if case.state != OPEN and not (closed_ok and case.state == CLOSED):
            return None, [Notice(m.TEAM_NOT_OPEN.format(code=case.code))]
        return case, []

    def _listing(self) -> str:
        now, lines = self.clock(), []
        for case in self.cases.open_cases():
            lines.append(m.TEAM_CASE_LINE.format(
                code=case.code, channel=m.CHANNEL_NAMES.get(case.channel, case.channel),
                level=m.CRISIS_LEVELS.get(case.level, case.level), minutes=int((now - (case.alerted_at or now)) // 60),
                answered=m.TEAM_ANSWERED if case.first_reply_at else m.TEAM_WAITING))
        return m.TEAM_CASES.format(lines="\n".join(lines)) if lines else m.TEAM_NO_CASES

    # -- relays ------------------------------------------------------------------------------------
    def _alert(self, case: Case, reason: str) -> None:
        """The alert, once per case and team chat: channel, case, level and kind, the person's last messages."""
        said = [turn.text for turn in self.memory.window(case.chat_id) if turn.role == "user"][-LAST_MESSAGES:]
        lines = "\n".join(f"• {text[:SAID_CHARS]}" for text in said) or m.TEAM_NOTHING_SAID
        for channel, chat_id in self.team.targets:
            words = self._words(channel)
            text = m.TEAM_ALERT.format(
                code=case.code, reason=m.TEAM_REASONS[reason], channel=m.CHANNEL_NAMES.get(case.channel, case.channel),
                level=m.CRISIS_LEVELS.get(case.level, case.level), kind=m.CRISIS_KINDS.get(case.kind, case.kind),
                said=lines, or_reply=m.TEAM_OR_REPLY if channel == "telegram" else "", **words)
            self._queue(channel, chat_id, f"caso-{case.code}-alerta-{chat_id}", text)
        log.info("caso %s: alerta para a equipe na fila (%s, %s)", case.code, case.channel, case.level)

    def _to_team(self, key: str, text: str, but: Inbound | None = None) -> None:
        for channel, chat_id in self.team.targets:
            if but is None or (channel, chat_id) != (but.channel, but.chat_id):
                self._queue(channel, chat_id, f"{key}-{chat_id}", text)

    def _queue(self, channel: str, chat_id: str, key: str, text: str) -> None:
        self.accept(Inbound(channel, chat_id, key, InboundKind.RELAY, text))

    def _words(self, channel: str) -> dict:
        style = self.style(channel)
        return {"answer": style.format(commands.REPLY.name), "close": style.format(commands.CLOSE.name),
                "cases": style.format(commands.CASES.name)}

    def _help(self, inbound: Inbound, kind: str | None = None) -> str:
        return self.crisis_help(kind, country_of(inbound) or self.team.country)

    def _count(self, case: Case, event: str) -> None:
        self.metrics.handoffs.labels(case.channel, event).inc()


def _origin(inbound: Inbound) -> str:
    return f"{inbound.channel}:{inbound.message_id}"


def _member(inbound: Inbound) -> str:
    """Who of the team wrote: the Telegram user in the team group, or the WhatsApp number."""
    return f"{inbound.channel}:{inbound.meta.get('user') or inbound.chat_id}"
