"""Message text for chat apps: splitting under a size limit, Telegram HTML, the sources block."""

from __future__ import annotations

import html
from collections.abc import Callable

from bot.reply import Source

TELEGRAM_LIMIT = 4096


def utf16_len(text: str) -> int:
    """Length as Telegram counts it: UTF-16 code units (an emoji outside the BMP counts two)."""
    return len(text.encode("utf-16-le")) // 2


def split_message(text: str, limit: int, measure: Callable[[str], int] = len) -> list[str]:
    """Parts with ``measure(part) <= limit``, cut at paragraph, then line, then sentence, then word boundaries."""
    text = text.strip()
    if measure(text) <= limit:
        return [text] if text else []
    parts: list[str] = []
    rest = text
    while measure(rest) > limit:
        fit = _fitting(rest, limit, measure)
        window = rest[:fit]
        cut = max(window.rfind("\n\n"), 0)
        for separator in ("\n", ". ", " "):
            if cut < fit // 3:
                cut = window.rfind(separator)
                cut = cut + len(separator.rstrip()) if cut > 0 else 0
        if cut < fit // 3:
            cut = fit
        parts.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        parts.append(rest)
    return [p for p in parts if p]


def _fitting(text: str, limit: int, measure: Callable[[str], int]) -> int:
    """The most leading characters of ``text`` whose measure stays within ``limit`` (at least one)."""
    low, high = 1, len(text)
    while low < high:
        middle = (low + high + 1) // 2
        if measure(text[:middle]) <= limit:
            low = middle
        else:
            high = middle - 1
    return low


def telegram_html_parts(text: str) -> list[str]:
    """The answer split first (never inside an ``&amp;``), each part escaped for HTML parse mode and
    within Telegram's limit in UTF-16 units."""
    parts = split_message(text, TELEGRAM_LIMIT, lambda part: utf16_len(html.escape(part, quote=False)))
    return [html.escape(part, quote=False) for part in parts]


def sources_html(sources: list[Source], limit: int = TELEGRAM_LIMIT, title: str = "📖 Fontes") -> str:
    """One message: the verses in an expandable blockquote, trimmed with a note if they do not fit."""
    head, tail = f"<b>{html.escape(title)}</b>\n<blockquote expandable>", "</blockquote>"
    entries = [f"<b>{html.escape(s.reference)}</b> {html.escape(s.text)}" for s in sources]
    body: list[str] = []
    for n, entry in enumerate(entries):
        note = _trim_note(len(entries) - n - 1)
        candidate = "\n".join(body + [entry])
        if utf16_len(head + candidate + tail + note) + 1 > limit:
            omitted = len(entries) - n
            note = _trim_note(omitted)
            if not body:  # a single verse longer than the limit: cut its text
                room = _fitting(entry, limit - utf16_len(head + tail + note) - 2, utf16_len)
                body.append(entry[:room].rsplit(" ", 1)[0] + "…")
                omitted -= 1
                note = _trim_note(omitted)
            return head + "\n".join(body) + tail + ("\n" + note if omitted else "")
        body.append(entry)
    return head + "\n".join(body) + tail


def _trim_note(omitted: int) -> str:
    if omitted <= 0:
        return ""
    word = "versículo" if omitted == 1 else "versículos"
    return f"<i>… e mais {omitted} {word} (mensagem muito longa).</i>"


def sources_plain(sources: list[Source]) -> str:
    """Plain text for apps without collapsible blocks (WhatsApp)."""
    return "\n\n".join(f"*{s.reference}* {s.text}" for s in sources)
