"""Vectors of short texts (exemplar banks, graded messages) kept on disk per embedder, keyed by the text.

A model trained from a bank (crisis, answer guard, intents) is cached by the bank's hash, so a pastor who
edits one line makes the whole model train again; with these vectors kept, only the new lines are embedded.
The file is a cache: written whole or not at all, and a file that cannot be read is embedded again.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from retrieval.index.documents import text_key

log = logging.getLogger("pastor.index")

Embed = Callable[[Sequence[str]], np.ndarray]

_READ: dict[Path, tuple[float, dict[str, np.ndarray]]] = {}  # path -> (mtime, vectors): read once per change


def remembered(embed: Embed, embedder_slug: str, directory: Path | str | None) -> Embed:
    """``embed`` that reuses the vectors it made before for the same embedder in ``directory`` (None: plain)."""
    if directory is None:
        return embed
    path = Path(directory) / f"texts-{embedder_slug}.npz"

    def cached(texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        known = _read(path)
        missing = list(dict.fromkeys(t for t in texts if text_key(t) not in known))
        if missing:
            fresh = np.asarray(embed(missing), dtype=np.float32)
            known = {**_read(path), **known, **dict(zip(map(text_key, missing), fresh))}  # another process's too
            _write(path, known)
        if not texts:
            return np.asarray(embed([]), dtype=np.float32)
        return np.stack([known[text_key(t)] for t in texts])

    return cached


def _read(path: Path) -> dict[str, np.ndarray]:
    try:
        mtime = path.stat().st_mtime
    except OSError:
        return {}
    seen = _READ.get(path)
    if seen is not None and seen[0] == mtime:
        return seen[1]
    try:
        with np.load(path, allow_pickle=False) as data:
            vectors = dict(zip(data["keys"].tolist(), data["vectors"]))
    except (OSError, ValueError, KeyError) as error:
        log.warning("vetores de textos em cache ilegíveis (%s: %s): serão refeitos", path.name, error)
        return {}
    _READ[path] = (mtime, vectors)
    return vectors


def _write(path: Path, vectors: dict[str, np.ndarray]) -> None:
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npz")
        np.savez(tmp, keys=np.array(list(vectors), dtype="U32"), vectors=np.stack(list(vectors.values())))
        tmp.replace(path)
        _READ[path] = (path.stat().st_mtime, vectors)
    except OSError as error:  # a read-only models directory: the vectors are made again next time
        log.warning("não foi possível guardar os vetores de textos em %s: %s", path.parent, error)
