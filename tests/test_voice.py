"""Voice notes: a loopback Bot API (getFile, file server), a loopback Graph API (media lookup, authenticated
download) and a loopback OpenAI-compatible transcription endpoint that checks the multipart fields."""

from __future__ import annotations

import logging
import sqlite3

import httpx
import pytest

from bot import messages
from bot.metrics import Metrics
from bot.voice.notes import MAX_BYTES, VoiceNotes, intelligible
from bot.voice.transcription import Audio, Transcriber, TranscriptionError
from tests.conftest import deliver, started, stopped
from tests.fakes.audio import ogg_opus
from tests.fakes.transcription import FakeTranscriptionServer
from tests.fakes.whatsapp import whatsapp_audio, whatsapp_delivery

SAID = "Estou com muito medo, em quem posso confiar?"


@pytest.fixture()
async def stt():
    async with FakeTranscriptionServer() as server:
        yield server


@pytest.fixture()
async def voice(stt):
    async with httpx.AsyncClient() as http:
        transcriber = Transcriber(http, "openai", f"{stt.url}/v1", FakeTranscriptionServer.KEY, "whisper-1")
        yield VoiceNotes(transcriber, max_seconds=180, metrics=Metrics())


# -- the adapter --------------------------------------------------------------------------------------
async def test_the_request_is_the_documented_multipart_form(stt, voice):
    stt.answer({"text": f"  {SAID}  "})
    text, took = await voice.transcriber.transcribe(Audio(b"OggS-bytes", "voz.ogg", "audio/ogg"))
    assert text == SAID and took >= 0
    (request,) = stt.requests
    assert request["fields"] == {"model": "whisper-1", "language": "pt", "response_format": "json"}
    assert request["file"] == {"filename": "voz.ogg", "content_type": "audio/ogg", "data": b"OggS-bytes"}


@pytest.mark.parametrize("status, kind", [(401, "erro HTTP"), (429, "erro HTTP"), (500, "erro HTTP")])
async def test_provider_errors_are_clear_and_never_hold_the_key(stt, voice, status, kind):
    stt.answer({"status": status, "body": {"error": {"message": "Rate limit reached for whisper-1"}}})
    with pytest.raises(TranscriptionError) as caught:
        await voice.transcriber.transcribe(Audio(b"x", "voz.ogg", "audio/ogg"))
    assert caught.value.kind == kind and caught.value.status == status
    assert FakeTranscriptionServer.KEY not in str(caught.value)


@pytest.mark.parametrize("text, ok", [("", False), ("...", False), ("Legendas pela comunidade Amara.org", False),
                                      ("Obrigado por assistir!", False), ("Preciso de oração", True)])
def test_what_recognisers_write_for_silence_is_not_understood(text, ok):
    assert intelligible(text) is ok


# -- Telegram --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("kind", ["voice", "audio", "video_note"])
async def test_a_telegram_voice_note_gets_what_was_heard_the_answer_and_the_sources(make_channel, bot_api, stt,
                                                                                    voice, kind):
    stt.answer({"text": SAID})
    channel = await started(make_channel(voice=voice))
    try:
        bot_api.push(bot_api.voice(701, f"f-{kind}", ogg_opus(6), seconds=6, kind=kind))
        heard, answer, sources = await bot_api.wait_for_delivered(3, chat_id=701)
        assert heard["text"] == messages.VOICE_HEARD.format(text=SAID)
        assert "Salmos 56" in answer["text"] and "blockquote" in sources["text"]
        assert stt.requests[0]["file"]["data"] == ogg_opus(6)  # the bytes the file server held
        assert stt.requests[0]["file"]["content_type"] == {"voice": "audio/ogg", "audio": "audio/mpeg",
                                                            "video_note": "video/mp4"}[kind]
    finally:
        await stopped(channel)


async def test_an_over_long_note_is_refused_kindly_without_download_or_transcription(make_channel, bot_api, stt,
                                                                                     voice):
    channel = await started(make_channel(voice=voice))
    try:
        bot_api.push(bot_api.voice(702, "long", ogg_opus(200), seconds=200))
        (reply,) = await bot_api.wait_for_delivered(1, chat_id=702)
        assert reply["text"] == messages.VOICE_TOO_LONG.format(length="; o seu tem 200", limit=180)
        assert bot_api.sent("getFile") == [] and stt.requests == []
    finally:
        await stopped(channel)


@pytest.mark.parametrize("behaviour, notice", [({"text": "   "}, messages.VOICE_EMPTY),
                                               ({"text": "Obrigado por assistir."}, messages.VOICE_EMPTY),
                                               ({"status": 503}, messages.VOICE_FAILED)])
async def test_empty_transcripts_and_provider_errors_get_a_kind_reply(make_channel, bot_api, stt, voice, caplog,
                                                                      behaviour, notice):
    stt.answer(behaviour)
    channel = await started(make_channel(voice=voice))
    try:
        with caplog.at_level(logging.INFO):
            bot_api.push(bot_api.voice(703, "quiet", ogg_opus(3), seconds=3))
            (reply,) = await bot_api.wait_for_delivered(1, chat_id=703)
        assert reply["text"] == notice
        assert FakeTranscriptionServer.KEY not in caplog.text
        if "status" in behaviour:
            assert "transcrição falhou" in caplog.text
            assert b'pastor_transcriptions_total{provider="openai",result="error"} 1.0' in voice.metrics.render()
    finally:
        await stopped(channel)


async def test_without_a_provider_a_voice_note_gets_the_only_text_reply(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.voice(704, "nov", ogg_opus(3), seconds=3))
        (reply,) = await bot_api.wait_for_delivered(1, chat_id=704)
        assert reply["text"] == messages.ONLY_TEXT and bot_api.sent("getFile") == []
    finally:
        await stopped(channel)


async def test_a_file_the_bot_api_will_not_hand_over_gets_a_kind_reply(make_channel, bot_api, stt, voice):
    channel = await started(make_channel(voice=voice))
    try:
        update = bot_api.voice(705, "gone", ogg_opus(3), seconds=3)
        del bot_api.files["gone"]  # expired: getFile answers 400
        bot_api.push(update)
        (reply,) = await bot_api.wait_for_delivered(1, chat_id=705)
        assert reply["text"] == messages.VOICE_UNAVAILABLE and stt.requests == []
    finally:
        await stopped(channel)


async def test_an_audio_over_the_size_cap_is_refused_whatever_length_it_claims(make_channel, bot_api, stt, voice):
    channel = await started(make_channel(voice=voice))
    try:
        bot_api.push(bot_api.voice(706, "huge", ogg_opus(10) + bytes(MAX_BYTES), seconds=10))
        (reply,) = await bot_api.wait_for_delivered(1, chat_id=706)
        assert reply["text"] == messages.VOICE_TOO_LONG.format(length="", limit=180) and stt.requests == []
        assert b'pastor_transcriptions_total{provider="openai",result="too_long"} 1.0' in voice.metrics.render()
    finally:
        await stopped(channel)


async def test_audio_is_never_stored_and_the_transcript_goes_with_apagar(make_channel, bot_api, stt, voice, tmp_path):
    stt.answer({"text": SAID})
    channel = await started(make_channel(voice=voice))
    try:
        bot_api.push(bot_api.voice(706, "kept", ogg_opus(4), seconds=4))
        await bot_api.wait_for_delivered(3, chat_id=706)
        db = (tmp_path / "pastor.db").read_bytes() + b"".join(p.read_bytes() for p in tmp_path.glob("pastor.db-*"))
        assert b"OpusHead" not in db  # the audio itself never reached the database
        assert [t.text for t in channel.conversation.memory.window("706")][0] == SAID  # the transcript, like text
        bot_api.push(bot_api.callback(706, "apagar:sim"))
        await bot_api.wait_for(1, "editMessageText", chat_id=706)
        with sqlite3.connect(tmp_path / "pastor.db") as connection:
            dump = "\n".join(connection.iterdump())
        assert "muito medo" not in dump
    finally:
        await stopped(channel)


# -- WhatsApp -----------------------------------------------------------------------------------------------
@pytest.fixture()
async def whatsapp_voice(make_whatsapp, voice):
    return await make_whatsapp(voice=voice)


async def test_a_whatsapp_audio_is_fetched_with_the_token_heard_and_answered(whatsapp_voice, graph_api, stt):
    channel, client = whatsapp_voice
    stt.answer({"text": SAID})
    graph_api.media["m-1"] = (ogg_opus(8), "audio/ogg; codecs=opus")
    response = await deliver(client, channel, whatsapp_audio("5511955554444", "wamid.V1", "m-1"))
    assert response.status == 200 and graph_api.downloads == ["m-1"]
    heard, answer = graph_api.sent("text")[:2]
    assert heard["text"]["body"] == messages.VOICE_HEARD.format(text=SAID)
    assert "Salmos 56" in answer["text"]["body"]
    assert graph_api.sent("interactive")  # the sources button, as for text
    assert stt.requests[0]["file"]["content_type"] == "audio/ogg" and stt.requests[0]["fields"]["language"] == "pt"


async def test_an_over_long_whatsapp_audio_is_never_sent_for_transcription(whatsapp_voice, graph_api, stt):
    channel, client = whatsapp_voice
    graph_api.media["m-2"] = (ogg_opus(240), "audio/ogg; codecs=opus")  # WhatsApp does not say the length
    await deliver(client, channel, whatsapp_audio("5511955554444", "wamid.V2", "m-2"))
    (reply,) = graph_api.sent("text")
    assert reply["text"]["body"] == messages.VOICE_TOO_LONG.format(length="; o seu tem 240", limit=180)
    assert stt.requests == []


async def test_a_whatsapp_audio_without_a_media_id_gets_the_could_not_fetch_reply(whatsapp_voice, graph_api, stt):
    channel, client = whatsapp_voice
    await deliver(client, channel, whatsapp_delivery("5511955554444", "wamid.V4", type="audio",
                                                     audio={"id": "", "mime_type": "audio/ogg; codecs=opus"}))
    (reply,) = graph_api.sent("text")
    assert reply["text"]["body"] == messages.VOICE_UNAVAILABLE and graph_api.downloads == [] and stt.requests == []


async def test_other_whatsapp_media_still_get_the_only_text_reply(whatsapp_voice, graph_api, stt):
    channel, client = whatsapp_voice
    await deliver(client, channel, whatsapp_delivery("5511955554444", "wamid.V3", type="sticker",
                                                     sticker={"id": "s-1", "mime_type": "image/webp"}))
    assert graph_api.sent("text")[0]["text"]["body"] == messages.ONLY_TEXT and stt.requests == []


# -- configuration --------------------------------------------------------------------------------------------
def test_the_transcriber_follows_the_settings_and_never_guesses(monkeypatch):
    from bot.settings import Settings
    from bot.voice.transcription import TranscriberConfigError, create_transcriber

    for name in ("OPENAI_API_KEY", "GROQ_API_KEY", "TRANSCRIPTION_API_KEY", "TRANSCRIPTION_BASE_URL",
                 "TRANSCRIPTION_MODEL"):
        monkeypatch.delenv(name, raising=False)
    client = httpx.AsyncClient()

    def make(**env):
        return create_transcriber(Settings(_env_file=None, **env), client)

    assert make(transcription_provider="none") is None
    with pytest.raises(TranscriberConfigError, match="TRANSCRIPTION_API_KEY"):
        make(transcription_provider="groq")
    groq = make(transcription_provider="groq", groq_api_key="gsk-llm-key")  # the LLM key serves by default
    assert (groq.base_url, groq.model) == ("https://api.groq.com/openai/v1", "whisper-large-v3-turbo")
    assert groq._headers == {"Authorization": "Bearer gsk-llm-key"}
    own = make(transcription_provider="openai", transcription_base_url="http://speaches:8000/v1",
               transcription_model="Systran/faster-whisper-small")  # a church server without a key
    assert (own.base_url, own.model, own._headers) == ("http://speaches:8000/v1", "Systran/faster-whisper-small", {})


async def test_status_says_who_transcribes_and_whether_it_answers(stt, voice):
    from types import SimpleNamespace

    from bot.status import _voice_line

    assert await _voice_line(SimpleNamespace(voice=voice)) == "áudios: openai · whisper-1 · respondeu agora · até 180 s"
    voice.transcriber._headers = {"Authorization": "Bearer chave-errada"}
    assert "NÃO respondeu (erro HTTP, HTTP 401)" in await _voice_line(SimpleNamespace(voice=voice))
    assert "TRANSCRIPTION_PROVIDER=none" in await _voice_line(SimpleNamespace(voice=None))
