"""Portuguese names and abbreviations of the 66 books, as token tuples of folded text."""

from __future__ import annotations

import re

from corpus.canon import BOOKS

# Forms of each unnumbered book (folded: lower case, no accents). A form may have
# several words. Abbreviations are written without the dot; a dot after them is
# accepted by the parser.
NAMES: dict[str, str] = {
    "GEN": "genesis gen gn ge genese",
    "EXO": "exodo exo ex exd exod",
    "LEV": "levitico leviticos lev lv levit le",
    "NUM": "numeros num nm nu numer",
    "DEU": "deuteronomio deut deu dt deuter deuteronomios",
    "JOS": "josue jos js",
    "JDG": "juizes juiz jz jui",
    "RUT": "rute rut rt ruth ru",
    "EZR": "esdras esd ed esdr",
    "NEH": "neemias nee ne neem",
    "EST": "ester est et esther",
    "JOB": "jo job",
    "PSA": "salmos salmo sl sal sls slm salm",
    "PRO": "proverbios proverbio prov pv pr prv pro",
    "ECC": "eclesiastes ecl ec ecle ecles qoelet coelet qohelet eclesiaste",
    "SNG": "canticos cantico cantares cantar ct cnt cant|cantico dos canticos|canticos dos canticos"
           "|cantares de salomao|cantico de salomao|canticos de salomao|cantico superior|cantico superlativo",
    "ISA": "isaias isa is",
    "JER": "jeremias jer jr jerem je",
    "LAM": "lamentacoes lamentacao lam lm|lamentacoes de jeremias",
    "EZK": "ezequiel ezeq eze ez",
    "DAN": "daniel dan dn da",
    "HOS": "oseias os ose",
    "JOL": "joel jl",
    "AMO": "amos am",
    "OBA": "obadias obd ob abdias abd oba",
    "JON": "jonas jon jn",
    "MIC": "miqueias miq mq",
    "NAM": "naum na",
    "HAB": "habacuque habacuc hab hc",
    "ZEP": "sofonias sof sf",
    "HAG": "ageu ag",
    "ZEC": "zacarias zac zc",
    "MAL": "malaquias mal ml",
    "MAT": "mateus mat mt",
    "MRK": "marcos mc mrc marc mar mr",
    "LUK": "lucas luc lc",
    "JHN": "joao jo joa",
    "ACT": "atos at actos act|atos dos apostolos|actos dos apostolos",
    "ROM": "romanos rom rm ro",
    "GAL": "galatas gal gl",
    "EPH": "efesios efe ef efes",
    "PHP": "filipenses filip fil fp flp fl",
    "COL": "colossenses col cl",
    "TIT": "tito tit tt",
    "PHM": "filemom filemon filem fm flm flmn fmn",
    "HEB": "hebreus heb hb",
    "JAS": "tiago tg tia",
    "JUD": "judas jud jd",
    "REV": "apocalipse apoc apc ap revelacao|apocalipse de joao|apocalipse de sao joao",
}

# Numbered books: the name after the ordinal, and the code for each ordinal.
NUMBERED: dict[str, tuple[str, tuple[str, ...]]] = {
    "samuel sam sm": ("", ("1SA", "2SA")),
    "reis rs re rei": ("", ("1KI", "2KI")),
    "cronicas cronica cron cro cr paralipomenos par": ("", ("1CH", "2CH")),
    "corintios cor co corint": ("", ("1CO", "2CO")),
    "tessalonicenses tessalonicences tess tes ts": ("", ("1TH", "2TH")),
    "timoteo tim tm ti": ("", ("1TI", "2TI")),
    "pedro ped pe pd": ("", ("1PE", "2PE")),
    "joao jo j": ("", ("1JN", "2JN", "3JN")),
    # The old Catholic naming: 1-2 Reinos are 1-2 Samuel, 3-4 Reinos are 1-2 Reis.
    "reinos reino": ("", ("1SA", "2SA", "1KI", "2KI")),
}

# Forms that are also everyday words: they count as a book only when followed by
# chapter *and* verse ("Os 2:19", never "os 3 filhos").
AMBIGUOUS = frozenset("os na ex ap sal mal tia col am at deu nu ge par rei re revelacao mar mr "
                      "le ru je da ro pro oba exod j reino reinos".split())
# Chat shorthand ("mt" = muito, "pr" = pastor): a book when capitalised ("Mt 5") or with a verse.
SHORTHAND = frozenset("mt pr job".split())

ORDINALS: dict[str, int] = {
    "i": 1, "ii": 2, "iii": 3, "iv": 4,
    "primeiro": 1, "primeira": 1, "segundo": 2, "segunda": 2, "terceiro": 3, "terceira": 3, "quarto": 4, "quarta": 4,
}

# Words that may introduce a book name: "livro de", "carta aos", "Evangelho segundo São".
INTRO_WORDS = frozenset("livro carta epistola evangelho profeta profecia sao".split())
CONNECTOR_WORDS = frozenset("de do da dos das aos as a ao o segundo sao s paulo apostolo profeta".split())
MAX_CONNECTORS = 4


def _forms(spec: str) -> list[tuple[str, ...]]:
    """"a b|c d" -> [("a",), ("b",), ("c", "d")]: spaces split one-word forms, "|" adds phrases."""
    first, *phrases = spec.split("|")
    return [(word,) for word in first.split()] + [tuple(p.split()) for p in phrases]


def _build() -> tuple[dict[tuple[str, ...], str], dict[tuple[str, ...], tuple[str, ...]], frozenset[str]]:
    """Portuguese forms, then the USFM and OSIS codes typed as such ("JHN.3.16", "Phil 4:6", "1SA 3:10"):
    codes that are not Portuguese forms count only with chapter and verse."""
    plain = {form: code for code, spec in NAMES.items() for form in _forms(spec)}
    numbered = {form: codes for spec, (_, codes) in NUMBERED.items() for form in _forms(spec)}
    coded: set[str] = set()
    for book in BOOKS:
        for code in {book.code.lower(), book.osis.lower()}:
            ordinal, name = re.fullmatch(r"([123]?)(\w+)", code).groups()
            if not ordinal and (name,) not in plain:
                plain[(name,)] = book.code
                coded.add(name)
            elif ordinal:
                codes = list(numbered.get((name,), ()))
                if not codes:
                    codes = ["" for _ in range(3)]
                elif len(codes) < int(ordinal):
                    codes += [""] * (int(ordinal) - len(codes))
                if codes[int(ordinal) - 1] in ("", book.code):
                    codes[int(ordinal) - 1] = book.code
                    if (name,) not in numbered:
                        coded.add(name)
                    numbered[(name,)] = tuple(codes)
    return plain, numbered, frozenset(coded)


PLAIN_FORMS, NUMBERED_FORMS, CODE_FORMS = _build()
AMBIGUOUS = AMBIGUOUS | CODE_FORMS
MAX_FORM_TOKENS = max(len(f) for f in (*PLAIN_FORMS, *NUMBERED_FORMS))
FIRST_TOKENS = frozenset(f[0] for f in (*PLAIN_FORMS, *NUMBERED_FORMS))
