"""Shared fixtures: paths to the read-only shared data, and small made-up Bibles."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = ROOT.parent / "shared"
BLIVRE = SHARED / "corpus" / "por-blivre.usfx.xml"
FORMATS = SHARED / "corpus" / "formats"


@pytest.fixture(scope="session")
def shared_dir() -> Path:
    assert SHARED.is_dir(), f"the shared data must sit beside the checkout: {SHARED}"
    return SHARED


@pytest.fixture(scope="session")
def blivre(shared_dir):
    """The default 31,102-verse corpus, loaded once per test session."""
    from corpus import load

    return load(BLIVRE)


def write(tmp_path: Path, name: str, content: str | bytes) -> Path:
    """Write a made-up file for a test and return its path."""
    path = tmp_path / name
    path.write_bytes(content.encode("utf-8") if isinstance(content, str) else content)
    return path
