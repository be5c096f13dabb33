"""Logging set-up: one format (plain or JSON), and secrets masked in every record."""

from __future__ import annotations

import json
import logging
import re
import sys
import time
from contextvars import ContextVar

from bot.store.database import url_passwords

message_id: ContextVar[str] = ContextVar("message_id", default="-")  # set by channels for each message

MASK = "***"
# Shapes of secrets that may appear in URLs or messages even when we do not know their value.
_PATTERNS = [
    re.compile(r"(?<=/bot)\d+:[\w-]{20,}"),  # Telegram bot token in Bot API URLs
    re.compile(r"(?i)(?<=bearer )[\w.~+/-]{12,}=*"),
    re.compile(r"\bsk-[\w-]{12,}"),  # OpenAI/Anthropic-style keys
    re.compile(r"\bgsk_[\w]{12,}"),  # Groq
    re.compile(r"(?i)(?<=access_token=)[^&\s]+"),
]


class SecretMasker:
    """Masks known secret values and secret-shaped strings in every log record, as it is created.

    Installed as the log record factory, so every handler (ours, a library's, a test's)
    only ever sees the masked message and traceback.
    """

    def __init__(self, secrets: list[str] = ()):
        self.secrets = [s for s in secrets if s and len(s) >= 6]
        self._make = logging.getLogRecordFactory()
        while isinstance(getattr(self._make, "__self__", None), SecretMasker):  # never stack maskers
            self._make = self._make.__self__._make

    def mask(self, text: str) -> str:
        for secret in self.secrets:
            text = text.replace(secret, MASK)
        for pattern in _PATTERNS:
            text = pattern.sub(MASK, text)
        return text

    def make_record(self, *args, **kwargs) -> logging.LogRecord:
        record = self._make(*args, **kwargs)
        record.message_id = message_id.get()
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: let logging report it as usual
            return record
        record.msg, record.args = self.mask(message), ()
        if record.exc_info and record.exc_info[1] is not None:
            record.exc_text = self.mask(logging.Formatter().formatException(record.exc_info))
        return record

    def install(self) -> None:
        logging.setLogRecordFactory(self.make_record)


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is at the time of each record."""

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data = {"time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created)),
                "level": record.levelname, "logger": record.name, "message_id": getattr(record, "message_id", "-"),
                "message": record.getMessage()}
        if record.exc_text:
            data["exception"] = record.exc_text
        return json.dumps(data, ensure_ascii=False)


def configure(level: str = "INFO", json_format: bool = False, secrets: list[str] = ()) -> SecretMasker:
    """Route every logger through one handler that masks ``secrets``; returns the masker."""
    handler = _StderrHandler()
    handler.setFormatter(JsonFormatter() if json_format else
                         logging.Formatter("%(asctime)s %(levelname)s %(name)s [%(message_id)s]: %(message)s"))
    masker = SecretMasker(list(secrets))
    masker.install()
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(level.upper())
    for noisy in ("httpx", "httpcore", "bm25s", "chromadb", "telegram.ext.Updater"):
        logging.getLogger(noisy).setLevel(max(logging.WARNING, root.level))
    for dumping in ("telegram.Bot", "telegram.ext.ExtBot"):  # at DEBUG they log every update people send
        logging.getLogger(dumping).setLevel(max(logging.INFO, root.level))
    return masker


def settings_secrets(settings) -> list[str]:
    """Every secret value the settings hold."""
    names = ["openai_api_key", "groq_api_key", "anthropic_api_key", "telegram_bot_token", "telegram_webhook_secret",
             "whatsapp_access_token", "whatsapp_app_secret", "whatsapp_verify_token", "transcription_api_key",
             "database_url"]
    values = [getattr(settings, n).get_secret_value() for n in names if getattr(settings, n).get_secret_value()]
    return values + url_passwords(settings.database_url.get_secret_value())

