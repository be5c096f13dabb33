"""The command table: every menu, help text, keyword and dispatch comes from it."""

from __future__ import annotations

from unittest.mock import create_autospec

import pytest

from bot import commands
from bot.care.team import CareTeam
from bot.conversation import Conversation
from bot.devotional.commands import Devotional
from bot.store.inbox import Inbound


def test_names_are_unique_and_folded():
    names = [command.name for command in commands.COMMANDS]
    assert len(names) == len(set(names))
    assert all(name.isascii() and name.islower() for name in names)


def test_the_help_texts_list_every_command_with_a_help_line_once():
    for command in commands.COMMANDS:
        if command.help:
            assert commands.HELP_TELEGRAM.count(f"\n/{command.name}") == 1
            assert commands.HELP_WHATSAPP.count(f"\n*{command.word}") == 1
        else:
            assert f"/{command.name} " not in commands.HELP_TELEGRAM
    assert "/diario 7:30 — receber o versículo do dia nesse horário (/diario mostra o horário atual)" in \
        commands.HELP_TELEGRAM
    assert "*diário 7:30* — receber o versículo do dia nesse horário\n" in commands.HELP_WHATSAPP


def test_the_team_commands_stay_out_of_menus_and_help():
    team = {command.name for command in commands.COMMANDS if command.team_only}
    assert team == {"responder", "encerrar", "casos"}
    assert not team & {name for name, _ in commands.telegram_menu()}
    assert all(f"/{name}" not in commands.HELP_TELEGRAM for name in team)


async def test_every_handler_calls_a_method_that_exists():
    core = create_autospec(Conversation, instance=True)
    core.devotional = create_autospec(Devotional, instance=True)
    core.care = create_autospec(CareTeam, instance=True)
    for command in commands.COMMANDS:  # autospec refuses a method the class does not have
        await command.handler(core, object(), Inbound("telegram", "1", "1", "command", command.name))


@pytest.mark.parametrize(("word", "name"), [("fontes", "fontes"), ("FONTES", "fontes"), ("Versículo", "versiculo"),
                                            ("desconhecido", "ajuda"), ("", "ajuda"), ("start", "start")])
def test_telegram_commands(word, name):
    assert commands.telegram_command(word) == name


@pytest.mark.parametrize(("text", "expected"), [
    ("fontes", ("fontes", "")), ("/nova", ("nova", "")), ("apagar!", ("apagar", "")), ("start", None),
    ("ajuda com minha fé", None), ("casos", ("casos", "")), ("encerrar K7MX", ("encerrar", "K7MX")),
    ("encerrar o assunto", None), ("", None), ("oi pastor", None),
])
def test_whatsapp_keywords(text, expected):
    assert commands.whatsapp_command(text) == expected
