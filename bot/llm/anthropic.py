"""Anthropic Messages API: POST /v1/messages, SSE events, `x-api-key` and `anthropic-version`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx

from bot.llm.base import CallStats, LLMError, Message, StreamingAdapter, timeout_error

API_VERSION = "2023-06-01"


class AnthropicProvider(StreamingAdapter):
    probe_path = "/v1/models"
    name = "anthropic"

    def __init__(self, client: httpx.AsyncClient, base_url: str, api_key: str, model: str):
        self.client, self.base_url, self.model = client, base_url.rstrip("/"), model
        self._headers = {"x-api-key": api_key, "anthropic-version": API_VERSION}

    async def _stream_once(self, messages: list[Message], max_tokens: int, temperature: float,
                           stats: CallStats) -> AsyncIterator[str]:
        system = "\n\n".join(m.content for m in messages if m.role == "system")
        body = {"model": self.model, "max_tokens": max_tokens, "temperature": temperature, "stream": True,
                "messages": [{"role": m.role, "content": m.content} for m in messages if m.role != "system"]}
        if system:
            body["system"] = system
        input_tokens = 0
        try:
            async with self.client.stream("POST", f"{self.base_url}/v1/messages", json=body,
                                          headers=self._headers) as response:
                await self._raise_for_status(response)
                event_name = ""
                async for line in response.aiter_lines():
                    if line.startswith("event:"):
                        event_name = line[6:].strip()
                        continue
                    if not line.startswith("data:"):
                        continue
                    try:
                        event = json.loads(line[5:].strip())
                    except ValueError:
                        raise LLMError(self.name, "resposta ilegível", line[:120]) from None
                    kind = event.get("type", event_name)
                    if kind == "error":
                        error = event.get("error") or {}
                        status = 529 if error.get("type") == "overloaded_error" else None
                        raise LLMError(self.name, "erro no meio da resposta", error.get("message", ""), status)
                    if kind == "message_start":
                        input_tokens = ((event.get("message") or {}).get("usage") or {}).get("input_tokens", 0)
                    elif kind == "content_block_delta":
                        piece = (event.get("delta") or {}).get("text")
                        if piece:
                            yield piece
                    elif kind == "message_delta":
                        output = (event.get("usage") or {}).get("output_tokens", 0)
                        stats.input_tokens, stats.output_tokens = input_tokens, output
                    elif kind == "message_stop":
                        return
        except httpx.HTTPError as error:
            raise timeout_error(self.name, error) from None
        raise LLMError(self.name, "resposta interrompida", "o fluxo terminou sem message_stop")
