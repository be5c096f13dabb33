"""Errors raised while reading a Bible file."""

from __future__ import annotations

from pathlib import Path

ACCEPTED_FORMATS = ("USFX", "OSIS 2.1.1", "Zefania XML")


class CorpusError(Exception):
    """A Bible file that cannot be used; the message names the file and the accepted formats."""

    def __init__(self, path: str | Path, problem: str):
        self.path = str(path)
        self.problem = problem
        accepted = ", ".join(ACCEPTED_FORMATS)
        super().__init__(f"{self.path}: {problem} (formatos aceitos: {accepted})")
