"""What the Telegram benchmarks run against: a loopback Ollama, the loopback Bot API and the index of `.env`."""

from __future__ import annotations

import sys
from pathlib import Path

from aiohttp import web

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bot.settings import Settings
from retrieval.index.config import IndexConfig
from retrieval.retriever import Retriever
from retrieval.startup import open_retriever
from tests.fakes.loopback import start_loopback
from tests.fakes.telegram import FakeBotAPI


async def stand_ins(ollama_chat) -> tuple[web.AppRunner, str, FakeBotAPI, Retriever]:
    """An Ollama whose ``POST /api/chat`` is ``ollama_chat`` (runner, URL), a started Bot API, the retriever."""
    llm_app = web.Application()
    llm_app.router.add_post("/api/chat", ollama_chat)
    runner, llm_url = await start_loopback(llm_app)
    api = FakeBotAPI()
    await api.start()
    return runner, llm_url, api, open_retriever(IndexConfig.from_settings(Settings()))
