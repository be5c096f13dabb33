"""Download a Bible edition, verify it by parsing and counting, and store it atomically."""

from __future__ import annotations

import json
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

import httpx

from corpus.bible import load, sha256_of
from corpus.loaders.errors import CorpusError

MAX_DOWNLOAD_BYTES = 200 * 1024 * 1024


def fetch(url: str, data_dir: Path, sha256: str | None = None, min_verses: int = 31000,
          client: httpx.Client | None = None, log: Callable[[str], None] = lambda _: None) -> Path:
    """Download ``url`` (XML or a ZIP holding one) into ``data_dir/corpus`` and return the file.

    The file replaces an earlier copy only after it parsed completely, held at least
    ``min_verses`` verses and, when given, matched ``sha256``.
    """
    target_dir = Path(data_dir) / "corpus"
    target_dir.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target_dir, prefix=".fetch-") as work:
        download_path = Path(work) / "download"
        log(f"baixando {url}")
        download(url, download_path, client)
        digest = sha256_of(download_path)
        if sha256 and digest.lower() != sha256.lower():
            raise CorpusError(url, f"sha256 não confere: esperado {sha256}, recebido {digest}")
        xml = extract_largest(download_path, Path(work)) if zipfile.is_zipfile(download_path) else download_path
        bible = load(xml)
        if len(bible) < min_verses:
            raise CorpusError(url, f"só {len(bible)} versículos; o mínimo esperado é {min_verses}")
        name = _target_name(url, xml)
        target = target_dir / name
        os.replace(xml, target)
        manifest = {"url": url, "sha256": digest, "file_sha256": sha256_of(target), "format": bible.format,
                    "books": len(bible.books()), "verses": len(bible), "fetched_at": int(time.time())}
        (target_dir / f"{name}.json").write_text(json.dumps(manifest, indent=2), encoding="utf-8")
    log(f"{len(bible)} versículos em {len(bible.books())} livros ({bible.format}) salvos em {target}")
    return target


def download(url: str, path: Path, client: httpx.Client | None = None) -> None:
    """Stream ``url`` into ``path``; CorpusError on any HTTP or network failure."""
    own = client is None
    client = client or httpx.Client(follow_redirects=True, timeout=httpx.Timeout(60.0, connect=15.0))
    try:
        with client.stream("GET", url) as response:
            if response.status_code != 200:
                raise CorpusError(url, f"download falhou com HTTP {response.status_code}")
            size = 0
            with path.open("wb") as out:
                for chunk in response.iter_bytes(1 << 16):
                    size += len(chunk)
                    if size > MAX_DOWNLOAD_BYTES:
                        raise CorpusError(url, "download maior que o limite de 200 MB")
                    out.write(chunk)
    except httpx.HTTPError as error:
        raise CorpusError(url, f"download falhou ({type(error).__name__})") from None
    finally:
        if own:
            client.close()


def extract_largest(archive: Path, work: Path, suffixes: tuple[str, ...] = (".xml",)) -> Path:
    """The largest member of a ZIP with one of ``suffixes`` (eBible's USFX zips hold one Bible plus metadata)."""
    with zipfile.ZipFile(archive) as zf:
        members = [m for m in zf.infolist() if m.filename.lower().endswith(suffixes) and not m.is_dir()]
        if not members:
            raise CorpusError(archive, f"o ZIP não contém nenhum arquivo {'/'.join(suffixes)}")
        best = max(members, key=lambda m: m.file_size)
        if best.file_size > MAX_DOWNLOAD_BYTES:
            raise CorpusError(archive, "arquivo dentro do ZIP maior que 200 MB")
        out = work / f"extracted{suffixes[0]}"
        with zf.open(best) as src, out.open("wb") as dst:
            shutil.copyfileobj(src, dst)
    return out


def _target_name(url: str, xml: Path) -> str:
    stem = Path(httpx.URL(url).path).name or "corpus"
    for suffix in (".zip", ".xml"):
        stem = stem.removesuffix(suffix)
    return f"{stem}.xml"
