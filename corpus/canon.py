"""The 66-book Protestant canon: codes, Portuguese names, testaments and groups."""

from __future__ import annotations

from dataclasses import dataclass

OLD_TESTAMENT = "AT"
NEW_TESTAMENT = "NT"


@dataclass(frozen=True, slots=True)
class Book:
    """One canonical book."""

    code: str  # USFM code, e.g. "JHN"
    osis: str  # OSIS code, e.g. "John"
    number: int  # 1..66 in canonical order
    name: str  # Portuguese display name, e.g. "João"
    abbreviation: str  # the usual Brazilian abbreviation, e.g. "Jo"
    chapters: int
    testament: str  # "AT" or "NT"
    group: str

    @property
    def numbered(self) -> bool:
        """True for books like 1 Samuel, whose name starts with an ordinal."""
        return self.code[0].isdigit()


_GROUPS = (
    ("Lei", 5),
    ("Históricos", 12),
    ("Poéticos", 5),
    ("Profetas Maiores", 5),
    ("Profetas Menores", 12),
    ("Evangelhos", 4),
    ("Atos", 1),
    ("Cartas Paulinas", 13),
    ("Cartas Gerais", 8),
    ("Apocalipse", 1),
)

# code, osis, name, abbreviation, chapters — in canonical order.
_TABLE = """
GEN Gen Gênesis Gn 50
EXO Exod Êxodo Êx 40
LEV Lev Levítico Lv 27
NUM Num Números Nm 36
DEU Deut Deuteronômio Dt 34
JOS Josh Josué Js 24
JDG Judg Juízes Jz 21
RUT Ruth Rute Rt 4
1SA 1Sam 1_Samuel 1Sm 31
2SA 2Sam 2_Samuel 2Sm 24
1KI 1Kgs 1_Reis 1Rs 22
2KI 2Kgs 2_Reis 2Rs 25
1CH 1Chr 1_Crônicas 1Cr 29
2CH 2Chr 2_Crônicas 2Cr 36
EZR Ezra Esdras Ed 10
NEH Neh Neemias Ne 13
EST Esth Ester Et 10
JOB Job Jó Jó 42
PSA Ps Salmos Sl 150
PRO Prov Provérbios Pv 31
ECC Eccl Eclesiastes Ec 12
SNG Song Cânticos Ct 8
ISA Isa Isaías Is 66
JER Jer Jeremias Jr 52
LAM Lam Lamentações Lm 5
EZK Ezek Ezequiel Ez 48
DAN Dan Daniel Dn 12
HOS Hos Oséias Os 14
JOL Joel Joel Jl 3
AMO Amos Amós Am 9
OBA Obad Obadias Ob 1
JON Jonah Jonas Jn 4
MIC Mic Miquéias Mq 7
NAM Nah Naum Na 3
HAB Hab Habacuque Hc 3
ZEP Zeph Sofonias Sf 3
HAG Hag Ageu Ag 2
ZEC Zech Zacarias Zc 14
MAL Mal Malaquias Ml 4
MAT Matt Mateus Mt 28
MRK Mark Marcos Mc 16
LUK Luke Lucas Lc 24
JHN John João Jo 21
ACT Acts Atos At 28
ROM Rom Romanos Rm 16
1CO 1Cor 1_Coríntios 1Co 16
2CO 2Cor 2_Coríntios 2Co 13
GAL Gal Gálatas Gl 6
EPH Eph Efésios Ef 6
PHP Phil Filipenses Fp 4
COL Col Colossenses Cl 4
1TH 1Thess 1_Tessalonicenses 1Ts 5
2TH 2Thess 2_Tessalonicenses 2Ts 3
1TI 1Tim 1_Timóteo 1Tm 6
2TI 2Tim 2_Timóteo 2Tm 4
TIT Titus Tito Tt 3
PHM Phlm Filemom Fm 1
HEB Heb Hebreus Hb 13
JAS Jas Tiago Tg 5
1PE 1Pet 1_Pedro 1Pe 5
2PE 2Pet 2_Pedro 2Pe 3
1JN 1John 1_João 1Jo 5
2JN 2John 2_João 2Jo 1
3JN 3John 3_João 3Jo 1
JUD Jude Judas Jd 1
REV Rev Apocalipse Ap 22
"""


def _build() -> tuple[Book, ...]:
    groups = [name for name, size in _GROUPS for _ in range(size)]
    books = []
    for number, line in enumerate(_TABLE.split("\n")[1:-1], start=1):
        code, osis, name, abbreviation, chapters = line.split()
        books.append(
            Book(
                code=code,
                osis=osis,
                number=number,
                name=name.replace("_", " "),
                abbreviation=abbreviation,
                chapters=int(chapters),
                testament=OLD_TESTAMENT if number <= 39 else NEW_TESTAMENT,
                group=groups[number - 1],
            )
        )
    return tuple(books)


BOOKS: tuple[Book, ...] = _build()
BY_CODE: dict[str, Book] = {b.code: b for b in BOOKS}
BY_OSIS: dict[str, Book] = {b.osis.lower(): b for b in BOOKS}
BY_NUMBER: dict[int, Book] = {b.number: b for b in BOOKS}
GROUPS: tuple[str, ...] = tuple(name for name, _ in _GROUPS)


def book(code: str) -> Book:
    """The book with this USFM code; KeyError if it is not in the canon."""
    return BY_CODE[code.upper()]


def canonical_order(code: str) -> int:
    """Position of a book in the canon (1..66)."""
    return BY_CODE[code].number
