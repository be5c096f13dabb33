"""Every command of the bot in one table. Telegram's menu, both help texts, the WhatsApp keyword parser and
the conversation core's dispatch are generated from it: a new command is one entry and one handler."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from bot import messages
from bot.care.cases import valid_code
from bot.outgoing import Help, Outgoing
from bot.store.inbox import Inbound
from bot.store.subscriptions import parse_time
from corpus.references import parse_reference
from corpus.text import fold

# (the conversation core, the channel, the message) -> what to tell the person
Handler = Callable[[Any, Any, Inbound], Awaitable[list[Outgoing]]]


async def _help(core, channel, inbound: Inbound) -> list[Outgoing]:
    return [Help()]


@dataclass(frozen=True)
class Command:
    """One command: its name (Telegram's "/name", WhatsApp's folded keyword), how it is shown, who may use it."""

    name: str
    menu: str = ""  # Telegram's menu description; "" keeps it out of the menu
    help: str = ""  # the line of the help texts; "" keeps it out of them
    help_rank: int = 0  # where the help lists it
    example: str = ""  # an argument the help shows ("7:30")
    telegram_note: str = ""  # said after the Telegram help line ("{command}" is the command)
    keyword: str | None = ""  # as written on WhatsApp ("versículo"); None: not a WhatsApp keyword
    takes: Callable[[str], object] | None = None  # WhatsApp: the words after the keyword that keep it a command
    team_only: bool = False  # the care team's, only in its Telegram group and from its WhatsApp numbers
    handler: Handler = _help

    @property
    def word(self) -> str:
        """How the help names it on WhatsApp."""
        return self.keyword or self.name


def _core(method: str) -> Handler:
    """A handler of the conversation core (``core.<method>(channel, inbound)``)."""
    async def handle(core, channel, inbound: Inbound) -> list[Outgoing]:
        return await getattr(core, method)(channel, inbound)
    return handle


def _devotional(method: str) -> Handler:
    """A handler of the verse of the day; the help when the bot runs without it."""
    async def handle(core, channel, inbound: Inbound) -> list[Outgoing]:
        if core.devotional is None:
            return [Help()]
        return await getattr(core.devotional, method)(channel, inbound)
    return handle


def _team(method: str) -> Handler:
    """A handler of the care team's side (``core.care.<method>(inbound)``, in the database's threads)."""
    async def handle(core, channel, inbound: Inbound) -> list[Outgoing]:
        return await core.team_command(method, inbound)
    return handle


def _case_code(args: str) -> bool:
    return bool(valid_code(args.split()[0]))


START = Command("start", menu="O que este bot faz", keyword=None, handler=_core("welcome"))
HELP = Command("ajuda", menu="Como conversar comigo", help="esta mensagem", help_rank=10)
SOURCES = Command("fontes", menu="Versículos da última resposta", help="versículos da última resposta", help_rank=1,
                  handler=_core("last_sources"))
STATUS = Command("status", menu="Estado do índice e do modelo", help="estado do serviço", help_rank=9,
                 handler=_core("status"))
NEW = Command("nova", menu="Começar uma conversa nova", help="começar uma conversa nova", help_rank=7,
              handler=_core("new_conversation"))
VERSE = Command("versiculo", menu="O versículo do dia", help="o versículo do dia", help_rank=2, keyword="versículo",
                handler=_devotional("verse"))
DAILY = Command("diario", menu="Receber o versículo do dia num horário (ex.: {example})",
                help="receber o versículo do dia nesse horário", help_rank=3, example="7:30",
                telegram_note="({command} mostra o horário atual)", keyword="diário", takes=parse_time,
                handler=_devotional("subscribe"))
STOP = Command("parar", menu="Parar de receber o versículo do dia", help="parar de receber o versículo do dia",
               help_rank=4, handler=_devotional("stop"))
CARD = Command("imagem", menu="Imagem de um versículo (ex.: {example})",
               help="imagem de um versículo para compartilhar", help_rank=5, example="João 3:16",
               takes=parse_reference, handler=_devotional("card"))
PASTOR = Command("pastor", menu="Falar com uma pessoa da equipe pastoral",
                 help="falar com uma pessoa da equipe pastoral", help_rank=6, handler=_core("ask_for_a_person"))
ERASE = Command("apagar", menu="Apagar tudo o que guardei desta conversa",
                help="apagar tudo o que guardei desta conversa", help_rank=8, handler=_core("erase"))
REPLY = Command("responder", menu="Responder a um caso (ex.: {example})", example="K7MX texto", takes=_case_code,
                team_only=True, handler=_team("reply_command"))
CLOSE = Command("encerrar", menu="Encerrar um caso (ex.: {example})", example="K7MX", takes=_case_code,
                team_only=True, handler=_team("close_command"))
CASES = Command("casos", menu="Os casos em aberto", team_only=True, handler=_team("cases_command"))

COMMANDS: tuple[Command, ...] = (START, HELP, SOURCES, STATUS, NEW, VERSE, DAILY, STOP, CARD, PASTOR, ERASE,
                                 REPLY, CLOSE, CASES)
BY_NAME = {command.name: command for command in COMMANDS}
CONSOLE_EXIT = ("sair", "exit", "quit")  # the terminal's own: it ends `python -m bot chat`


def named(name: str) -> Command:
    """The command called ``name`` (folded); unknown names are the help."""
    return BY_NAME.get(name, HELP)


def telegram_menu(team: bool = False) -> list[tuple[str, str]]:
    """(command, description) for Telegram's setMyCommands, in the table's order: a person's menu, or
    (``team``) the care team's group's, its own commands first."""
    chosen = [command for command in COMMANDS if command.menu and command.team_only == team]
    return [(command.name, command.menu.format(example=f"/{command.name} {command.example}")) for command in chosen]


def help_text(channel: str) -> str:
    """The help of ``channel`` ("telegram": "/name" lines and inline mode; "whatsapp": keywords in bold)."""
    listed = sorted((command for command in COMMANDS if command.help), key=lambda command: command.help_rank)
    if channel == "whatsapp":
        lines = [f"*{' '.join(filter(None, (c.word, c.example)))}* — {c.help}" for c in listed]
        return f"{messages.HELP_INTRO}\n\n{messages.HELP_KEYWORDS}\n" + "\n".join(lines)
    lines = [f"/{' '.join(filter(None, (c.name, c.example)))} — {c.help}"
             + (" " + c.telegram_note.format(command=f"/{c.name}") if c.telegram_note else "") for c in listed]
    if channel == "console":
        return f"{messages.HELP_COMMANDS}\n" + "\n".join([*lines, f"/{CONSOLE_EXIT[0]} — {messages.CONSOLE_EXIT_HELP}"])
    return f"{messages.HELP_INTRO}\n\n{messages.HELP_COMMANDS}\n" + "\n".join(lines) + f"\n\n{messages.HELP_INLINE}"


def stop_note(style: str) -> str:
    """Under a scheduled daily word: how to stop it, the command written in the channel's ``style``."""
    return messages.DAILY_STOP.format(command=style.format(STOP.name))


def console_intro() -> str:
    """The first line of `python -m bot chat`."""
    return messages.CONSOLE_INTRO.format(sources=f"/{SOURCES.name}", new=f"/{NEW.name}", help=f"/{HELP.name}",
                                         exit=f"/{CONSOLE_EXIT[0]}")


HELP_TELEGRAM = help_text("telegram")
HELP_WHATSAPP = help_text("whatsapp")


def telegram_command(word: str) -> str:
    """The command a Telegram "/word" names; unknown ones are the help."""
    return named(fold(word)).name


def whatsapp_command(text: str) -> tuple[str, str] | None:
    """A message that is a keyword ("fontes", "versículo"), or one that takes words after it with words it takes
    ("diário 7:30", "imagem João 3:16", "responder K7MX texto"); any other message is for the pastor."""
    words = text.strip().lstrip("/").split(maxsplit=1)
    if not words:
        return None
    name, args = fold(words[0]).rstrip(".!"), words[1].strip() if len(words) > 1 else ""
    command = BY_NAME.get(name)
    if command is None or command.keyword is None:
        return None
    if not args:
        return name, ""
    return (name, args) if command.takes is not None and command.takes(args) else None


def is_team_command(name: str) -> bool:
    return BY_NAME.get(name, HELP).team_only
