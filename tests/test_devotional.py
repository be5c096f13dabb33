"""The verse of the day, daily subscriptions and their round, verse cards and inline mode, on both channels."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest
from PIL import Image

from bot import messages
from bot.card import MAX_CHARS, Card, CardTooLong, render
from bot.commands import whatsapp_command as command_of
from bot.devotional.round import DailyRound
from bot.devotional.verses import DailyVerses, VerseOfTheDay
from bot.llm.base import LLMError
from bot.store.memory import Memory
from bot.store.subscriptions import parse_time
from bot.supervisor import Supervisor
from corpus.bible import Bible
from corpus.verse import Verse
from retrieval.understand.tone import ToneLabels
from retrieval.understand.topics import TopicIndex
from tests.conftest import MINI_BIBLE, TRANSLATION, deliver, started, stopped
from tests.fakes.model import FakeModel
from tests.fakes.whatsapp import whatsapp_delivery

SP = ZoneInfo("America/Sao_Paulo")


def at(hour: int, minute: int, day: int = 30) -> float:
    return datetime(2026, 11, day, hour, minute, 5, tzinfo=SP).timestamp()


class Clock:
    def __init__(self, now: float):
        self.now = now

    def __call__(self) -> float:
        return self.now


def mini_text(book: str, chapter: int, verse: int) -> str:
    return MINI_BIBLE[(book, chapter)][verse - 1]


# -- pure parts ----------------------------------------------------------------------------------

@pytest.mark.parametrize(("given", "expected"), [
    ("7:30", (7, 30)), ("07h30", (7, 30)), ("7h", (7, 0)), ("21", (21, 0)), ("19:05 horas", (19, 5)),
    ("6.45", (6, 45)), ("25:00", None), ("7:75", None), ("amanhã", None), ("", None)])
def test_times_of_day_people_write(given, expected):
    assert parse_time(given) == expected


def test_the_verse_of_the_day_is_one_for_everyone_on_a_date_and_moves_on(blivre):
    pool = DailyVerses.load(blivre)
    days = [date(2026, 12, d) for d in range(1, 31)]
    picks = [pool.for_date(d) for d in days]
    assert picks == [DailyVerses.load(blivre).for_date(d) for d in days]  # another process, same words
    assert len({p[0].id for p in picks}) == 30  # a month without a repeat
    for passage in picks:
        assert all(blivre.get(v.book, v.chapter, v.verse) == v for v in passage)
        assert sum(len(v.text) for v in passage) <= MAX_CHARS


def test_pool_takes_the_curated_list_minus_exclusions_and_voted_verses_without_a_harsh_tone(tmp_path):
    verses = [Verse("PSA", 23, n, t) for n, t in enumerate(MINI_BIBLE[("PSA", 23)], start=1)]
    verses += [Verse("ROM", 8, 1, "Curto."), Verse("ROM", 8, 2, "Um versículo votado, longo o bastante para o dia.")]
    verses += [Verse("ROM", 8, 3, "Outro versículo votado, mas de tom duro, que o guarda afasta do dia.")]
    bible = Bible.from_verses(verses, "teste")
    data = tmp_path / "dia.toml"
    data.write_text('versiculos = ["Salmos 23:1", "Salmos 23:2-3", "Obadias 1:40"]\nexcluir = ["Salmos 23:2"]\n',
                    encoding="utf-8")
    votes = tmp_path / "votes.tsv"
    votes.write_text("Topic\tStart\tEnd\tVotes\nconsolo\t45008001\t\t50\nconsolo\t45008002\t\t40\n"
                     "consolo\t45008003\t\t30\n", encoding="utf-8")
    topics = TopicIndex.load(votes, bible)
    tones = ToneLabels({bible.position("ROM", 8, 3): frozenset({"juizo"})}, ())
    pool = DailyVerses.load(bible, topics, tones, path=data)
    assert [[v.id for v in p] for p in pool.passages] == [["PSA.23.1"], ["ROM.8.2"]]


def test_subscription_times_and_days(database_url, tmp_path):
    subscriptions = Memory.connect(database_url, tmp_path).subscriptions
    now = lambda t: datetime.fromtimestamp(t, SP)  # noqa: E731
    subscriptions.subscribe("telegram", "1", 7, 30, now(at(7, 0)))
    subscriptions.subscribe("telegram", "2", 7, 30, now(at(10, 0)))  # already past today: starts tomorrow
    assert subscriptions.due(now(at(7, 29))) == []
    due = subscriptions.due(now(at(7, 30)))
    assert [s.chat_id for s in due] == ["1"]
    subscriptions.mark(due[0], now(at(7, 30)).date())
    assert subscriptions.due(now(at(23, 59))) == []
    tomorrow = datetime(2026, 12, 1, 7, 30, tzinfo=SP)
    assert sorted(s.chat_id for s in subscriptions.due(tomorrow)) == ["1", "2"]
    assert subscriptions.count() == {"telegram": 2}


# -- the word of the day and its reflection --------------------------------------------------------

async def test_one_checked_reflection_a_day_for_everyone(make_pastor, tmp_path):
    model = FakeModel("Deus cuida de você como um pastor. Descanse nele hoje (Mateus 5:9 também).\n\n"
                      "Uma terceira linha que sobra.")
    pastor = make_pastor(model)
    clock = Clock(at(6, 0))
    words = VerseOfTheDay(DailyVerses.load(pastor.retriever.bible), pastor.retriever.bible,
                          pastor.memory.subscriptions, pastor.reflect, SP, clock)
    first, *others = await asyncio.gather(*(words.word() for _ in range(6)))
    assert len(model.prompts) == 1 and all(o == first for o in others)
    assert first.reflection.startswith("Deus cuida de você") and "Mateus 5:9" not in first.reflection
    assert "terceira" not in first.reflection  # two sentences at most
    assert first.text == " ".join(mini_text(*s.id.split(".")[:1], *map(int, s.id.split(".")[1:]))
                                  for s in first.sources)
    again = VerseOfTheDay(words.pool, pastor.retriever.bible, pastor.memory.subscriptions, pastor.reflect, SP, clock)
    assert await again.word() == first and len(model.prompts) == 1  # a restart reads the day's word


async def test_without_a_working_model_the_verse_goes_alone_and_the_model_is_not_hammered(make_pastor, caplog):
    model = FakeModel(LLMError("down", kind="connection"))
    pastor = make_pastor(model)
    clock = Clock(at(7, 30))
    words = VerseOfTheDay(DailyVerses.load(pastor.retriever.bible), pastor.retriever.bible,
                          pastor.memory.subscriptions, pastor.reflect, SP, clock)
    with caplog.at_level(logging.WARNING, "pastor.daily"):
        word = await words.word()
        assert word.reflection == "" and word.sources
        await asyncio.gather(*(words.word() for _ in range(20)))
    assert len(model.prompts) == 1 and "reflexão do versículo do dia não gerada" in caplog.text
    clock.now += 601
    model.answers = ["Confie: ele está com você."]
    assert (await words.word()).reflection == "Confie: ele está com você."


# -- Telegram, end to end against the loopback Bot API -------------------------------------------------

def round_of(core, channel: str) -> DailyRound:
    """The daily round over a conversation core, sending on one channel."""
    return DailyRound(core.memory.subscriptions, core.devotional.words, core.accept, lambda: {channel})


async def telegram_with_round(make_channel, clock, **options):
    """A started Telegram channel with the devotional at ``clock``, and its daily round (not scheduled)."""
    channel = await started(make_channel(daily_clock=clock, **options))
    return channel, round_of(channel.conversation, "telegram")


async def _command(bot_api, chat_id: int, text: str, count: int, method: str = "sendMessage"):
    bot_api.push(bot_api.message(chat_id, text))
    return (await bot_api.wait_for(count, method, chat_id=chat_id))[-1]


async def test_telegram_commands_for_the_verse_of_the_day(make_channel, bot_api):
    clock = Clock(at(7, 0))
    channel = await started(make_channel(daily_clock=clock))
    try:
        daily = await _command(bot_api, 601, "/versiculo", 1)
        word = await channel.conversation.devotional.words.word()
        assert daily["text"].startswith("☀️ Versículo do dia — 30/11/2026")
        assert f"“{word.text}” ({word.reference})" in daily["text"] and TRANSLATION in daily["text"]
        assert json.loads(daily["reply_markup"])["inline_keyboard"][0][0]["callback_data"].startswith("imagem:")
        assert (await _command(bot_api, 601, "/diario", 2))["text"].startswith("Você ainda não recebe")
        subscribed = await _command(bot_api, 601, "/diario 7:30", 3)
        assert "07:30 (horário de Brasília)" in subscribed["text"]
        assert "às 07:30" in (await _command(bot_api, 601, "/diário", 4))["text"]
        assert "Não entendi o horário" in (await _command(bot_api, 601, "/diario amanhã cedo", 5))["text"]
        assert (await _command(bot_api, 601, "/parar", 6))["text"].startswith("Pronto: você não recebe mais")
        assert "não está inscrito" in (await _command(bot_api, 601, "/parar", 7))["text"]
    finally:
        await stopped(channel)


async def test_the_round_sends_once_at_the_time_across_a_restart(make_channel, bot_api, tmp_path, state_url):
    clock = Clock(at(7, 0))
    channel, rounds = await telegram_with_round(make_channel, clock)
    try:
        await _command(bot_api, 602, "/diario 7:30", 1)
        clock.now = at(7, 29)
        assert rounds.run() == 0
        clock.now = at(7, 30)
        assert rounds.run() == 1 and rounds.run() == 0
        sent = await bot_api.wait_for(2, chat_id=602)
        assert sent[-1]["text"].startswith("☀️ Versículo do dia")
        assert sent[-1]["text"].endswith("Para não receber mais, escreva /parar.")
    finally:
        await stopped(channel)
    clock.now = at(7, 31)  # a restart over the same database: today's word is not sent again
    again, restarted = await telegram_with_round(make_channel, clock, memory=Memory.connect(state_url, tmp_path))
    try:
        assert restarted.run() == 0
        clock.now = at(7, 30) + 86400  # the next morning
        assert restarted.run() == 1
        assert len(await bot_api.wait_for(3, chat_id=602)) == 3
    finally:
        await stopped(again)


async def test_a_word_missed_while_down_is_sent_once_on_start_then_the_scheduler_keeps_time(make_channel, bot_api):
    clock = Clock(at(7, 0))
    channel, rounds = await telegram_with_round(make_channel, clock)
    supervisor = Supervisor()
    try:
        await _command(bot_api, 603, "/diario 7:30", 1)
        await _command(bot_api, 604, "/diario 9:01", 1)
        clock.now = at(9, 0)  # down at 7:30; back at 9:00
        rounds.start(supervisor, every=0.05)
        await bot_api.wait_for(2, chat_id=603)
        clock.now = at(9, 1)  # the scheduler's own rounds find 9:01 due
        await bot_api.wait_for(2, chat_id=604)
        await asyncio.sleep(0.3)  # several more rounds
        assert len(bot_api.sent(chat_id=603)) == 2 and len(bot_api.sent(chat_id=604)) == 2
        assert rounds.last_run["queued"] == 0
    finally:
        await supervisor.stop()
        await stopped(channel)


async def test_a_person_who_blocked_the_bot_is_unsubscribed(make_channel, bot_api, caplog):
    clock = Clock(at(7, 0))
    channel, rounds = await telegram_with_round(make_channel, clock)
    core = channel.conversation
    try:
        await _command(bot_api, 605, "/diario 7:30", 1)
        bot_api.blocked.add(605)
        clock.now = at(7, 30)
        with caplog.at_level(logging.WARNING):
            assert rounds.run() == 1
            await core.drain()
        assert core.memory.subscriptions.get("telegram", "605") is None
        assert "bloqueou o bot" in caplog.text
    finally:
        await stopped(channel)


async def test_verse_cards_by_command_and_by_button(make_channel, bot_api):
    channel = await started(make_channel(daily_clock=Clock(at(8, 0))))
    try:
        photo = await _command(bot_api, 606, "/imagem Salmos 23:1-2", 1, "sendPhoto")
        image = Image.open(io.BytesIO(photo["photo"]))
        assert image.format == "PNG" and image.size == (1080, 1920)
        expected = f"“{mini_text('PSA', 23, 1)} {mini_text('PSA', 23, 2)}” (Salmos 23:1-2)\n{TRANSLATION}"
        assert photo["caption"] == expected
        missing = await _command(bot_api, 606, "/imagem Obadias 9:9", 1)
        assert missing["text"] == messages.CARD_MISSING.format(given="Obadias 9:9")
        await _command(bot_api, 606, "o que diz Salmo 56:2?", 3)  # the answer and its sources
        by_answer = await _command(bot_api, 606, "/imagem", 2, "sendPhoto")
        assert by_answer["caption"].startswith(f"“{mini_text('PSA', 56, 2)}” (Salmos 56:2)")
        bot_api.push(bot_api.callback(606, "imagem:JHN.14.1,JHN.14.2"))
        pressed = (await bot_api.wait_for(3, "sendPhoto", chat_id=606))[-1]
        assert pressed["caption"].startswith(f"“{mini_text('JHN', 14, 1)} {mini_text('JHN', 14, 2)}” (João 14:1-2)")
        assert bot_api.sent("answerCallbackQuery")
    finally:
        await stopped(channel)


async def test_inline_mode_offers_exact_verses_for_a_reference_or_the_best_three(make_channel, bot_api):
    channel = await started(make_channel(inline=True))
    try:
        bot_api.push(bot_api.inline_query(607, "Salmos 23:1-2"))
        answer = (await bot_api.wait_for(1, "answerInlineQuery"))[0]
        results = json.loads(answer["results"])
        assert len(results) == 1 and results[0]["title"] == "Salmos 23:1-2"
        text = results[0]["input_message_content"]["message_text"]
        assert text == f"“1 {mini_text('PSA', 23, 1)} 2 {mini_text('PSA', 23, 2)}” (Salmos 23:1-2)\n— {TRANSLATION}"
        bot_api.push(bot_api.inline_query(607, "confio em Deus e não temerei"))
        results = json.loads((await bot_api.wait_for(2, "answerInlineQuery"))[1]["results"])
        assert 1 <= len(results) <= 3
        every_text = {t for verses in MINI_BIBLE.values() for t in verses}
        for result in results:
            quoted = result["input_message_content"]["message_text"].split("”")[0].lstrip("“")
            assert all(part in every_text for part in _verse_texts(quoted)) and TRANSLATION in \
                result["input_message_content"]["message_text"]
        bot_api.push(bot_api.inline_query(607, "pa"))
        assert json.loads((await bot_api.wait_for(3, "answerInlineQuery"))[2]["results"]) == []
    finally:
        await stopped(channel)


def _verse_texts(quoted: str) -> list[str]:
    """The verse texts inside a quoted passage ("1 text 2 text" when numbered)."""
    import re

    parts = [p.strip() for p in re.split(r"(?:^|\s)\d+\s", quoted) if p.strip()]
    return parts or [quoted]


# -- WhatsApp ----------------------------------------------------------------------------------------

def test_whatsapp_command_words_and_messages_for_the_pastor():
    assert command_of("Versículo") == ("versiculo", "")
    assert command_of("diário 7:30") == ("diario", "7:30")
    assert command_of("imagem João 3:16") == ("imagem", "João 3:16")
    assert command_of("imagem de Deus no homem, o que significa?") is None
    assert command_of("diário de um pai cansado") is None


async def test_whatsapp_daily_needs_an_approved_template(make_whatsapp, graph_api):
    channel, client = await make_whatsapp(daily_clock=Clock(at(7, 0)))
    await deliver(client, channel, whatsapp_delivery("5511977776666", "wamid.D1", "diário 7:30"))
    assert graph_api.sent("text")[-1]["text"]["body"] == messages.DAILY_UNAVAILABLE
    await deliver(client, channel, whatsapp_delivery("5511977776666", "wamid.D2", "versículo"))
    daily = graph_api.sent("interactive")[-1]["interactive"]
    assert daily["body"]["text"].startswith("☀️ Versículo do dia") and \
        daily["action"]["buttons"][0]["reply"]["id"].startswith("imagem:")


async def test_whatsapp_subscription_sends_the_template_and_cards_are_uploaded(make_whatsapp, graph_api):
    clock = Clock(at(7, 0))
    channel, client = await make_whatsapp(daily_clock=clock, daily_template="versiculo_do_dia:pt_BR")
    core = channel.conversation
    await deliver(client, channel, whatsapp_delivery("5511977775555", "wamid.D3", "diario 7:30"))
    assert "07:30" in graph_api.sent("text")[-1]["text"]["body"]
    clock.now = at(7, 30)
    rounds = round_of(core, "whatsapp")
    assert rounds.run() == 1
    await core.drain()
    template = graph_api.sent("template")[-1]["template"]
    word = await core.devotional.words.word()
    assert template["name"] == "versiculo_do_dia" and template["language"] == {"code": "pt_BR"}
    assert template["components"][0]["parameters"][0]["text"] == f"“{word.text}” ({word.reference})"
    await deliver(client, channel, whatsapp_delivery("5511977775555", "wamid.D4", "imagem Salmos 23:3"))
    image = graph_api.sent("image")[-1]["image"]
    png, mime = graph_api.media[image["id"]]
    assert mime == "image/png" and Image.open(io.BytesIO(png)).size == (1080, 1920)
    assert image["caption"].startswith(f"“{mini_text('PSA', 23, 3)}” (Salmos 23:3)")
    await deliver(client, channel, whatsapp_delivery("5511977775555", "wamid.D5", "parar"))
    assert core.memory.subscriptions.get("whatsapp", "5511977775555") is None


# -- the card itself ----------------------------------------------------------------------------------

def test_cards_have_every_portuguese_letter_and_refuse_what_would_not_be_legible():
    from fontTools.ttLib import TTFont

    from bot.card import _font_file

    letters = "áàâãéêíóôõúüçÁÀÂÃÉÊÍÓÔÕÚÜÇ“”—"
    for name in ("DejaVuSerif.ttf", "DejaVuSans-Bold.ttf", "DejaVuSans.ttf"):
        cmap = TTFont(_font_file(name)).getBestCmap()
        assert all(ord(c) in cmap for c in letters), name
    plain = Image.open(io.BytesIO(render(Card("a e i o u c", "Salmos 1:1", "Teste"))))
    accented = Image.open(io.BytesIO(render(Card("ã é í ó ú ç", "Salmos 1:1", "Teste"))))
    assert plain.tobytes() != accented.tobytes()
    with pytest.raises(CardTooLong):
        render(Card("palavra " * 100, "Salmos 119", "Teste"))
