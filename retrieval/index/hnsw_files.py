"""Embedded Chroma's HNSW files, proven searchable by a child process before this process reads them.

Chroma reads HNSW files in native code: a corrupt file can kill the reading process with
SIGSEGV instead of raising. So a child process searches them first, and the bytes it proved
searchable are remembered (sha256 per file) so that later starts only hash them again.
"""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
from pathlib import Path

from retrieval.index.manifest import write_json_atomic
from retrieval.index.store import StoreError

CHILD_TIMEOUT = 300  # seconds; the full corpus takes about 2 s on 2 cores


def fingerprint(chroma_dir: Path) -> dict[str, str]:
    """sha256 of every file in Chroma's segment directories (the HNSW files), by relative path."""
    if not chroma_dir.is_dir():
        return {}
    files = sorted(p for p in chroma_dir.glob("*/*") if p.is_file())
    return {str(p.relative_to(chroma_dir)): _sha256(p) for p in files}


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def ensure_searchable(chroma_dir: Path, collection: str, dimension: int, record: Path) -> None:
    """Raise `StoreError` unless the HNSW files under ``chroma_dir`` answer searches in a child process;
    files already proven (same bytes as in ``record``) are not searched again."""
    files = fingerprint(chroma_dir)
    if not files or _proven(record) == files:
        return  # no HNSW files yet (small collections live in SQLite), or the very bytes proven before
    try:
        command = [sys.executable, "-m", "retrieval.index.hnsw_files", str(chroma_dir), collection, str(dimension)]
        child = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as error:
        raise StoreError(f"o repositório de vetores em {chroma_dir} não respondeu a uma busca de teste em "
                         f"{CHILD_TIMEOUT} s") from error
    if child.returncode < 0:
        name = signal.Signals(-child.returncode).name
        raise StoreError(f"o repositório de vetores em {chroma_dir} derrubou o processo de teste ({name}): "
                         "arquivos HNSW corrompidos")
    if child.returncode != 0:
        lines = child.stdout.strip().splitlines() or child.stderr.strip().splitlines() or ["sem mensagem"]
        raise StoreError(lines[-1][:400])
    write_json_atomic(record, {"files": files})


def _proven(record: Path) -> dict | None:
    try:
        return json.loads(record.read_text(encoding="utf-8")).get("files")
    except (OSError, ValueError, AttributeError):
        return None


def _child(chroma_dir: str, collection: str, dimension: str) -> int:
    """Open the collection and search it; print the reason and return 1 when it cannot."""
    from retrieval.index.store import ChromaStore, chroma_client, probe

    try:
        probe(ChromaStore(chroma_client(path=Path(chroma_dir)), collection, chroma_dir), int(dimension))
    except StoreError as error:
        print(error)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(_child(*sys.argv[1:4]))
