"""The care team in the loop, end to end: offer, alert, human replies relayed, forwarding, closing, restarts."""

from __future__ import annotations

import asyncio
import json
import signal
import time

import pytest

from bot import messages
from bot.care.cases import OPEN, Cases, mentioned_case, valid_code
from bot.care.team import Team, asks_for_a_person
from bot.commands import whatsapp_command as command_of
from bot.safety.care import CrisisCare
from bot.store.memory import Memory
from tests.conftest import deliver, started, stopped
from tests.fakes.whatsapp import whatsapp_delivery
from tests.servers import free_port

pytestmark = pytest.mark.usefixtures("crisis_cache")  # `python -m bot` finds its crisis model trained

TEAM = "-900"  # the care team's Telegram group
PERSON = 601


def _offer_code(bot_api, chat_id) -> str:
    """The case code under the offer's "yes" button."""
    offers = [m for m in bot_api.sent(chat_id=chat_id) if "equipe:sim:" in str(m.get("reply_markup", ""))]
    assert offers, bot_api.sent(chat_id=chat_id)
    buttons = json.loads(offers[-1]["reply_markup"])["inline_keyboard"][0]
    assert [b["text"] for b in buttons] == [messages.CARE_OFFER_YES, messages.CARE_OFFER_NO]
    assert offers[-1]["text"] == messages.CARE_OFFER
    return buttons[0]["callback_data"].rsplit(":", 1)[1]


def _team_says(bot_api, text: str, user_id: int = 77, reply_to: str | None = None) -> dict:
    update = bot_api.message(int(TEAM), text, chat_type="supergroup", user_id=user_id)
    if reply_to is not None:
        update["message"]["reply_to_message"] = {"message_id": 1, "date": 1796000000,
                                                 "chat": update["message"]["chat"], "from": bot_api.BOT,
                                                 "text": reply_to}
    return bot_api.push(update)


async def _until(condition, timeout: float = 20) -> None:
    deadline = asyncio.get_running_loop().time() + timeout
    while not condition():
        assert asyncio.get_running_loop().time() < deadline, "tempo esgotado"
        await asyncio.sleep(0.02)


def _texts(bot_api, chat_id) -> list[str]:
    return [m["text"] for m in bot_api.sent(chat_id=chat_id)]


def a_minute_later() -> float:
    """The clock of a process started a minute later: the deliveries postponed before the stop are due."""
    return time.time() + 60


def _metric(core, name: str, **labels) -> float:
    return core.metrics.registry.get_sample_value(name, labels) or 0.0


async def test_telegram_offer_alert_reply_forward_and_close(make_channel, bot_api):
    channel = await started(make_channel(care_team=Team(telegram_chat=TEAM)))
    core, memory = channel.conversation, channel.conversation.memory
    try:
        bot_api.push(bot_api.message(PERSON, "a formiga e o preguiçoso"))
        await bot_api.wait_for(2, chat_id=PERSON)
        bot_api.push(bot_api.message(PERSON, "quero me matar"))
        await _until(lambda: any("equipe:sim:" in str(m.get("reply_markup", "")) for m in bot_api.sent(chat_id=PERSON)))
        code = _offer_code(bot_api, PERSON)
        assert bot_api.sent(chat_id=TEAM) == []  # nothing reaches the team before the person says yes
        menus = {str(json.loads(m.get("scope", "{}")).get("chat_id", "")):
                 [c["command"] for c in json.loads(m["commands"])] for m in bot_api.sent("setMyCommands")}
        assert menus[""][-1] == "apagar" and menus[TEAM] == ["responder", "encerrar", "casos"]

        bot_api.push(bot_api.callback(PERSON, f"equipe:sim:{code}"))
        edited = (await bot_api.wait_for(1, "editMessageText"))[0]
        assert edited["text"].startswith("Pronto: avisei a equipe pastoral")
        alert = (await bot_api.wait_for(1, chat_id=TEAM))[0]["text"]
        assert f"caso {code}" in alert and "Telegram" in alert and "risco iminente" in alert
        assert "• quero me matar" in alert and "• a formiga e o preguiçoso" in alert
        assert "Senhor" not in alert  # the person's words only, never the bot's answers
        assert mentioned_case(alert) == code

        memory.care.enter(str(PERSON), "suicide-direct", "imminent")  # the bot's care mode, until a human takes over
        before = len(bot_api.sent(chat_id=PERSON))
        _team_says(bot_api, f"/responder {code.lower()} Olá, sou a Marta, da equipe pastoral. Estou aqui.")
        await bot_api.wait_for(before + 1, chat_id=PERSON)
        human = bot_api.sent(chat_id=PERSON)[-1]["text"]
        assert human == messages.CARE_HUMAN.format(text="Olá, sou a Marta, da equipe pastoral. Estou aqui.")
        assert (await bot_api.wait_for(2, chat_id=TEAM))[1]["text"] == messages.TEAM_SENT.format(code=code)
        assert memory.care.get(str(PERSON)) is None

        before = len(bot_api.sent(chat_id=PERSON))
        bot_api.push(bot_api.message(PERSON, "obrigada, a formiga e o preguiçoso me lembram de seguir"))
        forwarded = (await bot_api.wait_for(3, chat_id=TEAM))[2]["text"]
        assert forwarded.startswith(f"💬 Caso {code}") and "me lembram de seguir" in forwarded
        await bot_api.wait_for(before + 2, chat_id=PERSON)  # the bot still answers the person (and the sources)
        assert "Provérbios" in bot_api.sent(chat_id=PERSON)[-1]["text"]

        before = len(bot_api.sent(chat_id=PERSON))
        _team_says(bot_api, "Estamos orando por você.", reply_to=forwarded)  # a reply to a case message
        await bot_api.wait_for(before + 1, chat_id=PERSON)
        assert bot_api.sent(chat_id=PERSON)[-1]["text"] == messages.CARE_HUMAN.format(text="Estamos orando por você.")

        _team_says(bot_api, f"/encerrar {code}")
        await bot_api.wait_for(before + 2, chat_id=PERSON)
        assert bot_api.sent(chat_id=PERSON)[-1]["text"] == messages.CARE_CLOSED.format(command="/pastor")
        await _until(lambda: messages.TEAM_CLOSED.format(code=code) in _texts(bot_api, TEAM))
        bot_api.push(bot_api.message(PERSON, "o que diz Salmo 23:1?"))
        await bot_api.wait_for(before + 4, chat_id=PERSON)
        _team_says(bot_api, f"/responder {code} mais uma")
        await _until(lambda: messages.TEAM_NOT_OPEN.format(code=code) in _texts(bot_api, TEAM))
        assert len(bot_api.sent(chat_id=TEAM)) == 6  # alert, sent, forward, sent, closed, not open: no forward
        assert memory.cases.get(code).state == "closed"

        for event in ("offered", "accepted", "alerted", "answered", "closed"):
            assert _metric(core, "pastor_care_handoffs_total", channel="telegram", event=event) == 1, event
        assert _metric(core, "pastor_care_first_reply_seconds_count", channel="telegram") == 1
    finally:
        await stopped(channel)


async def test_telegram_declined_offer_and_stray_team_messages(make_channel, bot_api):
    channel = await started(make_channel(care_team=Team(telegram_chat=TEAM)))
    try:
        bot_api.push(bot_api.message(602, "quero me matar"))
        await _until(lambda: any("equipe:" in str(m.get("reply_markup", "")) for m in bot_api.sent(chat_id=602)))
        code = _offer_code(bot_api, 602)
        bot_api.push(bot_api.callback(602, f"equipe:nao:{code}"))
        edited = (await bot_api.wait_for(1, "editMessageText"))[0]
        assert edited["text"] == messages.CARE_DECLINED.format(command="/pastor")
        bot_api.push(bot_api.message(602, "quero me matar"))  # asked again at once: no second offer
        opening = CrisisCare().kind("suicide-direct").opening[:40]
        await _until(lambda: sum(t.startswith(opening) for t in _texts(bot_api, 602)) == 2)
        await asyncio.sleep(0.3)
        assert sum("equipe:" in str(m.get("reply_markup", "")) for m in bot_api.sent(chat_id=602)) == 1
        _team_says(bot_api, "/responder ZZZZ olá")  # not a code
        _team_says(bot_api, "/casos")
        _team_says(bot_api, "@pastor_online_bot bom dia")
        team = await bot_api.wait_for(3, chat_id=TEAM)
        assert team[0]["text"].startswith("Não encontrei o caso ZZZZ")
        assert team[1]["text"] == messages.TEAM_NO_CASES
        assert team[2]["text"].startswith("Este é o chat da equipe pastoral")
        bot_api.push(bot_api.message(-610, "/pastor", chat_type="group", user_id=9))  # not in a group's hearing
        assert (await bot_api.wait_for(1, chat_id=-610))[0]["text"] == messages.CARE_PRIVATE_ONLY
        assert len(bot_api.sent(chat_id=TEAM)) == 3
    finally:
        await stopped(channel)


async def test_no_team_is_said_plainly_with_the_contacts(make_channel, bot_api):
    channel = await started(make_channel())
    try:
        bot_api.push(bot_api.message(603, "/pastor"))
        bot_api.push(bot_api.message(603, "posso falar com alguém de verdade?"))
        first, second = await bot_api.wait_for(2, chat_id=603)
        help_text = channel.conversation.pastor.crisis_help(None, "BR")
        assert first["text"] == second["text"] == messages.CARE_NO_TEAM.format(help=help_text)
        assert "ninguém vai ler esta conversa nem ligar" in first["text"]
        bot_api.push(bot_api.message(603, "quero me matar"))
        await _until(lambda: messages.CARE_NO_TEAM_NOTE in _texts(bot_api, 603))
        assert not any("equipe:" in str(m.get("reply_markup", "")) for m in bot_api.sent(chat_id=603))
        assert channel.conversation.memory.cases.latest("telegram", "603") is None
    finally:
        await stopped(channel)


async def test_alert_at_once_on_imminent_risk_then_erase_closes_the_case(make_channel, bot_api):
    channel = await started(make_channel(care_team=Team(telegram_chat=TEAM, alert_imminent=True)))
    memory = channel.conversation.memory
    try:
        bot_api.push(bot_api.message(604, "quero me matar"))
        alert = (await bot_api.wait_for(1, chat_id=TEAM))[0]["text"]
        assert messages.TEAM_REASONS["imminent"] in alert and "• quero me matar" in alert
        await _until(lambda: messages.CARE_ALERTED in _texts(bot_api, 604))
        assert not any("equipe:" in str(m.get("reply_markup", "")) for m in bot_api.sent(chat_id=604))
        code = mentioned_case(alert)
        assert memory.cases.get(code).state == OPEN
        bot_api.push(bot_api.message(604, "/apagar"))
        await _until(lambda: messages.ERASE_CONFIRM in _texts(bot_api, 604))
        bot_api.push(bot_api.callback(604, "apagar:sim"))
        await _until(lambda: messages.TEAM_ERASED.format(code=code) in _texts(bot_api, TEAM))
        case = memory.cases.get(code)
        assert case.state == "closed" and case.closed_by == "erased" and case.chat_id == ""
        rows = memory.db.execute("select payload from inbox where message_id like ?", [f"caso-{code}-alerta%"]).rows
        assert rows == [(None,)]  # the alert kept in the inbox no longer holds the person's words
    finally:
        await stopped(channel)


async def test_telegram_restart_with_a_relay_pending_loses_nothing(make_channel, bot_api, tmp_path, state_url):
    channel = await started(make_channel(care_team=Team(telegram_chat=TEAM)))
    bot_api.push(bot_api.message(605, "/pastor"))
    alert = (await bot_api.wait_for(1, chat_id=TEAM))[0]["text"]
    code = mentioned_case(alert)
    await bot_api.wait_for(1, chat_id=605)
    bot_api.storm_until = asyncio.get_running_loop().time() + 3600  # every sendMessage refused from now on
    _team_says(bot_api, f"/responder {code} Oi, aqui é o pastor Paulo.")
    inbox = channel.conversation.memory.inbox
    await _until(lambda: ("telegram", "605") in inbox.pending_chats(due_before=float("inf"))
                 and len(bot_api.sent(chat_id=605)) > 1)  # the relay was queued and tried
    await stopped(channel)  # the relay and the team's acknowledgement are still pending
    bot_api.storm_until = 0.0
    memory = Memory.connect(state_url, tmp_path)  # a new process, the same database
    channel = await started(make_channel(memory=memory, care_team=Team(telegram_chat=TEAM), clock=a_minute_later))
    try:
        human = messages.CARE_HUMAN.format(text="Oi, aqui é o pastor Paulo.")
        await bot_api.wait_for_delivered(2, chat_id=605)
        await bot_api.wait_for_delivered(2, chat_id=TEAM)
        await asyncio.sleep(0.5)
        assert [m["text"] for m in bot_api.delivered(605)].count(human) == 1
        assert [m["text"] for m in bot_api.delivered(TEAM)] == [alert, messages.TEAM_SENT.format(code=code)]
    finally:
        await stopped(channel)


TEAM_NUMBER = "5511911112222"
WA_PERSON = "5511988887777"


def _wa_texts(graph_api, to: str) -> list[str]:
    return [p["text"]["body"] if p["type"] == "text" else p["interactive"]["body"]["text"]
            for p in graph_api.sent() if p["to"] == to and p["type"] in ("text", "interactive")]


async def test_whatsapp_offer_alert_reply_forward_close_and_restart(make_whatsapp, graph_api):
    team = Team(whatsapp=frozenset({TEAM_NUMBER}))
    channel, client = await make_whatsapp(care_team=team)
    await deliver(client, channel, whatsapp_delivery(WA_PERSON, "wamid.C1", "quero me matar"))
    offer = [p["interactive"] for p in graph_api.sent("interactive") if p["to"] == WA_PERSON
             and p["interactive"]["body"]["text"] == messages.CARE_OFFER][0]
    ids = [b["reply"]["id"] for b in offer["action"]["buttons"]]
    code = ids[0].rsplit(":", 1)[1]
    assert ids == [f"equipe:sim:{code}", f"equipe:nao:{code}"] and all(len(i.encode()) <= 64 for i in ids)
    press = whatsapp_delivery(WA_PERSON, "wamid.C2", type="interactive", interactive={
        "type": "button_reply", "button_reply": {"id": ids[0], "title": messages.CARE_OFFER_YES}})
    await deliver(client, channel, press)
    await channel.conversation.drain()
    assert _wa_texts(graph_api, WA_PERSON)[-1].startswith("Pronto: avisei a equipe pastoral")
    alert = _wa_texts(graph_api, TEAM_NUMBER)[0]
    assert f"caso {code}" in alert and "WhatsApp" in alert and "• quero me matar" in alert
    assert f"*responder* {code}" in alert and "responda a esta mensagem" not in alert

    graph_api.failures = [(500, {"message": "temporarily unavailable", "code": 2}, {})] * 50
    await deliver(client, channel, whatsapp_delivery(TEAM_NUMBER, "wamid.T1", f"responder {code} Olá, sou a Marta."))
    await channel.conversation.drain()
    human = messages.CARE_HUMAN.format(text="Olá, sou a Marta.")
    assert human not in _wa_texts(graph_api, WA_PERSON)  # postponed: the Graph API kept failing
    await channel.conversation.stop()  # the process stops with the relay pending
    graph_api.failures.clear()

    channel, client = await make_whatsapp(care_team=team, clock=a_minute_later)  # a new process, the same database
    await _until(lambda: human in _wa_texts(graph_api, WA_PERSON))
    await _until(lambda: messages.TEAM_SENT.format(code=code) in _wa_texts(graph_api, TEAM_NUMBER))

    await deliver(client, channel, whatsapp_delivery(WA_PERSON, "wamid.C3", "a formiga e o preguiçoso"))
    forwarded = _wa_texts(graph_api, TEAM_NUMBER)[-1]
    assert forwarded.startswith(f"💬 Caso {code}") and "a formiga e o preguiçoso" in forwarded
    assert "formiga" in _wa_texts(graph_api, WA_PERSON)[-2]  # the person still gets the bot's answer
    await deliver(client, channel, whatsapp_delivery(TEAM_NUMBER, "wamid.T2", f"encerrar {code}"))
    await channel.conversation.drain()
    assert _wa_texts(graph_api, WA_PERSON)[-1] == messages.CARE_CLOSED.format(command="*pastor*")
    assert _wa_texts(graph_api, TEAM_NUMBER)[-1] == messages.TEAM_CLOSED.format(code=code)
    assert _wa_texts(graph_api, WA_PERSON).count(human) == 1
    assert sum(f"Atendimento pastoral — caso {code}" in t for t in _wa_texts(graph_api, TEAM_NUMBER)) == 1


async def test_a_request_in_the_moment_before_the_core_starts_still_alerts_the_team(make_whatsapp, graph_api):
    """The webhook answers as soon as the HTTP server is up, before `Conversation.start` (Telegram starts first):
    the alert is queued from a store thread then, and must still reach the event loop."""
    channel, client = await make_whatsapp(care_team=Team(whatsapp=frozenset({TEAM_NUMBER})), start=False)
    await deliver(client, channel, whatsapp_delivery(WA_PERSON, "wamid.S1", "quero falar com um pastor"))
    await channel.conversation.drain()
    assert _wa_texts(graph_api, WA_PERSON) and _wa_texts(graph_api, WA_PERSON)[0].startswith("Pronto: avisei")
    await _until(lambda: any(messages.TEAM_REASONS["requested"] in t for t in _wa_texts(graph_api, TEAM_NUMBER)))


async def test_whatsapp_request_in_words_and_team_numbers_talk_as_people_otherwise(make_whatsapp, graph_api):
    channel, client = await make_whatsapp(care_team=Team(whatsapp=frozenset({TEAM_NUMBER})))
    await deliver(client, channel, whatsapp_delivery(WA_PERSON, "wamid.R1", "tem uma pessoa aí?"))
    await channel.conversation.drain()
    assert _wa_texts(graph_api, WA_PERSON)[0].startswith("Pronto: avisei a equipe pastoral")
    alert = _wa_texts(graph_api, TEAM_NUMBER)[0]
    assert messages.TEAM_REASONS["requested"] in alert and messages.CRISIS_LEVELS[None] in alert
    await deliver(client, channel, whatsapp_delivery(WA_PERSON, "wamid.R2", "pastor"))  # asked twice
    assert _wa_texts(graph_api, WA_PERSON)[-1] == messages.CARE_ALREADY
    await deliver(client, channel, whatsapp_delivery(WA_PERSON, "wamid.R5", "quero falar com um pastor, por favor"))
    assert _wa_texts(graph_api, WA_PERSON)[-1] == messages.CARE_ALREADY
    assert "quero falar com um pastor, por favor" in _wa_texts(graph_api, TEAM_NUMBER)[-1]  # the team reads it
    await deliver(client, channel, whatsapp_delivery(TEAM_NUMBER, "wamid.R3", "o que diz Salmo 23:1?"))
    assert "Salmos 23:1" in _wa_texts(graph_api, TEAM_NUMBER)[-2]  # a team member may talk to the bot too
    await deliver(client, channel, whatsapp_delivery(TEAM_NUMBER, "wamid.R4", "casos"))
    assert _wa_texts(graph_api, TEAM_NUMBER)[-1].startswith("Casos abertos:\n")


def test_requests_codes_and_team_words():
    for text in ("quero falar com um pastor", "Posso falar com alguém de verdade?", "tem uma pessoa aí?",
                 "preciso conversar c/ uma pessoa real"):
        assert asks_for_a_person(text), text
    for text in ("meu pastor não quer falar comigo", "quero falar com meu pastor sobre isso", "quero me matar",
                 "o pastor falou com a pessoa"):
        assert not asks_for_a_person(text), text
    assert valid_code("k7mx") == "K7MX" and valid_code("K0OX") is None and valid_code("K7MXY") is None
    assert command_of("responder k7mx Olá, tudo bem?") == ("responder", "k7mx Olá, tudo bem?")
    assert command_of("responder a carta da minha mãe") is None  # not a case: a message for the pastor
    assert command_of("pastor") == ("pastor", "")


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_case_is_created_once_per_message(kind, tmp_path, request):
    url = f"sqlite:///{tmp_path / 'c.db'}" if kind == "sqlite" else \
        request.getfixturevalue("postgres").create_database(f"care{tmp_path.name[-20:].lower()}")
    memory = Memory.connect(url, tmp_path)
    cases: Cases = memory.cases
    first, created = cases.create("telegram:1", "telegram", "9", "offered", "imminent", None)
    again, created_again = cases.create("telegram:1", "telegram", "9", "offered", "imminent", None)
    assert created and not created_again and first == again
    assert cases.accept(first.code) and not cases.accept(first.code)
    assert cases.answered(first.code, "telegram:77") is not None and cases.answered(first.code, "x") is None
    assert cases.close(first.code, "telegram:77") and not cases.close(first.code, "telegram:77")
    assert "007_care_cases" in memory.db.applied_migrations()
    assert cases.purge(time.time() - 60) == 0 and cases.purge(time.time() + 1) == 1  # with the conversations


async def test_kill_9_with_the_alert_pending_then_the_relay_goes_through(mini_index, bot_api, graph_api, llm_server,
                                                                         tmp_path):
    from tests.test_crash_recovery import bot_env, post_whatsapp, start_bot, until, until_or_log

    port = free_port()
    env = {**bot_env(mini_index, bot_api, graph_api, llm_server, port), "CARE_TEAM_CHAT_ID": TEAM,
           "DATABASE_URL": f"sqlite:///{tmp_path / 'pastor.db'}"}  # not the index's directory other tests share
    process = await start_bot(env, port)
    bot_api.storm_until = asyncio.get_running_loop().time() + 3600  # the team's group cannot be reached for now
    assert await post_whatsapp(port, whatsapp_delivery(WA_PERSON, "wamid.CK1", "quero falar com um pastor")) == 200
    await until_or_log(process, lambda: any(t.startswith("Pronto: avisei a equipe pastoral")
                                            for t in _wa_texts(graph_api, WA_PERSON)) and bot_api.sent(chat_id=TEAM),
                       seen=lambda: (_wa_texts(graph_api, WA_PERSON), bot_api.calls[-5:]))  # told; the alert tried
    process.kill()
    await process.wait()
    assert bot_api.delivered(TEAM) == []

    bot_api.storm_until = 0.0
    process = await start_bot(env, port)  # the alert comes back from the inbox
    try:
        alert = (await bot_api.wait_for_delivered(1, chat_id=TEAM, timeout=60))[0]["text"]
        code = mentioned_case(alert)
        assert messages.TEAM_REASONS["requested"] in alert and code
        _team_says(bot_api, f"/responder {code} Oi, sou o pastor Paulo. Posso te ligar?")
        human = messages.CARE_HUMAN.format(text="Oi, sou o pastor Paulo. Posso te ligar?")
        await until(lambda: human in _wa_texts(graph_api, WA_PERSON))
        await asyncio.sleep(1.0)
        assert len(bot_api.delivered(TEAM)) == 2 and _wa_texts(graph_api, WA_PERSON).count(human) == 1
    finally:
        process.send_signal(signal.SIGTERM)
        _, err = await asyncio.wait_for(process.communicate(), timeout=60)
    log = err.decode()
    assert process.returncode == 0, log
    assert "equipe pastoral: grupo do Telegram" in log and f"caso {code}" in log
    assert "falar com um pastor" not in log and "pastor Paulo" not in log  # never what was said
