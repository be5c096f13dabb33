"""The people index kept on disk beside the intent model, keyed by what it is made of (restarts skip ~2 s)."""

from __future__ import annotations

import hashlib
import json
import logging
import os
from importlib import metadata
from pathlib import Path

from retrieval.knowledge import homonyms, people, spelling
from retrieval.knowledge.people import Event, PeopleIndex, Person

log = logging.getLogger("pastor.people")
FILES = ("People.csv", "Events.csv")
CACHE_NAME = "people.json"


def key_of(directory: Path, corpus_sha: str) -> str:
    """The corpus, the Theographic files and the code that aligns them: any change makes a new index."""
    digest = hashlib.sha256(f"{corpus_sha}|{metadata.version('pyspellchecker')}".encode())  # the spoken words
    for path in [*(Path(directory) / name for name in FILES), Path(people.__file__), Path(homonyms.__file__),
                 Path(spelling.__file__)]:
        digest.update(path.read_bytes())
    return digest.hexdigest()


def cached(directory: Path, bible, corpus_sha: str, cache_dir: Path | None) -> PeopleIndex:
    """`PeopleIndex.load`, from ``cache_dir`` when it was made of the same inputs; written there otherwise."""
    if cache_dir is None:
        return PeopleIndex.load(directory, bible)
    try:
        key = key_of(directory, corpus_sha)
    except OSError:
        return PeopleIndex.load(directory, bible)  # unreadable files: `load` says which
    path = Path(cache_dir) / CACHE_NAME
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if data.get("key") == key:
            return from_json(data, bible)
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        pass  # absent or unreadable: rebuilt below
    index = PeopleIndex.load(directory, bible)
    try:
        Path(cache_dir).mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(json.dumps({"key": key, **as_json(index)}, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, path)
    except OSError as error:
        log.info("pessoas bíblicas não guardadas em %s (%s): montadas de novo no próximo início", cache_dir, error)
    return index


def as_json(index: PeopleIndex) -> dict:
    return {"people": [[p.id, p.english, p.name, p.display, sorted(p.qualifiers), p.positions,
                        [[title, positions] for title, positions in p.events], p.gender,
                        [list(r) for r in p.relatives], p.also, p.called] for p in index.people],
            "events": [[e.title, e.positions] for e in index.events],
            "names": index.names, "spelled": index.spelled, "ordinary": sorted(index.ordinary),
            "plain": sorted(index.plain), "titled": sorted(index.titled)}


def from_json(data: dict, bible) -> PeopleIndex:
    found = [Person(pid, english, name, display, frozenset(qualifiers), tuple(positions),
                    tuple((title, tuple(ps)) for title, ps in events), gender,
                    tuple((column, relative, int(verses)) for column, relative, verses in relatives), tuple(also),
                    tuple(called))
             for pid, english, name, display, qualifiers, positions, events, gender, relatives, also, called
             in data["people"]]
    index = PeopleIndex(found, [Event(title, tuple(ps)) for title, ps in data["events"]],
                        [(v.book, v.chapter) for v in bible.verses],
                        {word: tuple(ps) for word, ps in data["names"].items()})
    index.spelled = dict(data["spelled"])
    index.ordinary = frozenset(data["ordinary"])
    index.plain = frozenset(data["plain"])
    index.titled = frozenset(data["titled"])
    return index
