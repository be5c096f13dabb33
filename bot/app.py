"""The one wiring point: Settings -> index, memory, LLM provider -> Pastor."""

from __future__ import annotations

import logging
import sys
import time
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path
from zoneinfo import ZoneInfo

import httpx

from bot.checks.guard_model import sentence_judge
from bot.devotional.round import DailyRound
from bot.devotional.verses import DailyVerses, VerseOfTheDay
from bot.llm.factory import create_provider, http_client
from bot.metrics import Metrics
from bot.pastor.pipeline import Pastor, PastorConfig
from bot.safety.screening import semantic_screener
from bot.settings import Settings
from bot.store.leases import replica_name
from bot.store.memory import Memory
from bot.supervisor import Supervisor
from bot.voice.notes import VoiceNotes
from bot.voice.transcription import create_transcriber
from corpus.editions import edition_for
from retrieval.index.builder import build_index
from retrieval.index.config import IndexConfig
from retrieval.retriever import Retriever
from retrieval.startup import IndexNotReady, open_retriever, stage

log = logging.getLogger("pastor.app")


class RecentErrors(logging.Handler):
    """Keeps the last error lines of the pastor's loggers for /status."""

    def __init__(self, keep: int = 20):
        super().__init__(level=logging.ERROR)
        self.lines: deque[str] = deque(maxlen=keep)

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(f"{time.strftime('%H:%M:%S', time.localtime(record.created))} {record.getMessage()[:200]}")

    def recent(self) -> list[str]:
        return list(self.lines)


@dataclass
class App:
    settings: Settings
    index_config: IndexConfig
    retriever: Retriever
    memory: Memory
    pastor: Pastor
    http: httpx.AsyncClient
    metrics: Metrics = field(default_factory=Metrics)
    errors: RecentErrors = field(default_factory=RecentErrors)
    started_at: float = field(default_factory=time.time)
    replica: str = field(default_factory=replica_name)  # this process among replicas sharing a database
    warm_up: dict = field(default_factory=dict)  # {"seconds": 3.2} or {"error": "..."} once the model is loaded
    voice: VoiceNotes | None = None  # None without TRANSCRIPTION_PROVIDER: voice notes get "only text"
    words: VerseOfTheDay | None = None
    daily_round: DailyRound | None = None  # set by `serve` once the channels are up
    supervisor: Supervisor = field(default_factory=Supervisor)  # the background work `serve` starts

    async def close(self) -> None:
        await self.http.aclose()

    def ready(self) -> dict[str, bool | str]:
        """What /readyz reports: the index this process serves still answers in full, the database writes,
        and no background task keeps failing."""
        return {"index": self._index_serves(), "database": self.memory.writable(), "tasks": self.supervisor.ready()}

    def _index_serves(self) -> bool:
        if self.retriever is None:
            return False
        config = self.index_config
        # a local Chroma directory deleted under a running process
        if not config.chroma_url and not config.qdrant_url and not config.chroma_dir.exists():
            return False
        try:
            return self.retriever.store.count() == len(self.retriever.bible)
        except Exception as error:  # a store that cannot answer is not ready, whatever it raised
            log.error("o repositório de vetores não respondeu: %s: %s", type(error).__name__, error)
            return False


def open_index(settings: Settings, build: bool = True, on_build=lambda: None) -> Retriever:
    """The retriever; a missing or stale index is reported and then built (never silently replaced)."""
    config = IndexConfig.from_settings(settings)
    try:
        return open_retriever(config)
    except IndexNotReady as problem:
        if not build:
            raise
        print(f"índice não está pronto: {problem}; construindo agora (pode levar ~1,5 min)", file=sys.stderr)
    on_build()
    build_index(config, log=lambda m: log.info(m))
    return open_retriever(config)


def build_app(settings: Settings | None = None, http: httpx.AsyncClient | None = None,
              retriever: Retriever | None = None, on_build=lambda: None, memory: Memory | None = None) -> App:
    settings = settings or Settings()
    http = http or http_client(settings.llm_timeout)
    llm = create_provider(settings, http)  # a missing key is reported before the index is opened
    transcriber = create_transcriber(settings, http)
    with stage("índice aberto (total)"):
        retriever = retriever or open_index(settings, on_build=on_build)
    if memory is None:
        with stage("banco de dados conectado"):
            memory = Memory.connect(settings.database_url.get_secret_value(), settings.data_dir)
    edition = edition_for(settings.corpus_path, retriever.bible.name)
    config = PastorConfig(crisis_contacts=settings.crisis_contacts,
                          crisis_contacts_replace=settings.crisis_contacts_replace,
                          crisis_country=settings.crisis_country, translation=edition.name,
                          provider_name=settings.llm_provider, propose_passages=settings.llm_propose_passages,
                          choose_verses=settings.llm_choose_verses)
    models = Path(settings.crisis_model_dir or Path(settings.data_dir) / "crisis")
    with stage("triagem de crise"):
        screener = semantic_screener(retriever, models)
    with stage("guarda das respostas"):
        judge = sentence_judge(retriever.embedder, models)  # the answer guard's model, cached beside the crisis one
    metrics = Metrics()
    metrics.watch_caches({"resultados": retriever.result_cache, "embeddings": retriever.embedding_cache})
    pastor = Pastor(retriever, memory, llm, config, metrics, screener, judge)
    words = None
    try:
        words = VerseOfTheDay(DailyVerses.load(retriever.bible, retriever.topics, retriever.tones), retriever.bible,
                              memory.subscriptions, pastor.reflect if llm else None, ZoneInfo(settings.timezone))
    except ValueError as error:  # a corpus without any of the listed passages: the rest of the bot still works
        log.error("versículo do dia desativado: %s (edite bot/data/daily_verses.toml)", error)
    app = App(settings, IndexConfig.from_settings(settings), retriever, memory, pastor, http, metrics,
              voice=VoiceNotes(transcriber, settings.voice_max_seconds, metrics) if transcriber else None,
              words=words, supervisor=Supervisor(metrics))
    logging.getLogger("pastor").addHandler(app.errors)
    return app
