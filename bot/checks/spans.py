"""Small text helpers shared by the answer checks: words with their spans, sentence bounds, cutting."""

from __future__ import annotations

import re

from corpus.text import fold

_WORD = re.compile(r"\w+")
_SENTENCE_END = re.compile(r"[.!?…](?=[\s”\"»')\]]|$)|\n")


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


def sentences(text: str) -> list[tuple[int, int]]:
    """The spans of ``text``'s sentences, in order (sentence_span of each)."""
    out, position = [], 0
    while position < len(text):
        if text[position].isspace():
            position += 1
            continue
        start, end = sentence_span(text, position, position)
        end = max(end, position + 1)
        out.append((start, end))
        position = end
    return out


def cut(text: str, start: int, end: int, insert: str = "") -> str:
    """``text`` with ``[start, end)`` replaced, spaces and blank lines tidied where it was."""
    left, right = text[:start].rstrip(" \t"), text[end:].lstrip(" \t")
    if insert:
        joined = f"{left} {insert}" if left and not left.endswith("\n") else left + insert
        return _tidy(joined + (" " + right if right and not right.startswith(("\n", ",", ".")) else right))
    if left and right and not left.endswith("\n") and not right.startswith("\n"):
        return _tidy(f"{left} {right}")
    if left.endswith("\n") and right.startswith("\n"):
        right = right[1:]  # a whole line went: so does its line break
    return _tidy(left + right)


def apply_edits(text: str, edits: list[tuple[int, int, str, bool]]) -> str:
    """Apply ``(start, end, new, sentence)`` edits from the end backwards, skipping one inside an edit already
    made; a sentence edit is cut tidily (spaces, blank lines), any other replaces the characters exactly."""
    done_from = len(text) + 1
    for start, end, new, sentence in sorted(set(edits), key=lambda e: (e[0], e[1]), reverse=True):
        if end > done_from:
            continue
        text = cut(text, start, end, new) if sentence else text[:start] + new + text[end:]
        done_from = start
    return text


def _tidy(text: str) -> str:
    text = re.sub(r"[ \t]{2,}", " ", text)
    text = re.sub(r"[ \t]+\n", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()
