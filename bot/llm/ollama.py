"""Ollama: POST /api/chat, NDJSON stream."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx

from bot.llm.base import CallStats, LLMError, Message, StreamingAdapter, timeout_error


class OllamaProvider(StreamingAdapter):
    probe_path = "/api/tags"
    name = "ollama"

    def __init__(self, client: httpx.AsyncClient, base_url: str, model: str):
        self.client, self.base_url, self.model = client, base_url.rstrip("/"), model

    async def _stream_once(self, messages: list[Message], max_tokens: int, temperature: float,
                           stats: CallStats) -> AsyncIterator[str]:
        body = {"model": self.model, "stream": True,
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
