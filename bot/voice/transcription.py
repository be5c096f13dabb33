"""Voice notes to text: one adapter for the OpenAI-compatible ``POST /v1/audio/transcriptions``.

OpenAI, Groq and self-hosted servers (speaches / faster-whisper) speak the same multipart form:
``file``, ``model``, ``language``, ``response_format=json``; the answer is ``{"text": "..."}``.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass

import httpx
import mutagen

from bot.llm.base import error_message

DEFAULTS = {  # provider: (base URL, model)
    "openai": ("https://api.openai.com/v1", "whisper-1"),
    "groq": ("https://api.groq.com/openai/v1", "whisper-large-v3-turbo"),
}


@dataclass(frozen=True)
class Audio:
    """A voice note held in memory only (never written to disk or the database)."""

    data: bytes
    filename: str
    mime: str
    seconds: float | None = None  # as the platform reported it, or measured from the bytes


class TranscriptionError(RuntimeError):
    """The provider did not transcribe; the message never holds the key."""

    def __init__(self, provider: str, kind: str, detail: str = "", status: int | None = None):
        self.provider, self.kind, self.status = provider, kind, status
        super().__init__(f"{provider}: {kind}" + (f" (HTTP {status})" if status else "") +
                         (f": {detail[:200]}" if detail else ""))


class Transcriber:
    """An OpenAI-compatible transcription endpoint; takes its httpx client, never reads the environment."""

    def __init__(self, client: httpx.AsyncClient, name: str, base_url: str, api_key: str, model: str,
                 language: str = "pt"):
        self.client, self.name, self.model, self.language = client, name, model, language
        self.base_url = base_url.rstrip("/")
        self._headers = {"Authorization": f"Bearer {api_key}"} if api_key else {}

    async def transcribe(self, audio: Audio) -> tuple[str, float]:
        """The text said in ``audio`` and the seconds the provider took; raises TranscriptionError."""
        started = time.perf_counter()
        try:
            response = await self.client.post(
                f"{self.base_url}/audio/transcriptions", headers=self._headers,
                files={"file": (audio.filename, audio.data, audio.mime)},
                data={"model": self.model, "language": self.language, "response_format": "json"})
        except httpx.HTTPError as error:
            kind = "tempo esgotado" if isinstance(error, httpx.TimeoutException) else "falha de rede"
            raise TranscriptionError(self.name, kind, type(error).__name__) from None
        if response.status_code >= 400:
            raise TranscriptionError(self.name, "erro HTTP", error_message(response.text), response.status_code)
        try:
            text = response.json()["text"]
        except (ValueError, KeyError, TypeError):
            raise TranscriptionError(self.name, "resposta ilegível", response.text[:120]) from None
        return " ".join(str(text).split()), time.perf_counter() - started

    async def probe(self) -> None:
        """Raise TranscriptionError unless the server answers a cheap request (GET /models)."""
        try:
            response = await self.client.get(f"{self.base_url}/models", headers=self._headers, timeout=5.0)
        except httpx.HTTPError as error:
            raise TranscriptionError(self.name, "falha de rede", type(error).__name__) from None
        if response.status_code >= 400:
            raise TranscriptionError(self.name, "erro HTTP", error_message(response.text), response.status_code)


def duration(data: bytes) -> float | None:
    """Seconds of audio in ``data`` (Ogg/Opus, MP3, M4A…), or None when the container cannot be read."""
    try:
        found = mutagen.File(io.BytesIO(data))
    except Exception:  # a malformed file of any kind: the length is unknown, not an error of ours
        return None
    length = getattr(getattr(found, "info", None), "length", None)
    return float(length) if length else None


class TranscriberConfigError(RuntimeError):
    """The configured transcription provider lacks a setting it needs."""


def _openai_compatible(name: str) -> Callable[..., Transcriber]:
    """OpenAI and Groq: their URL and model unless the settings name others; their LLM key as a fallback key."""
    base_url, model = DEFAULTS[name]

    def build(settings, client: httpx.AsyncClient) -> Transcriber:
        own_server = bool(settings.transcription_base_url)
        key = (settings.transcription_api_key.get_secret_value()
               or getattr(settings, f"{name}_api_key").get_secret_value())
        if not key and not own_server:
            raise TranscriberConfigError(f"TRANSCRIPTION_PROVIDER={name} precisa de TRANSCRIPTION_API_KEY "
                                         f"(ou {name.upper()}_API_KEY)")
        return Transcriber(client, name, settings.transcription_base_url or base_url, key,
                           settings.transcription_model or model)
    return build


# TRANSCRIPTION_PROVIDER -> how to build it from the settings; `none` builds nothing
TRANSCRIBERS: dict[str, Callable[..., Transcriber | None]] = {
    "none": lambda settings, client: None,
    **{name: _openai_compatible(name) for name in DEFAULTS},
}


def create_transcriber(settings, client: httpx.AsyncClient) -> Transcriber | None:
    """The provider ``TRANSCRIPTION_PROVIDER`` names, or None (voice notes get the "only text" reply)."""
    build = TRANSCRIBERS.get(settings.transcription_provider)
    if build is None:
        raise TranscriberConfigError(f"TRANSCRIPTION_PROVIDER desconhecido: {settings.transcription_provider}")
    return build(settings, client)
