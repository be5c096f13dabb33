"""Updates and webhook bodies the bot cannot read: counted, logged at most once a minute per reason (never their
text), and skipped so that what came with them is still served."""

from __future__ import annotations

import json
import logging
import re
import time
from collections.abc import Callable

from bot.metrics import Metrics

LOG_EVERY = 60.0  # seconds between two log records of the same channel and reason
_FIELDS = re.compile(r"'(\w+)'")


class MalformedUpdate(ValueError):
    """An update (or message) whose shape the bot cannot read; ``reason`` is a short, text-free label."""

    def __init__(self, reason: str, detail: str = ""):
        self.reason, self.detail = reason, detail
        super().__init__(f"{reason}: {detail}" if detail else reason)


def load_json(body: bytes):
    """The parsed body; raises `MalformedUpdate` for one that is no JSON, too deeply nested or not UTF-8."""
    try:
        return json.loads(body)
    except RecursionError:
        raise MalformedUpdate("json", "aninhamento profundo demais") from None
    except (ValueError, UnicodeDecodeError) as error:  # JSONDecodeError's message holds a position, not the text
        raise MalformedUpdate("json", type(error).__name__) from None


def describe(error: BaseException) -> tuple[str, str]:
    """(reason, detail) of a parsing failure without any of the data: the exception's type and, when the
    message names them, the fields involved (python-telegram-bot says which argument is missing)."""
    if isinstance(error, MalformedUpdate):
        return error.reason, error.detail
    fields = _FIELDS.findall(str(error)) if isinstance(error, TypeError) and "argument" in str(error) else []
    return type(error).__name__, ", ".join(fields[:5])


class Malformed:
    """One channel's record of what it skipped: the ``pastor_malformed_updates`` counter and a rate-limited log."""

    def __init__(self, channel: str, metrics: Metrics, log: logging.Logger, every: float = LOG_EVERY,
                 clock: Callable[[], float] = time.monotonic):
        self.channel, self.metrics, self.log, self.every, self.clock = channel, metrics, log, every, clock
        self._logged: dict[str, float] = {}
        self._quiet: dict[str, int] = {}  # records held back per reason since the last one written

    def skip(self, update_id, error: BaseException) -> str:
        """Count and (rate-limited) log one skipped update; returns the reason."""
        reason, detail = describe(error)
        self.metrics.malformed.labels(self.channel, reason).inc()
        now, last = self.clock(), self._logged.get(reason)
        if last is not None and now - last < self.every:
            self._quiet[reason] = self._quiet.get(reason, 0) + 1
            return reason
        self._logged[reason] = now
        quiet = self._quiet.pop(reason, 0)
        self.log.warning("atualização malformada ignorada (%s): id %s, motivo %s%s%s", self.channel,
                         "?" if update_id is None else update_id,
                         reason, f" ({detail})" if detail else "",
                         f"; mais {quiet} com o mesmo motivo desde o último registro" if quiet else "")
        return reason
