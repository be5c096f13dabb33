"""Arrays kept beside the index (caches of vectors and tables): written whole or not at all."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import numpy as np

log = logging.getLogger(__name__)


def save_arrays(path: Path, what: str, **arrays: np.ndarray) -> bool:
    """Write ``arrays`` to ``path`` (.npz) through a temporary file; a failure is logged, naming ``what``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}.tmp.npz")
        np.savez(tmp, **arrays)
        tmp.replace(path)
        return True
    except OSError as error:
        log.warning("não foi possível guardar %s em %s: %s", what, path, error)
        return False


class LastProduct:
    """A matrix that keeps its product with the last vector it was multiplied by: banks that hold the same rows
    (the retellings' and the remembered verses' rivals, the topics' names) read them once a message."""

    def __init__(self, matrix: np.ndarray):
        self.matrix = matrix
        self._last: tuple[np.ndarray, np.ndarray] | None = None  # (vector, product), replaced whole: thread-safe

    def __len__(self) -> int:
        return len(self.matrix)

    def __matmul__(self, vector: np.ndarray) -> np.ndarray:
        last = self._last
        if last is not None and np.array_equal(last[0], vector):
            return last[1]
        product = self.matrix @ vector
        product.flags.writeable = False
        self._last = (np.array(vector, copy=True), product)
        return product
