"""A trained model's JSON file, read with one contract: unreadable or trained on other features is a clear
error of the caller's type, naming the file and the command that retrains it."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")


def read_model_file(path: Path, features: Sequence[str], error: type[ValueError], command: str,
                    build: Callable[[dict], T], what: str = "modelo") -> T:
    """``build(data)`` of the file's JSON; any missing or malformed field becomes ``error``."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        if tuple(data["features"]) != tuple(features):
            raise error(f"{path}: treinado com outras características; rode `python -m retrieval {command}`")
        return build(data)
    except error:
        raise
    except (OSError, ValueError, KeyError, TypeError) as problem:
        raise error(f"{what} ilegível em {path}: {problem}") from problem
