"""Listening to voice notes: the length checked first, the audio held in memory only, the transcript checked."""

from __future__ import annotations

import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from functools import cache
from importlib import resources

from bot import messages
from bot.metrics import Metrics
from bot.voice.transcription import Audio, Transcriber, TranscriptionError, duration
from corpus.text import fold

log = logging.getLogger("pastor.voice")

MAX_BYTES = 25 * 1024 * 1024  # what OpenAI-compatible endpoints accept; any note above it is refused


class AudioUnavailable(RuntimeError):
    """The platform did not hand over the audio (expired, too big, refused)."""


@dataclass(frozen=True)
class Heard:
    """What a voice note said, or the kind reply when it could not be understood."""

    text: str = ""
    notice: str = ""


@cache
def _noise() -> frozenset[str]:
    lines = resources.files("bot").joinpath("data/transcript_noise.txt").read_text(encoding="utf-8").splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and not line.startswith("#"))


def intelligible(text: str) -> bool:
    """False for an empty transcript, one without words, or what recognisers write for silence."""
    words = re.findall(r"\w+", fold(text))
    return bool(words) and " ".join(words) not in _noise()


class VoiceNotes:
    """Turns a voice note into text through the configured transcriber, or into a kind reply."""

    def __init__(self, transcriber: Transcriber, max_seconds: int = 180, metrics: Metrics | None = None):
        self.transcriber, self.max_seconds = transcriber, max_seconds
        self.metrics = metrics or Metrics()

    async def hear(self, fetch: Callable[[], Awaitable[Audio]], reported_seconds: float | None = None) -> Heard:
        """``fetch`` downloads the note (called only when its reported length is within the limit)."""
        if reported_seconds and reported_seconds > self.max_seconds:
            return self._too_long(reported_seconds)
        try:
            audio = await fetch()
        except AudioUnavailable as error:
            log.warning("áudio não obtido da plataforma: %s", error)
            self.metrics.transcriptions.labels(self.transcriber.name, "download_error").inc()
            return Heard(notice=messages.VOICE_UNAVAILABLE)
        seconds = audio.seconds or duration(audio.data)
        if seconds and seconds > self.max_seconds:
            return self._too_long(seconds)
        if len(audio.data) > MAX_BYTES:  # whatever length it claims: the endpoint would refuse it anyway
            return self._too_long(None)
        try:
            text, took = await self.transcriber.transcribe(audio)
        except TranscriptionError as error:
            log.error("transcrição falhou: %s", error)
            self.metrics.transcriptions.labels(self.transcriber.name, "error").inc()
            return Heard(notice=messages.VOICE_FAILED)
        self.metrics.transcription_seconds.labels(self.transcriber.name).observe(took)
        if not intelligible(text):
            self.metrics.transcriptions.labels(self.transcriber.name, "empty").inc()
            return Heard(notice=messages.VOICE_EMPTY)
        self.metrics.transcriptions.labels(self.transcriber.name, "ok").inc()
        return Heard(text=text)

    def _too_long(self, seconds: float | None) -> Heard:
        self.metrics.transcriptions.labels(self.transcriber.name, "too_long").inc()
        length = f"; o seu tem {int(seconds)}" if seconds else ""
        return Heard(notice=messages.VOICE_TOO_LONG.format(length=length, limit=self.max_seconds))
