"""Graded (message, verse, grade, why) pairs: the asset the aptness ranker and the harm model learn from.

One JSON object per line: {"situation", "q", "verse", "grade", "why", "judge", "set"}. ``grade`` is the
rubric of shared/eval/README.md (2 apt, 1 weak, 0 off, -1 tone-deaf); ``q`` may be left out for a situation
whose message lives in a file this repository must not copy (the shared dev set): it is then looked up by
``situation`` in the message files given to `load_pairs`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

GRADES = (-1, 0, 1, 2)
DATA = Path(__file__).resolve().parent.parent / "data" / "aptness"


class GradesError(ValueError):
    """A graded-pairs file is malformed; the message names the file and the line."""


@dataclass(frozen=True)
class GradedPair:
    situation: str
    q: str
    verse: str  # "PSA.34.18"
    grade: int
    why: str = ""
    judge: str = ""
    set: str = ""


def load_pairs(path: Path, messages: dict[str, str] | None = None) -> list[GradedPair]:
    """The pairs of one file; ``messages`` (situation id -> text) fills a missing ``q``."""
    out = []
    for number, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            q = row.get("q") or (messages or {}).get(row["situation"], "")
            pair = GradedPair(str(row["situation"]), q, str(row["verse"]), int(row["grade"]),
                              str(row.get("why", "")), str(row.get("judge", "")), str(row.get("set", "")))
        except (ValueError, KeyError, TypeError) as error:
            raise GradesError(f"{path}:{number}: linha inválida ({error})") from error
        if pair.grade not in GRADES or pair.verse.count(".") != 2:
            raise GradesError(f"{path}:{number}: nota fora de {GRADES} ou versículo malformado: {line[:80]}")
        out.append(pair)
    return out


_READ: dict[tuple, list[GradedPair]] = {}  # the same files, unchanged, are read once per process


def load_all(paths: Iterable[Path], messages: dict[str, str] | None = None) -> list[GradedPair]:
    """Pairs of several files; a pair graded twice keeps its last grade. One situation id names one message:
    an id reused for another message (two rounds numbered alike) is an error naming both files."""
    paths = [Path(p) for p in paths]
    try:
        stats = [p.stat() for p in paths]
        stamp = (tuple((str(p), s.st_mtime_ns, s.st_size) for p, s in zip(paths, stats)),
                 tuple(sorted((messages or {}).items())))
    except OSError:
        return _load_all(paths, messages)  # a missing file: said by the reading itself
    if stamp not in _READ:
        _READ[stamp] = _load_all(paths, messages)
    return list(_READ[stamp])


def _load_all(paths: list[Path], messages: dict[str, str] | None) -> list[GradedPair]:
    latest: dict[tuple[str, str], GradedPair] = {}
    seen: dict[str, tuple[str, Path]] = {}
    for path in paths:
        for pair in load_pairs(path, messages):
            first = seen.setdefault(pair.situation, (pair.q, path))
            if pair.q and first[0] and pair.q != first[0]:
                raise GradesError(f"{path}: a situação {pair.situation} já nomeia outra mensagem em {first[1]}")
            latest[(pair.situation, pair.verse)] = pair
    return [p for p in latest.values() if p.q]


def position_of(bible, verse_id: str) -> int | None:
    """The corpus position of "PSA.34.18", or None when this corpus lacks it."""
    book, chapter, verse = verse_id.split(".")
    return bible.position(book, int(chapter), int(verse))


def grade_files(directory: Path = DATA) -> list[Path]:
    return sorted(Path(directory).glob("grades-*.jsonl"))


def as_situations(pairs: Iterable[GradedPair]) -> list[dict]:
    """Situation items in the eval format ({"id", "kind", "q", "grades"})."""
    items: dict[str, dict] = {}
    for pair in pairs:
        item = items.setdefault(pair.situation, {"id": pair.situation, "kind": "situation", "q": pair.q,
                                                 "grades": {}})
        item["grades"][pair.verse] = pair.grade
    return list(items.values())
