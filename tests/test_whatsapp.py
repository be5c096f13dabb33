"""WhatsApp Cloud API channel: signed webhooks on our aiohttp server, replies through a loopback Graph API."""

from __future__ import annotations

import hashlib
import hmac
import json

import httpx
import pytest

from bot import commands, messages, texts
from bot.llm.ollama import OllamaProvider
from tests.conftest import deliver
from tests.fakes.llm import FORGING
from tests.fakes.whatsapp import APP_SECRET, VERIFY_TOKEN, FakeGraphAPI, signed, whatsapp_delivery

SECRET, VERIFY = APP_SECRET, VERIFY_TOKEN


async def _status(full: bool):
    return "índice: pronto"


@pytest.fixture()
async def whatsapp(make_whatsapp):
    return await make_whatsapp(status=_status)


async def test_verification_handshake(whatsapp):
    _, client = whatsapp
    ok = await client.get("/whatsapp/webhook", params={"hub.mode": "subscribe", "hub.verify_token": VERIFY,
                                                       "hub.challenge": "1158201444"})
    assert ok.status == 200 and await ok.text() == "1158201444"
    bad = await client.get("/whatsapp/webhook", params={"hub.mode": "subscribe", "hub.verify_token": "x",
                                                        "hub.challenge": "1"})
    assert bad.status == 403


async def test_bad_signature_and_malformed_bodies(whatsapp, graph_api):
    channel, client = whatsapp
    payload = whatsapp_delivery("5511988887777", "wamid.A1", "a formiga e o preguiçoso")
    assert (await deliver(client, channel, payload, secret="outro-segredo")).status == 403
    body, headers = signed(payload)
    assert (await client.post("/whatsapp/webhook", data=body)).status == 403  # no signature at all
    tampered = body.replace(b"formiga", b"FORMIGA")
    assert (await client.post("/whatsapp/webhook", data=tampered, headers=headers)).status == 403
    junk, junk_headers = b"{not json", {"X-Hub-Signature-256": "sha256=" + hmac.new(
        SECRET.encode(), b"{not json", hashlib.sha256).hexdigest()}
    assert (await client.post("/whatsapp/webhook", data=junk, headers=junk_headers)).status == 400
    assert graph_api.posts == []


async def test_full_answer_with_button_then_sources_on_press(whatsapp, graph_api):
    channel, client = whatsapp
    response = await deliver(client, channel, whatsapp_delivery("5511988887777", "wamid.A2", "o que diz Salmo 23:1?"))
    assert response.status == 200
    read = [p for p in graph_api.posts if p.get("status") == "read"]
    assert read == [{"messaging_product": "whatsapp", "status": "read", "message_id": "wamid.A2",
                     "typing_indicator": {"type": "text"}, "_ok": True}]
    text, button = graph_api.sent()
    assert text["type"] == "text" and "Salmos 23:1" in text["text"]["body"] and text["to"] == "5511988887777"
    assert button["interactive"]["action"]["buttons"] == [
        {"type": "reply", "reply": {"id": "fontes", "title": "📖 Ver fontes"}},
        {"type": "reply", "reply": {"id": "imagem:PSA.23.1", "title": "🖼️ Imagem"}}]
    press = whatsapp_delivery("5511988887777", "wamid.A3", type="interactive", interactive={
        "type": "button_reply", "button_reply": {"id": "fontes", "title": "📖 Ver fontes"}})
    await deliver(client, channel, press)
    sources = graph_api.sent("text")[-1]["text"]["body"]
    assert sources.startswith("*Salmos 23:1* O Senhor cuida de mim")


async def test_duplicate_delivery_and_status_callbacks(whatsapp, graph_api):
    channel, client = whatsapp
    payload = whatsapp_delivery("5511977776666", "wamid.B1", "ajuda")
    await deliver(client, channel, payload)
    await deliver(client, channel, payload)  # Meta delivers at least once
    statuses = {"object": "whatsapp_business_account", "entry": [{"id": "W", "changes": [{"field": "messages",
                "value": {"messaging_product": "whatsapp", "statuses": [{"id": "wamid.out.1", "status": "read",
                                                                          "recipient_id": "5511977776666"}]}}]}]}
    assert (await deliver(client, channel, statuses)).status == 200
    assert [p["text"]["body"] for p in graph_api.sent("text")] == [commands.HELP_WHATSAPP]


async def test_non_text_and_command_words(whatsapp, graph_api):
    channel, client = whatsapp
    await deliver(client, channel, whatsapp_delivery("5511966665555", "wamid.C1", type="audio",
                                                     audio={"id": "m1", "mime_type": "audio/ogg"}))
    await deliver(client, channel, whatsapp_delivery("5511966665555", "wamid.C2", "Fontes"))
    await deliver(client, channel, whatsapp_delivery("5511966665555", "wamid.C3", "status"))
    await deliver(client, channel, whatsapp_delivery("5511966665555", "wamid.C4", "apagar"))
    bodies = [p["text"]["body"] if p["type"] == "text" else p["interactive"]["body"]["text"] for p in graph_api.sent()]
    assert bodies == [messages.ONLY_TEXT, messages.NO_SOURCES, "índice: pronto", messages.ERASE_CONFIRM]
    await deliver(client, channel, whatsapp_delivery("5511966665555", "wamid.C5", type="interactive", interactive={
        "type": "button_reply", "button_reply": {"id": "apagar:sim", "title": "Sim, apagar tudo"}}))
    assert graph_api.sent("text")[-1]["text"]["body"] == messages.ERASED
    assert channel.conversation.memory.window("5511966665555") == []


async def test_graph_errors_are_retried_or_logged_without_the_token(whatsapp, graph_api, caplog):
    channel, client = whatsapp
    graph_api.failures = [(429, {"message": "(#130429) Rate limit hit", "type": "OAuthException", "code": 130429},
                           {"Retry-After": "1"})]
    await deliver(client, channel, whatsapp_delivery("5511955554444", "wamid.D1", "ajuda"))
    assert graph_api.sent("text")[-1]["text"]["body"] == commands.HELP_WHATSAPP
    graph_api.failures = [(400, {"message": "Re-engagement message", "type": "OAuthException", "code": 131047}, {})]
    await deliver(client, channel, whatsapp_delivery("5511955554444", "wamid.D2", "ajuda"))
    assert "131047" in caplog.text and FakeGraphAPI.TOKEN not in caplog.text
    graph_api.failures = [(503, {"message": "Service unavailable", "code": 2}, {})] * 3
    await deliver(client, channel, whatsapp_delivery("5511955554444", "wamid.D3", "ajuda"))
    assert "HTTP 503" in caplog.text
    await deliver(client, channel, whatsapp_delivery("5511955554444", "wamid.D4", "ajuda"))
    assert graph_api.sent("text")[-1]["text"]["body"] == commands.HELP_WHATSAPP  # and it goes on


async def test_bodies_over_3_mb_are_refused(whatsapp):
    channel, client = whatsapp
    body = b'{"entry": "' + b"x" * (3 * 1024 * 1024) + b'"}'
    signature = "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()
    response = await client.post("/whatsapp/webhook", data=body, headers={"X-Hub-Signature-256": signature})
    assert response.status == 413


@pytest.mark.parametrize("payload", [
    {"entry": ["x"]},
    {"entry": "x"},
    {"entry": [{"changes": [{"value": {"messages": [{"from": ["5511"], "id": "wamid.H1", "type": "text"}]}}]}]},
    {"entry": [{"changes": [{"value": {"messages": ["texto"]}}]}]},
    {"entry": [{"changes": [{"value": "x"}]}]},
    {"entry": [{"changes": [{"value": {"messages": [{"from": "5511", "id": "wamid.H2", "type": "text",
                                                     "text": "não é objeto"}]}}]}]},
    [1, 2],
])
async def test_hostile_shapes_get_a_400_never_a_500(whatsapp, graph_api, payload):
    channel, client = whatsapp
    body = json.dumps(payload).encode()
    headers = {"X-Hub-Signature-256": "sha256=" + hmac.new(SECRET.encode(), body, hashlib.sha256).hexdigest()}
    response = await client.post("/whatsapp/webhook", data=body, headers=headers)
    assert response.status == 400 and "Traceback" not in await response.text()
    assert graph_api.posts == [] and channel.conversation.inbox.backlog()[0] == 0


async def test_a_non_ascii_signature_is_refused_with_403(whatsapp):
    channel, client = whatsapp
    body, _ = signed(whatsapp_delivery("5511944443333", "wamid.E1", "oi"))
    response = await client.post("/whatsapp/webhook", data=body,
                                 headers={"X-Hub-Signature-256": "sha256=çççç".encode().decode("latin-1")})
    assert response.status == 403


async def test_misquotes_contacts_and_directives_never_reach_whatsapp(make_whatsapp, graph_api, llm_server):
    llm_server.answer(FORGING)
    async with httpx.AsyncClient() as http:
        channel, client = await make_whatsapp(OllamaProvider(http, llm_server.url, "qwen2.5:1.5b"),
                                              crisis_contacts="CVV 188")
        await deliver(client, channel, whatsapp_delivery("5511977776666", "wamid.F1", "tenho medo, em quem confiar?"))
    body = graph_api.sent("text")[0]["text"]["body"]
    assert "Quando sinto temor, eu confio em ti" in body and "sofrer" not in body
    assert "0800" not in body and "ajuda@falso.org" not in body and "Suspenda" not in body
    assert texts.MEDICAL in body and body.endswith("Ele está contigo.")


async def test_the_typing_indicator_stays_on_until_a_slow_answer_is_sent(make_whatsapp, graph_api, llm_server):
    llm_server.answer({"chunks": ["Confie nele (Salmos 56:1)."], "delay": 1.0})
    async with httpx.AsyncClient() as http:
        channel, client = await make_whatsapp(OllamaProvider(http, llm_server.url, "qwen2.5:1.5b"),
                                              typing_every=0.25)  # WhatsApp's indicator lasts ~25 s
        await deliver(client, channel, whatsapp_delivery("5511966665555", "wamid.T1", "tenho medo, em quem confiar?"))
    kinds = ["typing" if p.get("typing_indicator") else p.get("type") for p in graph_api.posts]
    assert kinds.count("typing") >= 4  # renewed while the model was still writing
    assert kinds.index("text") > max(i for i, k in enumerate(kinds) if k == "typing")  # and never after the answer
