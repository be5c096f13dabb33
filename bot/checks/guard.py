"""Generated-text guard: no invented contacts, treatment directives, condemnations or counsel to submit to
violence, whatever the model wrote: by the patterns of guard.toml, and by meaning with a sentence judge."""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from bot.checks.spans import apply_edits, sentence_span, sentences
from bot.checks.spelled import Spelled, spelled_numbers
from corpus.text import fold

Judge = Callable[[Sequence[str]], list[str | None]]  # bot.checks.guard_model.SentenceJudge
MIN_JUDGED_WORDS = 3  # shorter sentences ("Amém.", "Deus te ama.") are not read by meaning

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_PATH = r"[^\s<>()“”\"]*[^\s<>()“”\".,;:!?]"
PHONE = re.compile(r"(?<![\w:.,-])\+?\(?\d[\d\s().-]{5,}\d(?![\w:])")
SHORT_NUMBER = re.compile(r"\b(?:ligue|ligar|liga|disque|discar|telefone|telefonar|fone|tel|whatsapp|zap|sms"
                          r"|numero|contato|central)\b\D{0,25}?\b(\d{3,7})\b")
AMOUNT = re.compile(r"\d{1,3}(?:\.\d{3})+(?:,\d+)?")  # 10.000.000: a quantity, never a phone number
MIN_PHONE_DIGITS = 8


@dataclass
class Guarded:
    text: str
    removed_contacts: list[str] = field(default_factory=list)
    replaced_directives: list[str] = field(default_factory=list)
    removed_sentences: list[str] = field(default_factory=list)  # "condemnation", "submission", "contact"


@dataclass(frozen=True)
class _Rules:
    directive: re.Pattern
    negations: frozenset[str]
    cautions_before: re.Pattern
    cautions_after: re.Pattern


@dataclass(frozen=True)
class _Shapes:
    url: re.Pattern
    hosts: tuple[str, ...]  # a link on one of these hosts (or below them) is a public service
    others: tuple[re.Pattern, ...]  # handles, PIX keys, spelled addresses, streets: never allowed
    public: str  # the public services of guard.toml, as one text


GUARD_FILE = "data/guard.toml"


@cache
def _shapes() -> _Shapes:
    """The contact shapes of guard.toml; a broken one is an error naming the file and its line."""
    text = resources.files("bot").joinpath(GUARD_FILE).read_text(encoding="utf-8")
    data = tomllib.loads(text)["contacts"]

    def line_of(key: str) -> int:
        return next((n for n, line in enumerate(text.splitlines(), 1) if line.startswith(f"{key} =")), 0)

    others = []
    for name, pattern in data["shapes"].items():
        try:
            others.append(re.compile(str(pattern)))
        except re.error as error:
            raise ValueError(f"bot/{GUARD_FILE}:{line_of(name)}: padrão '{name}' inválido ({error})") from error
    public = []
    for n, service in enumerate(data.get("public", []), 1):
        if not (isinstance(service, dict) and str(service.get("nome", "")).strip() and
                re.search(r"\d", str(service.get("contato", ""))) and str(service.get("fonte", "")).startswith("http")):
            raise ValueError(f"bot/{GUARD_FILE}: contacts.public nº {n} precisa de nome, contato e fonte")
        public.append(f"{service['nome']} {service['contato']}")
    ends = "|".join(re.escape(d) for d in sorted(data["domains"], key=len, reverse=True))
    url = re.compile(rf"(?:https?://|www\.){_PATH}|\b[a-z0-9][a-z0-9-]*(?:\.[a-z0-9-]+)*"
                     rf"\.(?:{ends})(?:\.br)?\b(?:/{_PATH})?", re.IGNORECASE)
    return _Shapes(url, tuple(h.lower() for h in data["allowed_hosts"]), tuple(others), "; ".join(public))


@cache
def _rules() -> _Rules:
    data = tomllib.loads(resources.files("bot").joinpath("data/guard.toml").read_text(encoding="utf-8"))
    t = data["treatment"]

    def alternatives(items) -> str:
        return "|".join(re.escape(i).replace(r"\ ", r"\s+") for i in sorted(items, key=len, reverse=True))

    verb = rf"\b(?P<verb>{alternatives(t['verbs'])})\b(?:\s+\S+){{0,3}}?\s+(?:{alternatives(t['objects'])})\b"
    care = alternatives(t["visit_objects"])
    visit = rf"\b(?P<visit>{alternatives(t['visit_verbs'])})\b(?:\s+\S+){{0,2}}?\s+(?:{care})\b"
    return _Rules(re.compile("|".join([verb, visit, *(rf"\b(?:{p})\b" for p in t["patterns"])])),
                  frozenset(t["negations"]), re.compile(rf"\b(?:{alternatives(t['cautions_before'])})\b"),
                  re.compile(rf"\b(?:{alternatives(t['cautions_after'])})\b"))


def guard(text: str, allowed: str, referral: str, judge: Judge | None = None, masked: str | None = None) -> Guarded:
    """Remove contacts not in ``allowed`` and replace treatment directives by ``referral``; with ``judge``, the
    sentences it reads as harmful too. ``masked``: ``text`` with verified verse quotations blanked (same length),
    which the judge reads instead (a verse is not the model's counsel)."""
    result = Guarded(text)
    spans: list[tuple[int, int, str]] = []  # sentences to drop or replace
    for found in _contacts(text):
        if not _allowed(found, allowed):
            result.removed_contacts.append(_value(found))
            spans.append((*sentence_span(text, found.start(), found.end()), ""))
    rules, folded = _rules(), fold(text)
    for found in rules.directive.finditer(folded):
        if (found.group("verb") or found.group("visit")) and _negated(folded, found.start(), rules.negations):
            continue
        start, end = sentence_span(text, found.start(), found.end())
        if rules.cautions_before.search(folded, start, found.start()) or rules.cautions_after.search(
                folded, found.end(), end):
            continue  # a caution, a condition, someone else's words
        result.replaced_directives.append(text[start:end].strip())
        spans.append((start, end, referral))
    if judge is not None:
        spans += _judged(text, masked or text, allowed, referral, judge, spans, result)
    result.text = _rewrite(text, spans, referral)
    return result


def _judged(text: str, masked: str, allowed: str, referral: str, judge: Judge, taken, result: Guarded):
    """The sentences the judge reads as harmful, outside those the patterns already took."""
    candidates = []
    for start, end in sentences(masked):
        if any(start < e and s < end for s, e, _ in taken):
            continue
        read = re.sub(r"\s+", " ", re.sub(r"([“«\"])\s+([”»\"])", r"\1…\2", masked[start:end])).strip()
        if len(re.findall(r"\w+", read)) >= MIN_JUDGED_WORDS:
            candidates.append((start, end, read))
    spans = []
    for (start, end, _), kind in zip(candidates, judge([read for _, _, read in candidates])):
        sentence = text[start:end].strip()
        if kind is None or (kind == "contact" and _names_allowed(sentence, allowed)):
            continue
        if kind == "treatment":
            result.replaced_directives.append(sentence)
            spans.append((start, end, referral))
        else:
            result.removed_sentences.append(kind)
            spans.append((start, end, ""))
    return spans


def _names_allowed(sentence: str, allowed: str) -> bool:
    """True when the sentence names one of the allowed contacts (its number, spelled or not, or its acronym)."""
    folded = fold(sentence)
    numbers = {re.sub(r"\D", "", n) for n in re.findall(r"\+?\d[\d\s().-]*\d|\d+", allowed)}
    said = {re.sub(r"\D", "", n) for n in re.findall(r"\d[\d\s().-]*\d|\d+", sentence)}
    said |= {s.digits for s in spelled_numbers(folded)}
    acronyms = {fold(a) for a in re.findall(r"\b[A-Z]{3,}\b", allowed)}
    return bool(said & numbers) or any(re.search(rf"\b{a}\b", folded) for a in acronyms)


@cache
def official_contacts() -> str:
    """Every public service of bot/data/crisis/services.toml, as one text: numbers an answer may always give."""
    data = tomllib.loads(resources.files("bot").joinpath("data/crisis/services.toml").read_text(encoding="utf-8"))
    parts = []
    for country in data.values():
        parts += [str(v) for k, v in country.items() if k.endswith("_texto")]
        parts += [f"{s.get('nome', '')} {s.get('contato', '')}" for s in country.get("servico", [])]
    return "; ".join([*parts, _shapes().public])


def _contacts(text: str) -> list:
    found: list = []  # re.Match and Spelled, both with start() and end()

    def free(m) -> bool:
        return all(m.end() <= f.start() or m.start() >= f.end() for f in found)

    shapes = _shapes()
    for pattern in (EMAIL, shapes.url):
        found += [m for m in pattern.finditer(text) if free(m)]
    found += [m for m in PHONE.finditer(text) if free(m) and len(re.sub(r"\D", "", m.group())) >= MIN_PHONE_DIGITS
              and not AMOUNT.fullmatch(m.group().strip()) and not text[max(0, m.start() - 3):m.start()].strip()
              .endswith("$")]
    folded = fold(text)
    for pattern in shapes.others:
        found += [m for m in pattern.finditer(folded) if free(m)]
    found += [m for m in SHORT_NUMBER.finditer(folded) if free(m)]
    found += [s for s in spelled_numbers(folded) if free(s)]
    return sorted(found, key=lambda m: m.start())


def _value(found) -> str:
    if isinstance(found, Spelled):
        return found.digits
    return found.group(1) if found.re is SHORT_NUMBER else found.group()


def _allowed(found, allowed: str) -> bool:
    value = _value(found)
    if isinstance(found, Spelled) or found.re in (PHONE, SHORT_NUMBER):
        digits = re.sub(r"\D", "", value)
        known = {re.sub(r"\D", "", n) for n in re.findall(r"\+?\d[\d\s().-]*\d|\d", allowed)}
        return any(digits == k or (len(digits) >= 8 and (k.endswith(digits) or digits.endswith(k)) and len(k) >= 8)
                   for k in known)
    if found.re in _shapes().others:
        return False
    plain = re.sub(r"^(?:https?://)?(?:www\.)?", "", value.lower()).rstrip("/.")
    host = plain.split("/")[0]
    public = any(host == h or host.endswith(f".{h}") for h in _shapes().hosts)
    return bool(plain) and (plain in allowed.lower() or public)


def _negated(folded: str, start: int, negations: frozenset[str]) -> bool:
    before = folded[max(0, start - 12):start].split()
    return bool(before) and before[-1] in negations


def _rewrite(text: str, spans: list[tuple[int, int, str]], referral: str) -> str:
    """Drop the contacts' sentences; the referral once, in place of the first directive, unless already given."""
    first = min((start for start, _, new in spans if new), default=None)
    given = referral in text
    return apply_edits(text, [(start, end, new if start == first and not given else "", True)
                              for start, end, new in spans])
