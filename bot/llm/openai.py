"""OpenAI chat completions (and compatible servers such as Groq): SSE ending in `data: [DONE]`."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator

import httpx

from bot.llm.base import CallStats, LLMError, Message, StreamingAdapter, timeout_error


class OpenAIProvider(StreamingAdapter):
    probe_path = "/models"
    name = "openai"

    def __init__(self, client: httpx.AsyncClient, base_url: str, api_key: str, model: str, name: str = "openai"):
        self.client, self.base_url, self.model, self.name = client, base_url.rstrip("/"), model, name
        self._headers = {"Authorization": f"Bearer {api_key}"}

    async def _stream_once(self, messages: list[Message], max_tokens: int, temperature: float,
                           stats: CallStats) -> AsyncIterator[str]:
        body = {"model": self.model, "stream": True, "max_tokens": max_tokens, "temperature": temperature,
                "messages": [{"role": m.role, "content": m.content} for m in messages],
                "stream_options": {"include_usage": True}}
        try:
            async with self.client.stream("POST", f"{self.base_url}/chat/completions", json=body,
                                          headers=self._headers) as response:
                await self._raise_for_status(response)
                async for line in response.aiter_lines():
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        return
                    try:
                        event = json.loads(data)
                    except ValueError:
                        raise LLMError(self.name, "resposta ilegível", data[:120]) from None
                    if "error" in event:
                        error = event["error"]
                        message = error.get("message", str(error)) if isinstance(error, dict) else str(error)
                        raise LLMError(self.name, "erro no meio da resposta", message)
                    if event.get("usage"):
                        usage = event["usage"]
                        stats.input_tokens = usage.get("prompt_tokens", 0)
                        stats.output_tokens = usage.get("completion_tokens", 0)
                    for choice in event.get("choices") or ():
                        piece = (choice.get("delta") or {}).get("content")
                        if piece:
                            yield piece
        except httpx.HTTPError as error:
            raise timeout_error(self.name, error) from None
        raise LLMError(self.name, "resposta interrompida", "o fluxo terminou sem [DONE]")
