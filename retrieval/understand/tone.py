"""Tone labels per verse (judgement, law on sex, barrenness, blame...): what the harm guard keeps from the top."""

from __future__ import annotations

import bisect
import csv
import hashlib
import json
import os
import re
import tomllib
import unicodedata
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from corpus.bible import Bible
from corpus.text import fold, normalize
from retrieval.understand.topics import _positions

DATA = Path(__file__).resolve().parent.parent / "data" / "tones.toml"
MIN_VOTES = 10  # a harsh topic labels a verse only with this many votes...
MIN_SHARE = 0.3  # ... and at least this share of the verse's best-voted topic
LABELS_VERSION = 2  # part of the cache key: bump when the way patterns match changes


@dataclass(frozen=True)
class Tone:
    key: str
    name: str
    patterns: tuple[str, ...]
    topics: tuple[str, ...]


def load_tones(path: Path = DATA) -> tuple[Tone, ...]:
    data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    return tuple(Tone(key, entry["nome"], tuple(entry.get("padroes", ())),
                      tuple(t.lower() for t in entry.get("topicos", ())))
                 for key, entry in data.items())


def pattern_regex(patterns: tuple[str, ...]) -> re.Pattern:
    """Word sequences, a word's trailing "*" a prefix: ``("ai de", "maldit*", "mandad* embora")`` -> one
    regex on folded text."""
    parts = []
    for pattern in patterns:
        words = [re.escape(w.rstrip("*")) + (r"\w*" if w.endswith("*") else r"\b") for w in fold(pattern).split()]
        parts.append(r"\b" + r"[ \t]+".join(words))
    return re.compile("|".join(parts)) if parts else re.compile(r"(?!x)x")


class ToneLabels:
    """Verse position -> the harsh tones it carries, from its words and its OpenBible topic votes."""

    def __init__(self, labels: dict[int, frozenset[str]], tones: tuple[Tone, ...]):
        self.labels = labels
        self.tones = {t.key: t for t in tones}
        self._regexes = {t.key: pattern_regex(t.patterns) for t in tones if t.patterns}

    @classmethod
    def build(cls, bible: Bible, topics_path: Path | None = None, tones: tuple[Tone, ...] | None = None) -> ToneLabels:
        tones = tones if tones is not None else load_tones()
        labels: dict[int, set[str]] = defaultdict(set)
        texts = [_plain(v.text) for v in bible.verses]
        starts = [0]
        for text in texts[:-1]:
            starts.append(starts[-1] + len(text) + 1)
        corpus = "\n".join(texts)  # one scan per tone over the whole Bible, not one per verse
        for tone in tones:
            for match in pattern_regex(tone.patterns).finditer(corpus):
                labels[bisect.bisect_right(starts, match.start()) - 1].add(tone.key)
        if topics_path is not None:
            for position, key in _topic_labels(bible, Path(topics_path), tones):
                labels[position].add(key)
        return cls({p: frozenset(k) for p, k in labels.items()}, tones)

    @classmethod
    def cached(cls, bible: Bible, corpus_sha: str, topics_path: Path | None, cache_dir: Path) -> ToneLabels:
        """`build`, kept in ``cache_dir`` keyed by the corpus, the tone file and the topic data (restarts skip ~1 s)."""
        tones = load_tones()
        topics = Path(topics_path) if topics_path is not None else None
        stat = topics.stat() if topics is not None and topics.exists() else None
        key = hashlib.sha256(json.dumps([LABELS_VERSION, corpus_sha, DATA.read_text(encoding="utf-8"), str(topics),
                                         stat and (stat.st_size, stat.st_mtime_ns)]).encode()).hexdigest()
        path = Path(cache_dir) / "tones.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("key") == key:
                return cls({int(p): frozenset(k) for p, k in data["labels"].items()}, tones)
        except (OSError, ValueError, KeyError, AttributeError):
            pass  # absent or unreadable: rebuilt below
        labels = cls.build(bible, topics, tones)
        try:
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps({"key": key, "labels": {p: sorted(k) for p, k in labels.labels.items()}}),
                           encoding="utf-8")
            os.replace(tmp, path)
        except OSError:
            pass  # a read-only data dir only costs the rebuild next time
        return labels

    def of(self, position: int) -> frozenset[str]:
        return self.labels.get(position, frozenset())

    def named_in(self, text: str) -> frozenset[str]:
        """Tones whose own words the question uses ("a formiga e o preguiçoso"): the person asked for them."""
        plain = _plain(text)
        return frozenset(key for key, regex in self._regexes.items() if regex.search(plain))


def _plain(text: str) -> str:
    """Lower case without accents, on one line (offsets need not be kept)."""
    decomposed = unicodedata.normalize("NFKD", normalize(text))
    return decomposed.encode("ascii", "ignore").decode("ascii").lower().replace("\n", " ")


def _topic_labels(bible: Bible, path: Path, tones: tuple[Tone, ...]):
    """(position, tone) for verses whose votes in a harsh topic are a large share of their best topic."""
    harsh = {topic: tone.key for tone in tones for topic in tone.topics}
    best: dict[int, float] = defaultdict(float)
    harsh_votes: dict[tuple[int, str], float] = defaultdict(float)
    try:
        handle = path.open(encoding="utf-8", newline="")
    except OSError:
        return []
    with handle:
        reader = csv.reader(handle, delimiter="\t")
        next(reader, None)
        for row in reader:
            if len(row) < 4:
                continue
            try:
                votes = float(row[3])
            except ValueError:
                continue
            topic = row[0].strip().lower()
            for position in _positions(bible, row[1].strip(), row[2].strip()):
                best[position] = max(best[position], votes)
                if topic in harsh:
                    key = (position, harsh[topic])
                    harsh_votes[key] = max(harsh_votes[key], votes)
    return [(position, key) for (position, key), votes in harsh_votes.items()
            if votes >= MIN_VOTES and votes >= MIN_SHARE * best[position]]
