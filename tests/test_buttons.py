"""Button payloads (one typed callback-data type) and the kinds of inbound messages."""

from __future__ import annotations

import pytest

from bot import buttons
from bot.buttons import MAX_BYTES, CardButton, CareButton, EraseButton, SourcesButton
from bot.outgoing import card_button_data
from bot.reply import Source
from bot.store.inbox import Inbound, InboundKind


@pytest.mark.parametrize(("button", "data"), [
    (SourcesButton(), "fontes"), (EraseButton(True), "apagar:sim"), (EraseButton(False), "apagar:nao"),
    (CardButton(("PHP.4.6", "PHP.4.7")), "imagem:PHP.4.6,PHP.4.7"), (CareButton(True, "K7MX"), "equipe:sim:K7MX"),
    (CareButton(False, "K7MX"), "equipe:nao:K7MX"),
])
def test_pack_and_unpack_round_trip(button, data):
    assert button.pack() == data
    assert type(button).unpack(data) == button
    assert buttons.unpack(data) == button


@pytest.mark.parametrize("data", ["", "x", "apagar", "apagar:talvez", "equipe:sim", "fontes:1", "outro:sim"])
def test_anything_else_is_no_button(data):
    assert buttons.unpack(data) is None


def test_the_64_byte_limit_is_checked():
    assert CardButton(("JHN.3.16",)).fits()
    too_many = CardButton(tuple(f"PSA.119.{n}" for n in range(100, 110)))
    assert not too_many.fits()
    with pytest.raises(ValueError, match="64 bytes"):
        too_many.pack()


def test_a_card_button_keeps_the_first_passage_within_the_limit():
    sources = [Source(f"PSA.119.{n}", f"Salmos 119:{n}", "") for n in range(100, 120)]
    data = card_button_data(sources)
    assert len(data.encode()) <= MAX_BYTES and data.startswith("imagem:PSA.119.100,PSA.119.101")
    assert card_button_data([Source("JHN.3.16", "", ""), Source("ROM.8.28", "", "")]) == "imagem:JHN.3.16"


def test_inbound_kinds_are_the_seven_in_use():
    assert [kind.value for kind in InboundKind] == ["text", "command", "button", "voice", "other", "relay", "daily"]
    assert Inbound("telegram", "1", "1", "text").kind is InboundKind.TEXT
    with pytest.raises(ValueError):
        Inbound("telegram", "1", "1", "sticker")
