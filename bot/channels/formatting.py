"""Message text for chat apps: splitting under a size limit, Telegram HTML, the sources block."""

from __future__ import annotations

import html

from bot.reply import Source

TELEGRAM_LIMIT = 4096


def split_message(text: str, limit: int) -> list[str]:
    """Parts under ``limit`` characters, cut at paragraph, then line, then sentence, then word boundaries."""
    text = text.strip()
    if len(text) <= limit:
        return [text] if text else []
    parts: list[str] = []
    rest = text
    while len(rest) > limit:
        window = rest[:limit]
        cut = max(window.rfind("\n\n"), 0)
        for separator in ("\n", ". ", " "):
            if cut < limit // 3:
                cut = window.rfind(separator)
                cut = cut + len(separator.rstrip()) if cut > 0 else 0
        if cut < limit // 3:
            cut = limit
        parts.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        parts.append(rest)
    return [p for p in parts if p]


def telegram_html_parts(text: str) -> list[str]:
    """The answer escaped for HTML parse mode and split under Telegram's limit."""
    return split_message(html.escape(text, quote=False), TELEGRAM_LIMIT)


def sources_html(sources: list[Source], limit: int = TELEGRAM_LIMIT, title: str = "📖 Fontes") -> str:
    """One message: the verses in an expandable blockquote, trimmed with a note if they do not fit."""
    head, tail = f"<b>{html.escape(title)}</b>\n<blockquote expandable>", "</blockquote>"
    entries = [f"<b>{html.escape(s.reference)}</b> {html.escape(s.text)}" for s in sources]
    body: list[str] = []
    for n, entry in enumerate(entries):
        note = _trim_note(len(entries) - n - 1)
        candidate = "\n".join(body + [entry])
        if len(head) + len(candidate) + len(tail) + len(note) + 1 > limit:
            omitted = len(entries) - n
            note = _trim_note(omitted)
            if not body:  # a single verse longer than the limit: cut its text
                room = limit - len(head) - len(tail) - len(note) - 2
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
