"""Everything a generated answer goes through before anyone reads it, drafts included."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot import texts
from bot.checks.citations import validate
from bot.checks.claims import check_claims
from bot.checks.guard import Judge, guard, official_contacts
from bot.checks.quotes import MIN_WORDS, QUOTE, align, check_quotes
from bot.checks.spans import words
from corpus.bible import Bible
from corpus.references import Reference, find_references, verses_of


@dataclass(frozen=True)
class AnswerRules:
    """What one answer is checked against."""

    bible: Bible
    retrieved: list[str]  # verse ids given to the model, [FONTE 1] first
    message: str = ""  # the person's words: quoting them back is fine
    allowed_contacts: str = ""  # CRISIS_CONTACTS: the only numbers, links and addresses allowed
    referral: str = texts.MEDICAL  # in place of a treatment directive ("" when the answer already opens with it)
    judge: Judge | None = None  # reads sentences by meaning (bot.checks.guard_model); None: the patterns alone


@dataclass
class CheckedAnswer:
    text: str
    kept: list[str] = field(default_factory=list)  # citations as now written ("João 3:16")
    removed: list[str] = field(default_factory=list)  # citations removed, as the model wrote them
    corrected_quotes: list[dict] = field(default_factory=list)
    removed_contacts: list[str] = field(default_factory=list)
    replaced_directives: list[str] = field(default_factory=list)
    removed_sentences: list[str] = field(default_factory=list)  # the kinds of harmful sentences removed


def check_answer(text: str, rules: AnswerRules, final: bool = True) -> CheckedAnswer:
    """Citations, quotations, claims about a verse, contacts and treatment directives, in that order; ``final`` adds the
    unanchored note to an answer left without citations (a draft never shows it)."""
    cited = validate(text, rules.retrieved, rules.bible, note=False)
    quoted = check_quotes(cited.text, rules.bible, rules.retrieved, rules.message)
    quoted = check_claims(quoted.text, rules.bible, quoted)
    allowed = f"{rules.allowed_contacts}; {official_contacts()}"
    masked = _masked(quoted.text, rules) if rules.judge is not None else None
    guarded = guard(quoted.text, allowed, rules.referral, rules.judge, masked)
    body = guarded.text
    referenced = [c["reference"] for c in quoted.corrections if c["action"] == "referenced"]
    kept = [label for label in dict.fromkeys(cited.kept + referenced) if label in body]
    if final and not kept:
        body = f"{body}\n\n{texts.UNANCHORED_NOTE}" if body else texts.UNANCHORED_NOTE
    return CheckedAnswer(body, kept, cited.removed, quoted.corrections, guarded.removed_contacts,
                         guarded.replaced_directives, guarded.removed_sentences)


def _masked(text: str, rules: AnswerRules) -> str:
    """``text`` with the quotations of a retrieved or cited verse blanked: the judge reads the answer's own words."""
    passages = [" ".join(v.text for v in verses_of(ref, rules.bible)) for ref in find_references(text)]
    passages += [" ".join(v.text for v in verses_of(Reference.from_osis(i), rules.bible)) for i in rules.retrieved]
    for match in QUOTE.finditer(text):
        inner = next(g for g in match.groups() if g is not None)
        if len(words(inner)) >= MIN_WORDS and any(align(inner, p).ok for p in passages if p):
            start, end = match.span()
            text = text[:start + 1] + " " * (end - start - 2) + text[end - 1:]
    return text


def balanced(text: str) -> bool:
    """True when every quotation opened in ``text`` is closed (a draft never shows half a quotation)."""
    return text.count("“") == text.count("”") and text.count("«") == text.count("»") and text.count('"') % 2 == 0
