"""Generated-text guard: no invented contacts, no treatment directives, whatever the model wrote."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from bot.spans import apply_edits, sentence_span
from corpus.text import fold

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PATH = r"[^\s<>()“”\"]*[^\s<>()“”\".,;:!?]"
URL = re.compile(rf"(?:https?://|www\.){_PATH}|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*"
                 rf"\.(?:com|org|net|gov|edu|info|io|app|me|br)(?:\.br)?\b(?:/{_PATH})?", re.IGNORECASE)
PHONE = re.compile(r"(?<![\w:.,-])\+?\(?\d[\d\s().-]{5,}\d(?![\w:])")
SHORT_NUMBER = re.compile(r"\b(?:ligue|ligar|liga|disque|discar|telefone|telefonar|fone|tel|whatsapp|zap|sms"
                          r"|numero|contato|central)\b\D{0,25}?\b(\d{3,7})\b")
MIN_PHONE_DIGITS = 8


@dataclass
class Guarded:
    text: str
    removed_contacts: list[str] = field(default_factory=list)
    replaced_directives: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class _Rules:
    directive: re.Pattern
    negations: frozenset[str]


@cache
def _rules() -> _Rules:
    data = tomllib.loads(resources.files("bot").joinpath("data/guard.toml").read_text(encoding="utf-8"))
    t = data["treatment"]

    def alternatives(items) -> str:
        return "|".join(re.escape(i).replace(r"\ ", r"\s+") for i in sorted(items, key=len, reverse=True))

    verb = rf"\b(?P<verb>{alternatives(t['verbs'])})\b(?:\s+\S+){{0,3}}?\s+(?:{alternatives(t['objects'])})\b"
    return _Rules(re.compile("|".join([verb, *(rf"\b(?:{p})\b" for p in t["patterns"])])),
                  frozenset(t["negations"]))


def guard(text: str, allowed: str, referral: str) -> Guarded:
    """Remove contacts not in ``allowed`` and replace treatment directives by ``referral``."""
    result = Guarded(text)
    spans: list[tuple[int, int, str]] = []  # sentences to drop or replace
    for found in _contacts(text):
        if not _allowed(found, allowed):
            result.removed_contacts.append(found.group(1) if found.re is SHORT_NUMBER else found.group())
            spans.append((*sentence_span(text, found.start(), found.end()), ""))
    rules, folded = _rules(), fold(text)
    for found in rules.directive.finditer(folded):
        if found.group("verb") and _negated(folded, found.start(), rules.negations):
            continue
        start, end = sentence_span(text, found.start(), found.end())
        result.replaced_directives.append(text[start:end].strip())
        spans.append((start, end, referral))
    result.text = _rewrite(text, spans, referral)
    return result


def _contacts(text: str) -> list[re.Match]:
    found: list[re.Match] = []

    def free(m: re.Match) -> bool:
        return all(m.end() <= f.start() or m.start() >= f.end() for f in found)

    for pattern in (EMAIL, URL):
        found += [m for m in pattern.finditer(text) if free(m)]
    found += [m for m in PHONE.finditer(text) if free(m) and len(re.sub(r"\D", "", m.group())) >= MIN_PHONE_DIGITS]
    folded = fold(text)
    found += [m for m in SHORT_NUMBER.finditer(folded) if free(m)]
    return sorted(found, key=lambda m: m.start())


def _allowed(found: re.Match, allowed: str) -> bool:
    value = found.group(1) if found.re is SHORT_NUMBER else found.group()
    if found.re in (PHONE, SHORT_NUMBER):
        digits = re.sub(r"\D", "", value)
        known = {re.sub(r"\D", "", n) for n in re.findall(r"\+?\d[\d\s().-]*\d|\d", allowed)}
        return any(digits == k or (len(digits) >= 8 and (k.endswith(digits) or digits.endswith(k)) and len(k) >= 8)
                   for k in known)
    plain = re.sub(r"^(?:https?://)?(?:www\.)?", "", value.lower()).rstrip("/.")
    return bool(plain) and plain in allowed.lower()


def _negated(folded: str, start: int, negations: frozenset[str]) -> bool:
    before = folded[max(0, start - 12):start].split()
    return bool(before) and before[-1] in negations


def _rewrite(text: str, spans: list[tuple[int, int, str]], referral: str) -> str:
    """Drop the contacts' sentences; the referral once, in place of the first directive, unless already given."""
    first = min((start for start, _, new in spans if new), default=None)
    given = referral in text
    return apply_edits(text, [(start, end, new if start == first and not given else "", True)
                              for start, end, new in spans])
