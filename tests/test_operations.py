"""Operations: /metrics, /readyz, the /status text, retention."""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from types import SimpleNamespace
from zoneinfo import ZoneInfo

import httpx

from bot.delivery import DeliveryPolicy
from bot.llm.ollama import OllamaProvider
from bot.metrics import Metrics
from bot.run import retention, warm_up
from bot.safety.screening import Screener
from bot.server import build_server
from bot.status import status_text
from bot.store.memory import Memory
from tests.conftest import started, stopped


async def test_metrics_count_messages_retrieval_caches_llm_and_tokens(make_pastor, llm_server, aiohttp_client_factory):
    llm_server.answer({"chunks": ["Ele cuida de ti (Salmos 23:1)."]})
    async with httpx.AsyncClient() as http:
        pastor = make_pastor(OllamaProvider(http, llm_server.url, "qwen2.5:1.5b"))
        metrics = pastor.metrics = Metrics()
        metrics.watch_caches({"resultados": pastor.retriever.result_cache})
        await pastor.reply("m1", "o que diz Salmo 23:1?")
        await pastor.reply("m1", "qual a cotação do dólar hoje?")
        await pastor.reply("m1", "quero morrer")
    client = await aiohttp_client_factory(build_server(lambda: {"index": True}, metrics=metrics))
    response = await client.get("/metrics")
    assert response.status == 200 and response.headers["Content-Type"].startswith("text/plain")
    text = await response.text()
    for line in ('pastor_no_evidence_total 1.0', 'pastor_crisis_total{kind="suicide-direct",level="imminent"} 1.0',
                 'pastor_llm_calls_total{provider="ollama",purpose="answer"} 1.0',
                 'pastor_llm_tokens_total{kind="input",provider="ollama"} 42.0',
                 'pastor_llm_tokens_total{kind="output",provider="ollama"} 7.0',
                 'pastor_cache_total{cache="resultados",result="miss"}'):
        assert line in text, line
    assert "pastor_retrieval_seconds_count 2.0" in text and "pastor_llm_seconds_count" in text
    assert "pastor_verses_returned_total" in text
    assert "pastor_messages_total{" not in text  # prepared, but no person has received them


async def test_an_answer_is_counted_once_delivered_never_when_only_prepared(make_channel, bot_api):
    channel = await started(make_channel(policy=DeliveryPolicy(later=0.5)))  # the postponed retry comes soon
    metrics = channel.conversation.metrics
    try:
        bot_api.storm_until = asyncio.get_running_loop().time() + 2.5  # Telegram refuses every message for a while
        bot_api.push(bot_api.message(950, "o que diz Salmo 23:1?"))
        await bot_api.wait_for(1, chat_id=950)  # answered, refused with a 429
        assert b'pastor_messages_total{channel="telegram"' not in metrics.render()
        await bot_api.wait_for_delivered(2, chat_id=950, timeout=60)
        await asyncio.sleep(0.2)
        assert b'pastor_messages_total{channel="telegram",status="reference"} 1.0' in metrics.render()
        bot_api.push(bot_api.message(950, "/ajuda"))  # commands are not the pastor's answers
        await bot_api.wait_for_delivered(3, chat_id=950)
        await asyncio.sleep(0.2)
        assert metrics.render().count(b"pastor_messages_total{") == 1
    finally:
        await stopped(channel)


async def test_readyz_reports_each_check(aiohttp_client_factory):
    client = await aiohttp_client_factory(build_server(lambda: {"index": True, "database": False}))
    response = await client.get("/readyz")
    assert response.status == 503 and (await response.json())["checks"] == {"index": True, "database": False}
    assert (await client.get("/healthz")).status == 200


async def test_status_text_probes_the_provider(mini_index, mini_retriever, llm_server, tmp_path):
    async with httpx.AsyncClient() as http:
        memory = Memory.open(tmp_path / "m.db")
        noon = datetime(2026, 11, 30, 12, 0, tzinfo=ZoneInfo("America/Sao_Paulo"))
        for chat in ("1", "2"):
            memory.subscriptions.subscribe("telegram", chat, 7, 30, noon)
        memory.subscriptions.subscribe("whatsapp", "5511", 6, 0, noon)
        words = SimpleNamespace(timezone=ZoneInfo("America/Sao_Paulo"))
        rounds = SimpleNamespace(last_run={"at": datetime(2026, 11, 30, 7, 31, tzinfo=words.timezone).timestamp(),
                                           "queued": 2})

        def app_with(url):
            pastor = SimpleNamespace(llm=OllamaProvider(http, url, "qwen2.5:1.5b"), screener=Screener())
            return SimpleNamespace(index_config=mini_index, retriever=mini_retriever, pastor=pastor,
                                   started_at=time.time() - 3725, errors=SimpleNamespace(recent=lambda: ["x falhou"]),
                                   memory=memory, ready=lambda: {"index": True}, warm_up={"seconds": 2.5},
                                   words=words, daily_round=rounds, replica="maquina:42:abc")
        up = await status_text(app_with(llm_server.url))
        down = await status_text(app_with("http://127.0.0.1:9"))
        short_up = await status_text(app_with(llm_server.url), full=False)
        short_down = await status_text(app_with("http://127.0.0.1:9"), full=False)
    assert "índice: pronto" in up and "versículos indexados: 14" in up and "aguardando entrega: 0" in up
    assert short_up.splitlines()[2:] == ["texto bíblico: pronto", "respostas: funcionando"]
    assert "não está respondendo" in short_down
    for short in (short_up, short_down):  # no paths, models or errors for people who are not admins
        assert str(tmp_path) not in short and "falhou" not in short and "qwen" not in short and "/" not in short
    assert "modelo de linguagem: ollama · qwen2.5:1.5b · respondeu agora" in up
    assert "NÃO respondeu (falha de rede)" in down
    assert "modelo na memória: não (aquecido em 2,5 s ao iniciar)" in up  # loaded at start, unloaded since
    assert "no ar há: 1h 2min" in up and "erros recentes: 1 (último: x falhou)" in up
    assert "versículo do dia: inscrições: 2 no Telegram, 1 no WhatsApp · última rodada às 07:31, 2 envio(s)" in up
    assert f"banco: SQLite ({tmp_path / 'm.db'}) · réplica maquina:42:abc" in up
    assert "triagem de crise: só padrões" in up


async def test_a_model_that_cannot_be_loaded_is_reported_loudly(llm_server, caplog):
    async with httpx.AsyncClient() as http:
        missing = OllamaProvider(http, llm_server.url, "modelo-que-nao-existe")
        app = SimpleNamespace(pastor=SimpleNamespace(llm=missing), warm_up={},
                              settings=SimpleNamespace(ollama_keep_alive="24h"))
        await warm_up(app)
        assert await missing.loaded() is False
    assert app.warm_up == {"error": "erro HTTP (HTTP 404)"}
    assert "modelo-que-nao-existe não pôde ser carregado" in caplog.text


async def test_retention_job_purges_old_conversations(tmp_path):
    now = [10_000_000.0]
    memory = Memory.open(tmp_path / "m.db", clock=lambda: now[0])
    memory.add_exchange("a", "antiga", "antiga", "r", "answered")
    now[0] += 31 * 86400
    memory.add_exchange("a", "recente", "recente", "r", "answered")
    assert retention(memory, 30)() == 2
    assert [t.text for t in memory.window("a")] == ["recente", "r"]


async def test_a_wrong_database_url_is_reported_as_the_database_never_as_the_index(mini_index, tmp_path, capsys):
    from bot.run import prepare
    from bot.settings import Settings
    from tests.servers import free_port

    settings = Settings(_env_file=None, corpus_path=mini_index.corpus_path, data_dir=mini_index.data_dir,
                        topics_path="", people_path="", llm_provider="none", http_host="127.0.0.1",
                        http_port=free_port(), database_url=f"postgresql://pastor:s3gredo@127.0.0.1:{free_port()}/x")
    assert await prepare(settings) is None
    said = capsys.readouterr().err
    assert "banco de dados indisponível" in said and "DATABASE_URL" in said
    assert "apague" not in said and "retrieval build" not in said and "s3gredo" not in said
    assert mini_index.manifest_path.exists()  # the good index is left alone
