"""Answers that appear as they form: Telegram drafts (sendMessageDraft) against the loopback Bot API,
with a slow streaming model on the loopback LLM server."""

from __future__ import annotations

import asyncio
import logging
import re
from itertools import accumulate

import httpx
import pytest

from bot import texts
from bot.channels.drafts import TelegramDraft
from bot.llm.ollama import OllamaProvider
from tests.conftest import started, stopped
from tests.fakes.llm import FORGING

# a four-paragraph answer, streamed a few words at a time, holding every kind of forgery in its paragraphs
PARAGRAPHS = [
    "Sinto muito pelo medo que você carrega. Deus está perto [FONTE 1] e ouve você.",
    "Como diz Salmos 56:1: “Quem confia nunca mais vai sofrer nem chorar.” Ele não se cansa de você.",
    "Veja também Mateus 29:3, que fala de coragem. E Salmos 56:2 lembra: em Deus confio.",
    "Que a paz de Deus guarde o seu coração hoje e sempre. Estou orando por você.",
]


def chunks(text: str, size: int = 3) -> list[str]:
    pieces = re.findall(r"\S+\s*", text)
    return ["".join(pieces[i:i + size]) for i in range(0, len(pieces), size)]


def streamed(pace: float) -> dict:
    return {"chunks": chunks("\n\n".join(PARAGRAPHS)), "pace": pace}


@pytest.fixture()
async def ollama(llm_server):
    async with httpx.AsyncClient(timeout=10) as client:
        yield OllamaProvider(client, llm_server.url, "qwen2.5:1.5b")


def plain(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html).replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")


async def test_the_first_paragraph_shows_early_and_drafts_hold_only_validated_text(make_channel, bot_api,
                                                                                   llm_server, ollama):
    llm_server.answer(streamed(pace=0.06))
    channel = await started(make_channel(ollama))
    try:
        asked = asyncio.get_running_loop().time()
        bot_api.push(bot_api.message(601, "tenho medo, em quem confiar?"))
        answer, _sources = await bot_api.wait_for_delivered(2, chat_id=601, timeout=60)
        final_at = bot_api.times("sendMessage", 601)[0]
        drafts = bot_api.drafts(601)
        assert drafts[0][1] == ""  # the "Pensando…" placeholder, at once
        shown = [(t, plain(text)) for t, text in drafts if text]
        assert len(shown) >= 2
        # the first paragraph is on screen while the model is still writing: before it starts the last one
        so_far = accumulate(chunk for _, chunk in llm_server.written)
        last_begun = next(t for (t, _), text in zip(llm_server.written, so_far) if PARAGRAPHS[-1][:9] in text)
        assert shown[0][0] < last_begun, (shown[0][0] - asked, last_begun - asked, final_at - asked)
        final = plain(answer["text"])
        final_paragraphs = final.split("\n\n")
        for _, text in shown:
            assert "FONTE" not in text and "Mateus 29" not in text  # markers and forged references
            assert "nunca mais vai sofrer" not in text  # the misquotation
            assert all(p in final_paragraphs for p in text.split("\n\n"))  # whole, validated paragraphs only
        assert "Quando sinto temor, eu confio em ti" in final and "Estou orando por você." in final
        assert shown[-1][0] < final_at
    finally:
        await stopped(channel)


async def test_a_server_that_refuses_drafts_gets_typing_and_one_log_line(make_channel, bot_api, llm_server,
                                                                         ollama, caplog):
    bot_api.refuse_drafts = True
    llm_server.answer(streamed(pace=0.0))
    channel = await started(make_channel(ollama))
    try:
        with caplog.at_level(logging.WARNING, logger="pastor.telegram"):
            bot_api.push(bot_api.message(602, "tenho medo, em quem confiar?"))
            await bot_api.wait_for_delivered(2, chat_id=602)
            bot_api.push(bot_api.message(602, "e como vencer o medo?"))
            await bot_api.wait_for_delivered(4, chat_id=602)
        assert len(bot_api.sent("sendMessageDraft", 602)) == 1  # refused once, never tried again
        assert len(bot_api.sent("sendChatAction", 602)) >= 2
        assert len([r for r in caplog.records if "sendMessageDraft" in r.getMessage()]) == 1
    finally:
        await stopped(channel)


async def test_groups_get_typing_not_drafts(make_channel, bot_api, llm_server, ollama):
    llm_server.answer(streamed(pace=0.0))
    channel = await started(make_channel(ollama))
    try:
        bot_api.push(bot_api.message(-603, "@pastor_online_bot tenho medo, em quem confiar?", chat_type="group"))
        await bot_api.wait_for_delivered(2, chat_id=-603)
        assert bot_api.sent("sendMessageDraft") == [] and bot_api.sent("sendChatAction", -603)
    finally:
        await stopped(channel)


async def test_draft_429s_and_errors_never_hold_back_the_answer(make_channel, bot_api, llm_server, ollama):
    too_many = {"error_code": 429, "description": "Too Many Requests: retry after 5", "parameters": {"retry_after": 5}}
    bot_api.failures["sendMessageDraft"] = [too_many] * 3 + [{"error_code": 500, "description": "Internal"}]
    llm_server.answer(streamed(pace=0.01))
    channel = await started(make_channel(ollama))
    try:
        bot_api.push(bot_api.message(604, "tenho medo, em quem confiar?"))
        answer, _ = await bot_api.wait_for_delivered(2, chat_id=604, timeout=20)
        assert "Estou orando por você." in answer["text"]
        assert channel.drafts  # a 429 or a 500 is not a refusal
    finally:
        await stopped(channel)


async def test_a_draft_is_refreshed_before_telegram_lets_it_expire(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        draft = TelegramDraft(channel.bot, "605", 7, refused=lambda e: None, fallback=None, refresh_every=0.2)
        async with draft as show:
            await show("O Senhor é contigo (Salmos 23:1).")
            await asyncio.sleep(0.7)
        texts = [text for _, text in bot_api.drafts(605)]
        assert texts[0] == "" and texts.count("O Senhor é contigo (Salmos 23:1).") >= 3
    finally:
        await stopped(channel)


async def test_the_final_telegram_message_keeps_every_promise_too(make_channel, bot_api, llm_server, ollama):
    llm_server.answer(FORGING)
    channel = await started(make_channel(ollama))
    try:
        bot_api.push(bot_api.message(606, "tenho medo, em quem confiar?"))
        answer, _ = await bot_api.wait_for_delivered(2, chat_id=606)
        shown = [plain(text) for _, text in bot_api.drafts(606)] + [plain(answer["text"])]
        for text in shown:
            assert "sofrer" not in text and "0800" not in text and "falso.org" not in text and "Suspenda" not in text
        assert texts.MEDICAL in shown[-1] and "Quando sinto temor, eu confio em ti" in shown[-1]
    finally:
        await stopped(channel)
