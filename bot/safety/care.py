"""What the bot says to a person at risk: per kind, with the public services of their country (data files)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from bot.safety.lexicon import LexiconError
from corpus.text import fold
from retrieval.understand.chat import normalize_chat
from retrieval.understand.tone import pattern_regex

DATA = Path(__file__).resolve().parent.parent / "data" / "crisis"
FUNCTIONS = frozenset({"emergencia", "policia", "saude", "intoxicacao", "suicidio", "mulher", "crianca", "idoso",
                       "vitima"})
_SENTENCES = re.compile(r"(?<=[.!?…])\s+")
SHORT_ANSWER_WORDS = 6  # a reply to the safety question longer than this is read as a message of its own


@dataclass(frozen=True)
class Service:
    name: str
    contact: str
    functions: frozenset[str]


@dataclass(frozen=True)
class Country:
    code: str
    name: str
    emergency: dict[str, str]  # urgency -> what to call: {"emergencia": "190 (polícia) ou 192 (SAMU)", "saude": ...}
    services: tuple[Service, ...]


@dataclass(frozen=True)
class KindCare:
    functions: tuple[str, ...]
    opening: str
    question: str
    now: str
    verses: tuple[str, ...]  # references as a pastor writes them ("Salmos 34:18")
    llm_note: str
    urgency: str = "emergencia"  # which emergency number "ligue ..." names (services.toml)


class CrisisCare:
    """The replies of care.toml with the services of services.toml; contacts come only from these files and
    from the church's CRISIS_CONTACTS, never from a model."""

    def __init__(self, care_path: Path = DATA / "care.toml", services_path: Path = DATA / "services.toml",
                 church_contacts: str = "", church_only: bool = False, default_country: str = "BR"):
        care, services = _toml(care_path), _toml(services_path)
        self.texts = care["geral"]
        missing = sorted({"ajuda_intro", "sem_servicos", "igreja_intro", "convite", "emergencia_local", "lembrete",
                          "checagem", "seguro", "atento"} - set(self.texts))
        if missing:
            raise LexiconError(f"{care_path}: faltam os textos {missing} em [geral]")
        self.kinds = {name: KindCare(tuple(entry.get("funcoes", ())), entry["abertura"], entry.get("pergunta", ""),
                                     entry.get("agora", ""), tuple(entry.get("versiculos", ())),
                                     entry.get("nota_llm", ""), entry.get("urgencia", "emergencia"))
                      for name, entry in care["tipo"].items()}
        self.countries = {code: Country(code, entry["nome"], _urgencies(entry),
                                        tuple(_service(services_path, code, s) for s in entry.get("servico", ())))
                          for code, entry in services.items()}
        for name, kind in self.kinds.items():
            unknown = set(kind.functions) - FUNCTIONS
            if unknown:
                raise LexiconError(f"{care_path}: tipo {name} com funções desconhecidas {sorted(unknown)}")
        self.church, self.church_only, self.default_country = church_contacts.strip(), church_only, default_country
        words = pattern_regex(tuple(care["geral"]["reafirma"])).pattern
        self._affirms = re.compile(rf"(?:{words})(?:[\s,.!?]+(?:{words}))*[\s,.!?]*")  # answers made only of these
        self._safe = pattern_regex(tuple(care["geral"]["a_salvo"]))
        self.guard = pattern_regex(tuple(care["geral"]["guarda"]))
        self._counsel = pattern_regex(tuple(care["geral"]["conselhos_proibidos"]))

    def country(self, code: str | None) -> Country | None:
        """The person's country, else the configured one; None when its services are not listed."""
        return self.countries.get((code or self.default_country).upper())

    def kind(self, name: str | None) -> KindCare:
        return self.kinds.get(name or "", self.kinds["suicide-direct"])

    def emergency(self, code: str | None, kind: str | None = None) -> str:
        country = self.country(code)
        if country is None or self.church_only:
            return self.texts["emergencia_local"]
        return country.emergency[self.kind(kind).urgency]

    def help_lines(self, kind: str | None, code: str | None, also: str | None = None) -> str:
        """The services that fit this kind (then those of ``also``, a second kind the message may be) in this
        country, then the church's contacts; never empty."""
        lines, country = [], self.country(code)
        if country is not None and not self.church_only:
            wanted = (self.kind(kind).functions or ("suicidio", "emergencia")) + \
                (self.kind(also).functions if also else ())
            chosen = [s for function in wanted for s in country.services if function in s.functions]
            lines = [f"• {s.name}: {s.contact}" for s in dict.fromkeys(chosen)]
        parts = [self.texts["ajuda_intro"] + "\n" + "\n".join(lines)] if lines else []
        if self.church:
            parts.append(f"{self.texts['igreja_intro']} {self.church}")
        if not lines:
            parts.insert(0, self.texts["sem_servicos"])
        return "\n\n".join(parts)

    def reply_text(self, kind: str | None, code: str | None, also: str | None = None) -> str:
        """Opening, the direct question, what to do now, the help that fits, and an invitation to keep writing."""
        care = self.kind(kind)
        now = care.now.format(emergencia=self.emergency(code, kind))
        parts = [care.opening, care.question, now, self.help_lines(kind, code, also), self.texts["convite"]]
        return "\n\n".join(part for part in parts if part)

    def watchful(self, kind: str | None, code: str | None) -> str:
        """A message near a crisis, but not one: a word that the bot is there, the one service that fits the
        kind read and, when that is another, the suicide line (the kind of a message this unsure may be wrong)."""
        country = self.country(code)
        services = [] if country is None or self.church_only else [
            next((s for function in functions for s in country.services if function in s.functions), None)
            for functions in (self.kind(kind).functions or ("suicidio",), ("suicidio",))]
        contacts = [f"{s.name}: {s.contact}" for s in dict.fromkeys(s for s in services if s is not None)]
        contact = "; ".join(contacts) or self.church or self.texts["emergencia_local"]
        return self.texts["atento"].format(servico=contact)

    def reminder(self, kind: str | None, code: str | None) -> str:
        """What every reply in care mode ends with: the help still visible, and a check on the person."""
        return "\n\n".join([self.texts["lembrete"].format(emergencia=self.emergency(code, kind)),
                            self.help_lines(kind, code), self.texts["checagem"]])

    def affirms(self, text: str) -> bool:
        """A short answer that says yes, gives a time or a plan, or says the person is not safe."""
        folded = fold(normalize_chat(text))
        return len(folded.split()) <= SHORT_ANSWER_WORDS and bool(self._affirms.fullmatch(folded.strip()))

    def says_safe(self, text: str) -> bool:
        """The person says they are safe ("to segura agora"); never when the words are negated."""
        folded = fold(normalize_chat(text))
        return any(folded[:m.start()].split()[-1:] not in (["nao"], ["nem"], ["nunca"])
                   for m in self._safe.finditer(folded))

    def scrub(self, answer: str) -> tuple[str, list[str]]:
        """A generated answer without the sentences that counsel submission, secrecy, reconciliation with an
        abuser or "only pray", or speak of sin and hell to a person in crisis: (text, sentences cut)."""
        kept, cut = [], []
        for paragraph in answer.split("\n\n"):
            sentences = _SENTENCES.split(paragraph)
            good = [s for s in sentences if not self._counsel.search(fold(s))]
            cut += [s for s in sentences if s not in good]
            if good:
                kept.append(" ".join(good))
        return "\n\n".join(kept), cut

    def forbidden(self, verse_text: str) -> bool:
        """A verse never shown in a crisis: submission, discipline, judgement, anything read as blame."""
        return bool(self.guard.search(fold(verse_text)))


def _toml(path: Path) -> dict:
    try:
        return tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as error:
        raise LexiconError(f"{path}: {error}") from error


def _urgencies(entry: dict) -> dict[str, str]:
    general = entry["emergencia_texto"]
    return {"emergencia": general, "policia": entry.get("policia_texto", general),
            "saude": entry.get("saude_texto", general)}


def _service(path: Path, code: str, entry: dict) -> Service:
    functions = frozenset(entry.get("funcoes", ()))
    if not entry.get("nome") or not entry.get("contato") or not entry.get("fonte") or functions - FUNCTIONS:
        raise LexiconError(f"{path}: serviço de {code} precisa de nome, contato, fonte e funções conhecidas: {entry}")
    return Service(entry["nome"], entry["contato"], functions)
