"""Bible file loaders: format detection against an explicit list of accepted formats."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from xml.parsers import expat

from corpus.loaders.errors import ACCEPTED_FORMATS, CorpusError
from corpus.loaders.osis import OsisReader
from corpus.loaders.usfx import UsfxReader
from corpus.loaders.xmlreader import XmlBibleReader, local_name
from corpus.loaders.zefania import ZefaniaReader
from corpus.verse import Verse

__all__ = ["ACCEPTED_FORMATS", "CorpusError", "detect_format", "open_reader", "iter_verses"]

READERS: dict[str, type[XmlBibleReader]] = {
    "usfx": UsfxReader,
    "osis": OsisReader,
    "xmlbible": ZefaniaReader,
}
_SNIFF_BYTES = 1 << 16
_BINARY_MAGIC = {
    b"%PDF": "um PDF",
    b"PK\x03\x04": "um arquivo ZIP (descompacte-o antes)",
    b"\x1f\x8b": "um arquivo gzip (descompacte-o antes)",
}


class _RootFound(Exception):
    def __init__(self, name: str):
        self.name = name


def detect_format(path: str | Path) -> str:
    """Name of the format of ``path`` ("USFX", "OSIS" or "Zefania XML"), or CorpusError."""
    return open_reader(path).format_name


def open_reader(path: str | Path) -> XmlBibleReader:
    """A streaming reader for ``path``, chosen from its content (never its name)."""
    path = Path(path)
    if not path.is_file():
        raise CorpusError(path, "arquivo não encontrado")
    with path.open("rb") as handle:
        head = handle.read(_SNIFF_BYTES)
    if not head.strip():
        raise CorpusError(path, "arquivo vazio")
    for magic, what in _BINARY_MAGIC.items():
        if head.startswith(magic):
            raise CorpusError(path, f"o arquivo é {what}, não uma Bíblia em XML")
    root = _root_element(path, head)
    reader = READERS.get(root.lower())
    if reader is None:
        raise CorpusError(path, f"XML com elemento raiz <{root}>, que não é de um formato aceito")
    return reader(path)


def iter_verses(path: str | Path) -> Iterator[Verse]:
    """Stream the verses of a Bible file of any accepted format."""
    return iter(open_reader(path))


def _root_element(path: Path, head: bytes) -> str:
    parser = expat.ParserCreate()

    def on_start(tag: str, _attrs: dict) -> None:
        raise _RootFound(local_name(tag))

    parser.StartElementHandler = on_start
    try:
        parser.Parse(head, False)
    except _RootFound as found:
        return found.name
    except expat.ExpatError as error:
        raise CorpusError(path, f"não é XML válido ({expat.errors.messages[error.code]})") from None
    raise CorpusError(path, "nenhum elemento XML encontrado no início do arquivo")
