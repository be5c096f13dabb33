"""The index manifest: what was built, from what, and whether the build finished."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

FORMAT_VERSION = 1
COMPLETE = "complete"
BUILDING = "building"


class IndexCorrupt(RuntimeError):
    """The index on disk cannot be read or contradicts its manifest."""


@dataclass
class Manifest:
    format_version: int = FORMAT_VERSION
    status: str = BUILDING
    corpus: dict = field(default_factory=dict)  # path, sha256, name, format, verses
    embedder: dict = field(default_factory=dict)  # backend, model, dimension
    chunking: dict = field(default_factory=dict)  # window, neighbour_weight
    lexical: dict = field(default_factory=dict)  # stemmer, documents
    store: dict = field(default_factory=dict)  # kind, location, collection, vectors
    built_at: float = 0.0
    build_seconds: float = 0.0

    @property
    def complete(self) -> bool:
        return self.status == COMPLETE and self.format_version == FORMAT_VERSION


def read_manifest(path: Path) -> Manifest | None:
    """The manifest at ``path``; None if absent; IndexCorrupt if unreadable."""
    if not path.exists():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        known = {k: v for k, v in data.items() if k in Manifest.__dataclass_fields__}
        return Manifest(**known)
    except (OSError, ValueError, TypeError) as error:
        raise IndexCorrupt(f"manifesto ilegível em {path}: {error}") from error


def write_json_atomic(path: Path, data: dict) -> None:
    """Write JSON so that readers see the old file or the new one, never half of one."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(data, handle, ensure_ascii=False, indent=1)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)


def write_manifest(path: Path, manifest: Manifest) -> None:
    write_json_atomic(path, asdict(manifest))
