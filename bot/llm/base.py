"""The LLM seam: messages in, text out; retries and error mapping shared by every adapter."""

from __future__ import annotations

import asyncio
import logging
import random
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Literal, Protocol

import httpx

log = logging.getLogger("pastor.llm")

RETRYABLE = frozenset({408, 409, 425, 429, 500, 502, 503, 504, 529})
MAX_ATTEMPTS = 3
MAX_RETRY_AFTER = 20.0  # seconds; a longer wait is reported as an error instead


@dataclass(frozen=True)
class Message:
    role: Literal["system", "user", "assistant"]
    content: str


@dataclass
class Completion:
    """A whole answer, assembled from the stream."""

    text: str
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 1
    extra: dict = field(default_factory=dict)


class LLMError(RuntimeError):
    """The provider could not give an answer; ``kind`` says why, the message never holds secrets."""

    def __init__(self, provider: str, kind: str, detail: str = "", status: int | None = None,
                 retry_after: float | None = None):
        self.provider, self.kind, self.detail, self.status = provider, kind, detail, status
        self.retry_after = retry_after
        text = f"{provider}: {kind}"
        if status:
            text += f" (HTTP {status})"
        if detail:
            text += f": {detail[:300]}"
        super().__init__(text)


@dataclass
class CallStats:
    """What one call reported (tokens, attempts); belongs to that call alone, never to the adapter."""

    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 1


class LLMProvider(Protocol):
    """A chat model.

    ``stream`` yields the answer's text as it arrives and raises LLMError on an HTTP
    error, an error event in the stream, a stream that ends without its final
    event, or a timeout; token counts and attempts go into the ``stats`` passed in
    (the caller's own, never the adapter's). ``complete`` gathers the stream into a
    Completion. Adapters take their httpx.AsyncClient,
    never read the environment, and never fall back to another provider.
    """

    name: str
    model: str

    def stream(self, messages: list[Message], *, max_tokens: int = 800, temperature: float = 0.3,
               stats: CallStats | None = None) -> AsyncIterator[str]: ...

    async def complete(self, messages: list[Message], *, max_tokens: int = 800,
                       temperature: float = 0.3) -> Completion: ...


class StreamingAdapter:
    """Shared plumbing: the retry loop around one streaming request, and a cheap health probe."""

    name = ""
    model = ""
    probe_path = ""  # a cheap GET that proves the server answers and the key is accepted
    sleep: Callable[[float], Awaitable[None]] = staticmethod(asyncio.sleep)

    async def complete(self, messages: list[Message], *, max_tokens: int = 800,
                       temperature: float = 0.3) -> Completion:
        stats = CallStats()
        parts = [piece async for piece in self._stream(messages, max_tokens, temperature, stats)]
        return Completion("".join(parts), stats.input_tokens, stats.output_tokens, attempts=stats.attempts)

    def stream(self, messages: list[Message], *, max_tokens: int = 800, temperature: float = 0.3,
               stats: CallStats | None = None) -> AsyncIterator[str]:
        return self._stream(messages, max_tokens, temperature, stats if stats is not None else CallStats())

    async def _stream(self, messages: list[Message], max_tokens: int, temperature: float,
                      stats: CallStats) -> AsyncIterator[str]:
        for attempt in range(1, MAX_ATTEMPTS + 1):
            stats.attempts = attempt
            produced = False
            try:
                async for piece in self._stream_once(messages, max_tokens, temperature, stats):
                    produced = True
                    yield piece
                return
            except LLMError as error:
                wait = self._retry_wait(error, attempt)
                if produced or wait is None:
                    raise
                log.warning("%s: %s; nova tentativa em %.1f s", self.name, error.kind, wait)
                await self.sleep(wait)

    async def warm_up(self) -> float | None:
        """Make the model ready before the first message; seconds taken, None when there is nothing to load."""
        return None

    async def loaded(self) -> bool | None:
        """Whether the model is in memory now; None when the provider has no such notion (a cloud API)."""
        return None

    async def probe(self) -> None:
        """Raise LLMError unless the provider answers a cheap request."""
        try:
            response = await self.client.get(f"{self.base_url}{self.probe_path}", headers=getattr(self, "_headers", {}),
                                             timeout=5.0)
        except httpx.HTTPError as error:
            raise timeout_error(self.name, error) from None
        if response.status_code >= 400:
            raise LLMError(self.name, "erro HTTP", error_message(response.text), response.status_code)

    def _retry_wait(self, error: LLMError, attempt: int) -> float | None:
        if attempt >= MAX_ATTEMPTS or error.status not in RETRYABLE:
            return None
        if error.retry_after is not None:
            return error.retry_after if error.retry_after <= MAX_RETRY_AFTER else None
        return min(MAX_RETRY_AFTER, 0.5 * 2 ** (attempt - 1) + random.uniform(0, 0.25))

    async def _stream_once(self, messages, max_tokens, temperature, stats: CallStats) -> AsyncIterator[str]:
        raise NotImplementedError
        yield ""  # pragma: no cover

    async def _raise_for_status(self, response: httpx.Response) -> None:
        """Turn an HTTP error into LLMError, keeping the provider's message and Retry-After."""
        if response.status_code < 400:
            return
        body = (await response.aread()).decode("utf-8", "replace")
        raise LLMError(self.name, "erro HTTP", error_message(body), response.status_code,
                       _retry_after(response.headers.get("retry-after")))


def _retry_after(value: str | None) -> float | None:
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date: fall back to our own backoff


def error_message(body: str) -> str:
    import json

    try:
        data = json.loads(body)
    except ValueError:
        return body.strip()[:300]
    error = data.get("error", data) if isinstance(data, dict) else data
    if isinstance(error, dict):
        return str(error.get("message") or error.get("type") or error)[:300]
    return str(error)[:300]


def timeout_error(provider: str, error: Exception) -> LLMError:
    if isinstance(error, httpx.TimeoutException):
        return LLMError(provider, "tempo esgotado", type(error).__name__)
    return LLMError(provider, "falha de rede", type(error).__name__)
