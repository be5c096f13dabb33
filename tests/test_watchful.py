"""A message near a crisis but not read as one: the ordinary answer ends with a word that the bot is there and
the one service that fits, never the crisis reply (a model of fixed probabilities, the real pipeline)."""

from __future__ import annotations

import numpy as np

from bot.reply import CRISIS
from bot.safety.care import CrisisCare
from bot.safety.classifier import RiskModel
from bot.safety.screening import WATCH_SHARE, Screener
from retrieval.understand.textmodel import N_FEATURES, LinearTextModel

DIMS = 4


def _model(p_risk: float, kind: str = "suicide-indirect", threshold: float = 0.5) -> RiskModel:
    """Every message scores ``p_risk`` (intercepts only), of ``kind``."""
    classes = ("safe", kind)
    kinds = LinearTextModel((kind,), np.zeros((1, N_FEATURES + DIMS)), np.zeros(1), np.ones(N_FEATURES))
    return RiskModel(classes, np.zeros((2, N_FEATURES + DIMS)), np.log(np.array([1 - p_risk, p_risk])),
                     np.ones(N_FEATURES), threshold, {}, kinds)


def _screener(p_risk: float, kind: str = "suicide-indirect") -> Screener:
    return Screener(model=_model(p_risk, kind), embed=lambda texts: np.zeros((len(texts), DIMS)))


def test_a_score_near_the_threshold_is_watched_not_a_crisis():
    near = _screener(0.5 * (WATCH_SHARE + 1) / 2 + 0.01).screen("já escolhi a música que vai tocar")
    assert not near.crisis and near.watch == "suicide-indirect"
    assert _screener(0.5 * WATCH_SHARE - 0.05).screen("já escolhi a música que vai tocar").watch is None
    sure = _screener(0.9).screen("já escolhi a música que vai tocar")
    assert sure.crisis and sure.watch is None  # a crisis gets the crisis reply, never the gentle word


def test_the_watchful_word_names_the_one_service_that_fits():
    care = CrisisCare()
    assert "188" in care.watchful("suicide-indirect", "BR") and "190" not in care.watchful("suicide-indirect", "BR")
    assert "Disque 100" in care.watchful("child-abuse", "BR") and "188" in care.watchful("child-abuse", "BR")
    assert care.watchful("suicide-passive", "BR").count("188") == 1  # one service when the kind's is the CVV
    assert "emergência local" in care.watchful("suicide-indirect", "GB")
    church = CrisisCare(church_contacts="Pr. João (11) 5555-0000", church_only=True)
    assert "Pr. João" in church.watchful("suicide-indirect", "BR") and "188" not in church.watchful(
        "suicide-indirect", "BR")


async def test_the_ordinary_answer_ends_with_it_and_no_care_mode_starts(make_pastor):
    pastor = make_pastor(None)
    pastor.screener = _screener(0.45)
    reply = await pastor.reply("w1", "ando cansado de tudo, quero paz")
    assert reply.status != CRISIS and reply.text.rstrip().endswith(pastor.crisis.care.watchful(
        "suicide-indirect", None))
    assert pastor.memory.care.get("w1") is None
    goodbye = await pastor.reply("w4", "tchau pastor, não aguento mais essa vida, obrigado por tudo")
    assert "188" in goodbye.text  # a goodbye with a weight is no everyday goodbye: the line stays
    pastor.screener = _screener(0.1)
    calm = await pastor.reply("w2", "ando cansado de tudo, quero paz")
    assert "188" not in calm.text


async def test_a_question_near_a_crisis_is_answered_without_it(make_pastor):
    pastor = make_pastor(None)
    pastor.screener = _screener(0.45)  # the meaning is near a crisis, but nobody tells their life
    for question in ("qual o preço da gasolina hoje?", "quem foi Moisés?"):
        assert "188" not in (await pastor.reply("w3", question)).text


def test_death_as_gain_or_a_meeting_is_kept_from_someone_near_a_crisis(blivre):
    care = CrisisCare()
    for book, chapter, verse in (("1TH", 4, 14), ("PHP", 1, 21), ("PHP", 1, 23)):  # read from ../shared
        assert care.forbidden(blivre.get(book, chapter, verse).text), (book, chapter, verse)
    assert not care.forbidden(blivre.get("PSA", 34, 18).text)  # near the broken-hearted: comfort, kept
