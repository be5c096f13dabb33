"""Small text helpers shared by the answer checks: accent folding that keeps offsets, sentence bounds, cutting."""

from __future__ import annotations

import re
import unicodedata

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?…](?=[\s”\"»')\]]|$)|\n")


def fold(text: str) -> str:
    """Lower case without accents, one character for one character (offsets stay valid)."""
    out = []
    for char in text:
        base = unicodedata.normalize("NFD", char)[0]
        low = base.lower()
        out.append(low if len(low) == 1 else base)
    return "".join(out)


def words(text: str) -> list[tuple[str, int, int]]:
    """Folded words of ``text`` with their spans in it."""
    folded = fold(text)
    return [(m.group(), m.start(), m.end()) for m in _WORD.finditer(folded)]


def sentence_span(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence holding ``text[start:end]``: from after the previous sentence end to its own end mark."""
    before = 0
    for match in _SENTENCE_END.finditer(text, 0, start):
        before = match.end()
    if re.search(r"[.!?…][”\"»')]*$", text[max(0, end - 3):end]):
        return before, end  # the sentence ended inside the quotation that closes it
    found = _SENTENCE_END.search(text, end)
    after = len(text) if found is None else (found.start() if found.group() == "\n" else found.end())
    return before, after


def cut(text: str, start: int, end: int, insert: str = "") -> str:
    """``text`` with ``[start, end)`` replaced, spaces and blank lines tidied where it was."""
    left, right = text[:start].rstrip(" \t"), text[end:].lstrip(" \t")
    if insert:
        joined = f"{left} {insert}" if left and not left.endswith("\n") else left + insert
        return _tidy(joined + (" " + right if right and not right.startswith(("\n", ",", ".")) else right))
    if left and right and not left.endswith("\n") and not right.startswith("\n"):
        return _tidy(f"{left} {right}")
    return _tidy(left + right)


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
