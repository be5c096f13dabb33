"""The OpenBible.info topical index (CC BY) as a prior: which verses people turn to for a theme."""

from __future__ import annotations

import csv
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

from corpus.bible import Bible
from corpus.canon import BY_NUMBER

ATTRIBUTION = "Topical data © OpenBible.info, CC BY"
MAX_RANGE = 8  # verses taken from one voted range


class TopicsError(RuntimeError):
    """The configured topical data cannot be read."""


def _verse(code: str) -> tuple[str, int, int] | None:
    """"40005044" -> ("MAT", 5, 44)."""
    if len(code) != 8 or not code.isdigit():
        return None
    book = BY_NUMBER.get(int(code[:2]))
    return (book.code, int(code[2:5]), int(code[5:])) if book else None


class TopicIndex:
    """Topic name -> verse positions with their share of the topic's top votes."""

    def __init__(self, topics: dict[str, list[tuple[int, float]]], path: str = "",
                 verse_votes: dict[int, float] | None = None):
        self.topics = topics
        self.path = path
        self.verse_votes = verse_votes or {}  # every topic's votes for a verse, summed: how well known it is
        self._rankings: dict[tuple, list[tuple[int, float]]] = {}  # the data never changes: rankings are kept

    @classmethod
    def load(cls, path: Path, bible: Bible, wanted: Iterable[str] | None = None) -> TopicIndex:
        wanted_set = {w.lower() for w in wanted} if wanted is not None else None
        votes: dict[str, dict[int, float]] = defaultdict(dict)
        verse_votes: dict[int, float] = defaultdict(float)
        try:
            with Path(path).open(encoding="utf-8", newline="") as handle:
                reader = csv.reader(handle, delimiter="\t")
                next(reader, None)
                for row in reader:
                    if len(row) < 4:
                        continue
                    try:
                        count = float(row[3])
                    except ValueError:
                        continue
                    if count <= 0:
                        continue
                    first = _verse(row[1].strip())
                    position = bible.position(*first) if first else None
                    if position is not None:
                        verse_votes[position] += count
                    topic = row[0].strip().lower()
                    if wanted_set is not None and topic not in wanted_set:
                        continue
                    for position in _positions(bible, row[1].strip(), row[2].strip()):
                        bucket = votes[topic]
                        bucket[position] = max(bucket.get(position, 0.0), count)
        except OSError as error:
            raise TopicsError(f"não foi possível ler os dados de tópicos em {path}: {error}") from error
        if not votes:
            raise TopicsError(f"nenhum tópico utilizável em {path}")
        topics = {}
        for topic, bucket in votes.items():
            top = max(bucket.values())
            topics[topic] = sorted(((p, v / top) for p, v in bucket.items()), key=lambda pv: -pv[1])
        return cls(topics, str(path), dict(verse_votes))

    def best_known(self, positions: Iterable[int], limit: int) -> list[int]:
        """Of ``positions``, the verses with most votes across all topics, best first."""
        voted = [p for p in positions if p in self.verse_votes]
        return sorted(voted, key=lambda p: (-self.verse_votes[p], p))[:limit]

    def missing(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if n.lower() not in self.topics]

    def ranking(self, topic_names: Iterable[str], limit: int = 100) -> list[tuple[int, float]]:
        """Verses of the given topics, by summed normalised votes (kept: the same groups come back)."""
        key = (tuple(name.lower() for name in topic_names), limit)
        ranked = self._rankings.get(key)
        if ranked is None:
            scores: dict[int, float] = defaultdict(float)
            for name in key[0]:
                for position, share in self.topics.get(name, ()):
                    scores[position] += share
            ranked = sorted(scores.items(), key=lambda pv: (-pv[1], pv[0]))[:limit]
            if len(self._rankings) < 4096:
                self._rankings[key] = ranked
        return ranked

    def interleaved(self, groups: list[list[str]], limit: int = 100) -> list[int]:
        """One ranking per group of topics (one group per concept), taken in turns."""
        rankings = [[p for p, _ in self.ranking(group, limit)] for group in groups]
        out: list[int] = []
        seen: set[int] = set()
        for rank in range(min(limit, max(map(len, rankings), default=0))):  # a scope asks for every verse
            for ranking in rankings:
                if rank < len(ranking) and ranking[rank] not in seen:
                    seen.add(ranking[rank])
                    out.append(ranking[rank])
        return out[:limit]


def _positions(bible: Bible, start: str, end: str) -> list[int]:
    first = _verse(start)
    if first is None:
        return []
    position = bible.position(*first)
    if position is None:
        return []
    last = _verse(end) if end else None
    if last is None:
        return [position]
    last_position = bible.position(*last)
    if last_position is None or last_position < position:
        return [position]
    return list(range(position, min(last_position, position + MAX_RANGE - 1) + 1))


def fetch_topics(url: str, data_dir: Path, min_rows: int = 50_000, log=lambda _: None) -> Path:
    """Download the OpenBible topical data (TSV or a ZIP holding it), check it, store it atomically."""
    import os
    import tempfile
    import zipfile

    from corpus.fetch import download, extract_largest

    target_dir = Path(data_dir) / "topics"
    target_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target_dir, prefix=".fetch-") as work:
        raw = Path(work) / "download"
        log(f"baixando {url}")
        download(url, raw)
        text = extract_largest(raw, Path(work), (".txt", ".tsv", ".csv")) if zipfile.is_zipfile(raw) else raw
        rows = _count_rows(text)
        if rows < min_rows:
            raise TopicsError(f"{url}: só {rows} linhas de tópicos válidas; o mínimo esperado é {min_rows}")
        target = target_dir / "openbible-topic-votes.tsv"
        os.replace(text, target)
    log(f"{rows} linhas de tópicos salvas em {target} ({ATTRIBUTION})")
    return target


def _count_rows(path: Path) -> int:
    rows = 0
    with path.open(encoding="utf-8", errors="strict", newline="") as handle:
        reader = csv.reader(handle, delimiter="\t")
        header = next(reader, [])
        if len(header) < 4 or "topic" not in header[0].lower():
            raise TopicsError(f"{path.name}: cabeçalho inesperado {header[:4]}")
        for row in reader:
            if len(row) >= 4 and _verse(row[1].strip()) and row[3].strip().lstrip("-").isdigit():
                rows += 1
    return rows
