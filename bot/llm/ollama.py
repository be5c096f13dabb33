"""Ollama: POST /api/chat, NDJSON stream; the model kept loaded (``keep_alive``) and warmed up at start."""

from __future__ import annotations

import json
import re
import time
from collections.abc import AsyncIterator

import httpx

from bot.llm.base import CallStats, LLMError, Message, StreamingAdapter, timeout_error


class OllamaProvider(StreamingAdapter):
    probe_path = "/api/tags"
    name = "ollama"

    def __init__(self, client: httpx.AsyncClient, base_url: str, model: str, keep_alive: str = "24h"):
        self.client, self.base_url, self.model = client, base_url.rstrip("/"), model
        self.keep_alive = keep_alive_value(keep_alive)

    async def warm_up(self) -> float:
        """Load the model now (an empty prompt only loads it); the seconds it took. Raises LLMError."""
        started = time.perf_counter()
        body = {"model": self.model, "keep_alive": self.keep_alive, "stream": False}
        try:
            response = await self.client.post(f"{self.base_url}/api/generate", json=body)
        except httpx.HTTPError as error:
            raise timeout_error(self.name, error) from None
        await self._raise_for_status(response)
        return time.perf_counter() - started

    async def loaded(self) -> bool | None:
        """Whether the model is in memory now (GET /api/ps); None when Ollama cannot say."""
        try:
            response = await self.client.get(f"{self.base_url}/api/ps", timeout=5.0)
            models = (response.json().get("models") or []) if response.status_code == 200 else None
        except (httpx.HTTPError, ValueError, AttributeError):
            models = None
        if not isinstance(models, list):
            return None
        names = {self.model, f"{self.model}:latest"}
        return any(isinstance(m, dict) and (m.get("name") in names or m.get("model") in names) for m in models)

    async def _stream_once(self, messages: list[Message], max_tokens: int, temperature: float,
                           stats: CallStats) -> AsyncIterator[str]:
        body = {"model": self.model, "stream": True, "keep_alive": self.keep_alive,
                "messages": [{"role": m.role, "content": m.content} for m in messages],
                "options": {"temperature": temperature, "num_predict": max_tokens}}
        try:
            async with self.client.stream("POST", f"{self.base_url}/api/chat", json=body) as response:
                await self._raise_for_status(response)
                async for line in response.aiter_lines():
                    if not line.strip():
                        continue
                    try:
                        event = json.loads(line)
                    except ValueError:
                        raise LLMError(self.name, "resposta ilegível", line[:120]) from None
                    if "error" in event:
                        raise LLMError(self.name, "erro no meio da resposta", str(event["error"]))
                    piece = (event.get("message") or {}).get("content") or ""
                    if piece:
                        yield piece
                    if event.get("done"):
                        stats.input_tokens = event.get("prompt_eval_count", 0)
                        stats.output_tokens = event.get("eval_count", 0)
                        return
        except httpx.HTTPError as error:
            raise timeout_error(self.name, error) from None
        raise LLMError(self.name, "resposta interrompida", "o fluxo terminou sem 'done'")


def keep_alive_value(setting: str) -> str | int | float:
    """OLLAMA_KEEP_ALIVE as Ollama reads it: "24h", "30m" as they are; a bare number is seconds (-1: forever)."""
    text = setting.strip()
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if re.fullmatch(r"-?\d+\.\d+", text):
        return float(text)
    return text
